#include "src/model/load_spec.hpp"

#include <algorithm>

#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

std::optional<Source> load_source(const std::string& path) { return source_of_path(path); }

std::string load_kernel(const LoadSpec& l) {
  return impl_name({load_source(l.path).value_or(Source::lib), l.name, 0});
}

void check_load(const LoadSpec& l, const std::string& where) {
  const std::string head = where + ": '" + l.name + "=" + l.path + ":" + l.symbol + "': ";
  if (!is_load_label(l.name))
    throw InputError(head + "NAME '" + l.name + "': allowed: 1..64 letters, digits, _ and -, not starting with -");
  if (!load_source(l.path)) throw InputError(head + "PATH '" + l.path + "': allowed: " + std::string(load_path_forms()));
  if (!parse_impl_name("glibc/" + l.symbol))
    throw InputError(head + "SYMBOL '" + l.symbol + "': allowed: a C identifier of at most 128 bytes");
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
  if (const auto f = parse_function_word(last)) {
    l.function = *f;
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
