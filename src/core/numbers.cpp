#include "src/core/numbers.hpp"

#include <cstdint>
#include <limits>

namespace kex {

namespace {

/// The text for an error: as typed, control bytes shown as '?', long junk cut short.
std::string quoted(std::string_view text) {
  std::string q = "'";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    q += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
  if (text.size() > 40) q += "...";
  return q + "'";
}

int digit_value(char c, int base) {
  int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
  return v < base ? v : -1;
}

}  // namespace

namespace {

/// The grammar's checks and the magnitude of `text` (without its sign), saturated
/// just above `limit` so no input overflows; `fail` builds the error.
template <class Fail>
uint64_t magnitude(std::string_view text, bool allow_minus, bool& neg, uint64_t limit, bool& too_big, Fail fail) {
  std::string_view d = text;
  neg = allow_minus && !d.empty() && d[0] == '-';
  if (neg) d.remove_prefix(1);
  int base = 10;
  if (d.size() >= 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    d.remove_prefix(2);
    base = 16;
  }
  if (d.empty()) throw fail(text.empty() ? "no number" : "no digits");
  for (char c : d)
    if (digit_value(c, base) < 0) throw fail("not an integer");
  if (base == 10 && d.size() > 1 && d[0] == '0') {
    const size_t first = d.find_first_not_of('0');
    const std::string_view rest = first == std::string_view::npos ? d.substr(d.size() - 1) : d.substr(first);
    std::string hint = rest.size() > 20 ? "" : "; write " + std::string(neg ? "-" : "") + std::string(rest) + ", or 0x" +
                                                    std::string(rest) + " for hex";
    throw fail("a leading zero is not allowed (it is not read as octal" + hint + ")");
  }
  uint64_t mag = 0;
  too_big = false;
  for (char c : d) {
    const uint64_t v = static_cast<uint64_t>(digit_value(c, base));
    if (mag > (limit - v) / static_cast<uint64_t>(base)) {
      too_big = true;
      break;
    }
    mag = mag * static_cast<uint64_t>(base) + v;
  }
  return mag;
}

}  // namespace

long long parse_integer(std::string_view text, long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  const std::string allowed = "allowed: an integer in " + range + " (decimal with an optional '-', or 0x hex)";
  auto fail = [&](const std::string& why) -> NumberError { return NumberError(quoted(text) + ": " + why + "; " + allowed); };

  // The magnitude in unsigned arithmetic, saturating just above 2^63 (the largest
  // magnitude of a long long, LLONG_MIN's), so no input overflows.
  constexpr uint64_t kLimit = uint64_t(1) << 63;
  bool neg = false, too_big = false;
  const uint64_t mag = magnitude(text, true, neg, kLimit, too_big, fail);
  if (too_big || (!neg && mag > static_cast<uint64_t>(std::numeric_limits<long long>::max())))
    throw fail("out of range");
  // -2^63 is representable; the cast avoids negating LLONG_MIN.
  const long long value = neg ? (mag == kLimit ? std::numeric_limits<long long>::min() : -static_cast<long long>(mag))
                              : static_cast<long long>(mag);
  if (value < lo || value > hi) throw fail("out of range");
  return value;
}

unsigned long long parse_unsigned(std::string_view text, unsigned long long lo, unsigned long long hi) {
  const std::string allowed =
      "allowed: an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + " (decimal, or 0x hex)";
  auto fail = [&](const std::string& why) -> NumberError { return NumberError(quoted(text) + ": " + why + "; " + allowed); };
  if (!text.empty() && text[0] == '-') throw fail(text.size() > 1 ? "negative" : "no digits");
  bool neg = false, too_big = false;
  const uint64_t mag = magnitude(text, false, neg, std::numeric_limits<uint64_t>::max(), too_big, fail);
  if (too_big || mag < lo || mag > hi) throw fail("out of range");
  return mag;
}

}  // namespace kex
