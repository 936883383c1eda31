// The point name's coordinate tokens (point_name and parse_point_name, src/model/point.cpp)
// as one table beside the axes table (src/model/axis.hpp): a row per token in the name's
// canonical order, keyed by the axis it writes, with its key, its form (a word alone or
// key:value), its text and its parser. The one row that is no axis is "pass" (the nth
// run of a kernel in a seed table). The writer, the parser and their error lists
// ("allowed after the size: ...", "canonical order: ...") are all made from it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/model/axis.hpp"

namespace kex {

/// One coordinate token of a point name.
struct PointToken {
  using Text = std::string (*)(const Coords&);
  using Parse = void (*)(Coords& c, std::string_view t, std::string_view val);
  /// A row of the table; its default_text is filled in by point_tokens().
  PointToken(std::optional<Axis> a, const char* k, bool f, std::string fm, Text own, Parse p)
      : axis(a), key(k), flag(f), form(std::move(fm)), own_text(own), parse(p) {}

  std::optional<Axis> axis;  ///< the axis the token writes; none for "pass", which is no axis
  const char* key;           ///< "src", "nohuge", "harness", ...
  bool flag;                 ///< a word alone ("nohuge", "consume", "cold"); else key:value
  std::string form;          ///< as the allowed list shows it: "src:N", "nohuge", "prefill:0xNN", ...
  /// The coordinate's text: for an axis nullptr (the axis's text, axis_value), for "pass" its
  /// own. A value token writes it after the colon; the token is in a name when it differs
  /// from the default point's.
  Text own_text;
  /// Sets the coordinate from token `t` whose value is `val` (a flag's is empty); throws
  /// std::invalid_argument naming `t` and what is allowed.
  Parse parse;
  std::string default_text;  ///< the text of the default point (Coords{}): a name leaves the token out
};

/// Every token, in the name's canonical order; every axis but the size (the name's
/// positional number) has one.
const std::vector<PointToken>& point_tokens();

/// The token's text of `c` (see PointToken::own_text).
std::string token_text(const PointToken& t, const Coords& c);


/// "src:N dst:N ... pass:N": every token's form, in canonical order.
std::string point_token_forms();
/// "src dst ... pass": every token's key, in canonical order.
std::string point_token_keys();

/// Whether `t` is one or more decimal digits (the size token, a number).
bool decimal_digits(std::string_view t);

/// `text` (of token `token`) as decimal digits with an optional leading '-', no leading
/// zeros, no '+' (the form point_name writes, so a name has one spelling), in [lo, hi];
/// throws std::invalid_argument quoting the token.
int64_t parse_name_decimal(std::string_view token, std::string_view text, int64_t lo, int64_t hi);

}  // namespace kex
