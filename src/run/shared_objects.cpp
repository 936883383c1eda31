#include "src/run/shared_objects.hpp"

#include <dlfcn.h>

#include <deque>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/run/sandbox.hpp"

namespace kex {

namespace {

struct SharedSymbol {
  std::string path, symbol;
  void* fn = nullptr;  ///< the slot: filled in the children only
};

/// Every object registered, in order (a deque: slots keep their address).
std::deque<SharedSymbol>& registry() {
  static std::deque<SharedSymbol> r;
  return r;
}

/// dlopen's argument: a path without '/' would be searched for in the library path.
std::string openable(const std::string& path) { return path.find('/') == std::string::npos ? "./" + path : path; }

/// In a forked child: opens `path` and finds `symbol`; "" and the address, or why not.
std::string open_symbol(const std::string& path, const std::string& symbol, void*& fn) {
  dlerror();
  void* h = dlopen(openable(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    return std::string("cannot open it: ") + (e ? e : "dlopen failed");
  }
  dlerror();
  fn = dlsym(h, symbol.c_str());
  const char* e = dlerror();
  if (e) return std::string("no symbol ") + symbol + ": " + e;
  if (!fn) return "the symbol " + symbol + " is null";
  return "";
}

}  // namespace

void* const* shared_object_slot(const std::string& path, const std::string& symbol) {
  for (SharedSymbol& s : registry())
    if (s.path == path && s.symbol == symbol) return &s.fn;
  registry().push_back({path, symbol, nullptr});
  return &registry().back().fn;
}

void open_shared_objects() noexcept {
  for (SharedSymbol& s : registry()) {
    if (s.fn) continue;
    void* h = dlopen(openable(s.path).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) s.fn = dlsym(h, s.symbol.c_str());
  }
}

std::string probe_shared_object(const std::string& path, const std::string& symbol) {
  const auto job = [&](size_t) -> std::string {
    void* fn = nullptr;
    return open_symbol(path, symbol, fn);
  };
  const SandboxOutcome o = run_sandboxed(1, job, 10, nullptr, CallFilter::loading).at(0);
  if (!o.finished) return "crashed while opening it: " + describe_death(o, nullptr, 0);
  return terminal_text(o.message);
}

FunctionCode shared_object_code(const std::string& path, const std::string& symbol, size_t cap) {
  // The child's answer: "E" and why, or "C", the line saying how the end was found, '\n', the bytes.
  const auto job = [&](size_t) -> std::string {
    void* fn = nullptr;
    if (std::string why = open_symbol(path, symbol, fn); !why.empty()) return "E" + why;
    const FunctionCode f = function_code(fn, cap);
    return "C" + f.how + "\n" + std::string(f.bytes.begin(), f.bytes.end());
  };
  const SandboxOutcome o = run_sandboxed(1, job, 10, nullptr, CallFilter::loading).at(0);
  const std::string at = terminal_text(path);
  if (!o.finished) throw InputError(at, "crashed while opening it: " + describe_death(o, nullptr, 0));
  const size_t nl = o.message.find('\n');
  if (o.message.rfind('C', 0) != 0 || nl == std::string::npos) throw InputError(at, terminal_text(o.message.substr(1)));
  FunctionCode f;
  f.how = o.message.substr(1, nl - 1);
  f.bytes.assign(o.message.begin() + std::ptrdiff_t(nl) + 1, o.message.end());
  return f;
}

}  // namespace kex
