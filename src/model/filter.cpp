#include "src/model/filter.hpp"

#include <re2/re2.h>

#include "src/core/error.hpp"

namespace kex {

bool NameFilter::keep(std::string_view name) const {
  if (!re) return true;  // "" keeps every name
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re) != negate;
}

NameFilter parse_name_filter(const std::string& text, const std::string& where) {
  NameFilter f;
  f.text = text;
  if (text.empty()) return f;
  f.negate = text.front() == '-';
  const std::string pattern = f.negate ? text.substr(1) : text;
  if (f.negate && pattern.empty())
    throw InputError(where + ": '-': a leading - keeps the names a pattern does not match; give the pattern after it "
                             "(e.g. -nt/)");
  auto re = std::make_shared<const RE2>(pattern, RE2::Quiet);
  if (!re->ok())
    throw InputError(where + ": '" + text + "': not a regular expression (RE2 syntax, as Perl's without "
                             "backreferences or lookaround): " + re->error());
  f.re = std::move(re);
  return f;
}

}  // namespace kex
