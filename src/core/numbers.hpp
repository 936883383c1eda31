// The one integer grammar of kernel names and configs, so "pf:nta@0100" in a name
// and "nta@0100" in a config give the same answer (or the same refusal).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace kex {

/// A number that does not follow the grammar or is out of range. what() is the
/// reason, quoting the text as typed and giving the allowed range, e.g.
/// "'0100': a leading zero is not allowed (octal is not read; write 100, or 0x100
/// for hex); allowed: an integer in -1048576..1048576". Callers put their own
/// location (name token, file and JSON path) in front.
struct NumberError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Parses `text` as an integer in [lo, hi] (lo <= hi). Grammar: an optional single
/// leading '-', then either decimal digits without a leading zero ("0" itself is
/// fine, "-0" is 0) or "0x"/"0X" and hex digits. No '+', no spaces, no other
/// characters. Range-checked without overflow for every input, including values
/// beyond long long. Throws NumberError.
long long parse_integer(std::string_view text, long long lo, long long hi);

/// The same grammar without the '-', for values up to 2^64-1 (a seed): an integer
/// in [lo, hi]. "-1" is refused as negative, never read as 2^64-1; "1e23" and
/// "18446744073709551616" are refused. Throws NumberError.
unsigned long long parse_unsigned(std::string_view text, unsigned long long lo, unsigned long long hi);

}  // namespace kex
