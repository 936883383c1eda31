// Selecting points by their full name (`kex run --filter`, and --filter of compare,
// merge and plot), as Google Benchmark's --benchmark_filter selects benchmarks: a
// regex searched in the name, and a leading '-' keeps the names it does not match.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace kex {

/// A compiled name filter. Copies share the compiled pattern.
struct NameFilter {
  std::string text;    ///< as given, '-' included ("" keeps every name)
  bool negate = false; ///< a leading '-': keep the names the pattern does not match
  std::shared_ptr<const re2::RE2> re;

  /// Whether `name` is selected (the pattern is searched anywhere in it). Linear in
  /// the name's length for any pattern: RE2 does not backtrack.
  bool keep(std::string_view name) const;
};

/// Parses `text`: a regex in RE2's syntax (Perl's, without backreferences or
/// lookaround), optionally after one '-'. InputError naming `where` (the option,
/// e.g. "--filter") for an invalid pattern or a '-' with nothing after it.
NameFilter parse_name_filter(const std::string& text, const std::string& where);

}  // namespace kex
