// Selecting points by their full name (`kex run --filter`, and --filter of compare,
// merge and plot), as Google Benchmark's
// --benchmark_filter selects benchmarks: a regex searched in the name, and a
// leading '-' keeps the names it does not match.
#pragma once
#include <memory>
#include <regex>
#include <string>
#include <string_view>

namespace kex {

/// A compiled name filter. Copies share the regex.
struct NameFilter {
  std::string text;    ///< as given, '-' included
  bool negate = false; ///< a leading '-': keep the names the pattern does not match
  std::shared_ptr<const std::regex> re;

  /// Whether `name` is selected (the pattern is searched anywhere in it).
  bool keep(std::string_view name) const;
};

/// Parses `text` (ECMAScript regex, optionally after one '-'). InputError naming
/// `where` (the option, e.g. "--filter") for an invalid regex or a '-' with nothing after it.
NameFilter parse_name_filter(const std::string& text, const std::string& where);

}  // namespace kex
