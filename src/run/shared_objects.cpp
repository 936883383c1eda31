#include "src/run/shared_objects.hpp"

#include <dlfcn.h>

#include <deque>

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
    dlerror();
    void* h = dlopen(openable(path).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      return std::string("cannot open it: ") + (e ? e : "dlopen failed");
    }
    dlerror();
    void* fn = dlsym(h, symbol.c_str());
    const char* e = dlerror();
    if (e) return std::string("no symbol ") + symbol + ": " + e;
    if (!fn) return "the symbol " + symbol + " is null";
    return "";
  };
  const SandboxOutcome o = run_sandboxed(1, job, 10).at(0);
  if (!o.finished) return "crashed while opening it: " + describe_death(o, nullptr, 0);
  return terminal_text(o.message);
}

}  // namespace kex
