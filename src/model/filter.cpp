#include "src/model/filter.hpp"

#include "src/core/error.hpp"

namespace kex {

bool NameFilter::keep(std::string_view name) const {
  if (!re) return true;
  return std::regex_search(name.begin(), name.end(), *re) != negate;
}

NameFilter parse_name_filter(const std::string& text, const std::string& where) {
  NameFilter f;
  f.text = text;
  if (text.empty()) return f;  // keeps every name
  f.negate = !text.empty() && text.front() == '-';
  const std::string pattern = f.negate ? text.substr(1) : text;
  if (f.negate && pattern.empty())
    throw InputError(where + ": '-': a leading - keeps the names a pattern does not match; give the pattern after it "
                             "(e.g. -nt/)");
  try {
    f.re = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError(where + ": '" + text + "': not a regular expression (ECMAScript): " + e.what());
  }
  return f;
}

}  // namespace kex
