#include "src/model/load_spec.hpp"

#include <algorithm>

#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// Whether `path` ends in .so or .so.N[.N...].
bool is_shared_object_path(const std::string& path) {
  if (ends_with(path, ".so")) return true;
  const size_t at = path.rfind(".so.");
  if (at == std::string::npos || at == 0 || at + 4 >= path.size()) return false;
  return std::all_of(path.begin() + long(at + 4), path.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

constexpr const char* kPathForms =
    "a shared object (x.so, x.so.N), an assembly file (x.s, x.S), an object (x.o, x.lo) or an archive member "
    "(lib.a(member))";

}  // namespace

std::optional<ImplSource> load_source(const std::string& path) {
  if (is_shared_object_path(path)) return ImplSource::lib;
  for (const char* tail : {".s", ".S", ".o", ".lo"})
    if (ends_with(path, tail)) return ImplSource::object;
  const size_t open = path.rfind(".a(");
  if (open != std::string::npos && open > 0 && path.back() == ')' && open + 4 < path.size()) return ImplSource::object;
  return std::nullopt;
}

std::string load_kernel(const LoadSpec& l) {
  return impl_name({load_source(l.path).value_or(ImplSource::lib), l.name, 0});
}

std::string load_function_word(const std::string& function) {
  if (function == "memcpy") return "copy";
  if (function == "memmove") return "move";
  if (function == "memset") return "clear";
  return function;
}

void check_load(const LoadSpec& l, const std::string& where) {
  const std::string head = where + ": '" + l.name + "=" + l.path + ":" + l.symbol + "': ";
  if (!is_load_label(l.name))
    throw InputError(head + "NAME '" + l.name + "': allowed: 1..64 letters, digits, _ and -, not starting with -");
  if (!load_source(l.path)) throw InputError(head + "PATH '" + l.path + "': allowed: " + kPathForms);
  if (!parse_impl_name("glibc/" + l.symbol))
    throw InputError(head + "SYMBOL '" + l.symbol + "': allowed: a C identifier of at most 128 bytes");
  if (l.function != "memcpy" && l.function != "memmove" && l.function != "memset")
    throw InputError(head + "function '" + l.function + "': allowed: copy (memcpy's ABI), move (memmove's), clear (memset's)");
}

LoadSpec parse_load_option(const std::string& text, const std::string& where) {
  const std::string form = "give NAME=PATH:SYMBOL[:copy|move|clear], e.g. new=./libmine.so:my_memcpy";
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw InputError(where + ": '" + text + "': no '=': " + form);
  LoadSpec l;
  l.name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos) throw InputError(where + ": '" + text + "': no ':SYMBOL': " + form);
  std::string last = rest.substr(colon + 1);
  if (last == "copy" || last == "move" || last == "clear") {
    l.function = last == "copy" ? "memcpy" : last == "move" ? "memmove" : "memset";
    rest = rest.substr(0, colon);
    colon = rest.rfind(':');
    if (colon == std::string::npos) throw InputError(where + ": '" + text + "': no ':SYMBOL': " + form);
  }
  l.symbol = rest.substr(colon + 1);
  l.path = rest.substr(0, colon);
  check_load(l, where);
  return l;
}

void check_load_names(const std::vector<LoadSpec>& loads, const std::string& where) {
  for (size_t i = 0; i < loads.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (loads[j].name == loads[i].name)
        throw InputError(where + ": NAME '" + loads[i].name + "' is given twice (each load needs a name of its own)");
}

}  // namespace kex
