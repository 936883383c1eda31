#include "src/run/load_plans.hpp"

#include <memory>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/kernel_names.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/object_code.hpp"

namespace kex {

/// Where the code of `l` is, by its source's reach: object code's bytes (read and laid out
/// by the object loader), or a shared object's slot after a probe in a child.
OutsideCode LoadedCode::find_code(const LoadSpec& l, Source source, const std::string& where) {
  OutsideCode c;
  const std::string at = where + ": " + terminal_text(l.path);
  try {
    if (source_row(source).reach == Reach::bytes) {
      c.object = std::make_shared<const ObjectCode>(load_object_symbol(l.path, l.symbol));
      c.facts.sha256 = c.object->sha256;
      c.facts.pieces = c.object->pieces.size();
      return c;
    }
    c.facts.sha256 = shared_.sha256(l.path);  // checked and copied before dlopen sees it
  } catch (const InputError& e) {
    throw InputError(where, e.what());
  }
  if (const std::string why = shared_.probe(l.path, l.symbol); !why.empty()) throw InputError(at, why);
  c.slot = shared_.slot(l.path, l.symbol);
  return c;
}

/// Refuses NAME for other code than the first load of that NAME in this registry.
void LoadedCode::check_same_name(const LoadSpec& l, const std::string& where) {
  const auto [it, fresh] = named_.emplace(l.name, l);
  if (!fresh && !(it->second == l))
    throw InputError(where + ": NAME '" + l.name + "' is given twice for other code (" + terminal_text(it->second.path) +
                     ":" + it->second.symbol + " and " + terminal_text(l.path) + ":" + l.symbol + ")");
}

KernelPlan LoadedCode::plan(const LoadSpec& l, uint8_t fill, const std::string& where) {
  check_load(l, where);
  check_same_name(l, where);
  const Source source = *load_source(l.path);
  const auto key = std::make_pair(l.path, l.symbol);
  auto it = done_.find(key);
  if (it == done_.end()) it = done_.emplace(key, find_code(l, source, where)).first;
  OutsideCode c = it->second;
  c.facts.source = source;
  c.facts.function = l.function;
  c.facts.symbol = l.symbol;
  c.facts.path = l.path;
  c.facts.label = l.name;
  return outside_plan(c, fill);
}

}  // namespace kex
