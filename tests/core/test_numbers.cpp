// The integer grammar shared by kernel names and configs (src/core/numbers.hpp).
#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <string>

#include "src/core/numbers.hpp"

using namespace kex;

namespace {
std::string number_error(const std::string& text, long long lo = LLONG_MIN, long long hi = LLONG_MAX) {
  try {
    parse_integer(text, lo, hi);
  } catch (const NumberError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("parse_integer reads decimal with one optional minus and 0x hex") {
  CHECK(parse_integer("0", -10, 10) == 0);
  CHECK(parse_integer("-0", -10, 10) == 0);
  CHECK(parse_integer("256", 0, 1000) == 256);
  CHECK(parse_integer("-64", -100, 100) == -64);
  CHECK(parse_integer("0x100", 0, 1000) == 256);
  CHECK(parse_integer("0X1f", 0, 1000) == 31);
  CHECK(parse_integer("-0x40", -100, 0) == -64);
  CHECK(parse_integer("0x0100", 0, 1000) == 256);  // leading zeros are harmless once the base is explicit
  CHECK(parse_integer("9223372036854775807", LLONG_MIN, LLONG_MAX) == LLONG_MAX);
  CHECK(parse_integer("-9223372036854775808", LLONG_MIN, LLONG_MAX) == LLONG_MIN);
  CHECK(parse_integer("0x7fffffffffffffff", LLONG_MIN, LLONG_MAX) == LLONG_MAX);
  CHECK(parse_integer("-0x8000000000000000", LLONG_MIN, LLONG_MAX) == LLONG_MIN);
}

TEST_CASE("parse_integer refuses what the grammar does not allow, quoting the text and the range") {
  const std::string allowed = "; allowed: an integer in -1048576..1048576 (decimal with an optional '-', or 0x hex)";
  auto err = [](const std::string& t) { return number_error(t, -(1 << 20), 1 << 20); };
  CHECK(err("--64") == "'--64': not an integer" + allowed);
  CHECK(err("+256") == "'+256': not an integer" + allowed);
  CHECK(err(" 256") == "' 256': not an integer" + allowed);
  CHECK(err("256 ") == "'256 ': not an integer" + allowed);
  CHECK(err("1e3") == "'1e3': not an integer" + allowed);
  CHECK(err("0x-1") == "'0x-1': not an integer" + allowed);
  CHECK(err("") == "'': no number" + allowed);
  CHECK(err("-") == "'-': no digits" + allowed);
  CHECK(err("0x") == "'0x': no digits" + allowed);
  CHECK(err("0100") == "'0100': a leading zero is not allowed (it is not read as octal; write 100, or 0x100 for hex)" +
                           allowed);
  CHECK(err("-0100") == "'-0100': a leading zero is not allowed (it is not read as octal; write -100, or 0x100 for hex)" +
                            allowed);
  CHECK(err("00") == "'00': a leading zero is not allowed (it is not read as octal; write 0, or 0x0 for hex)" + allowed);
  CHECK(err("1048577") == "'1048577': out of range" + allowed);
  CHECK(err("-1048577") == "'-1048577': out of range" + allowed);
  CHECK(err(std::string("1\n2")) == "'1?2': not an integer" + allowed);  // control bytes never reach the error line
}

TEST_CASE("parse_integer range-checks values beyond long long without overflow") {
  const std::string full = "; allowed: an integer in -9223372036854775808..9223372036854775807 (decimal with an optional "
                           "'-', or 0x hex)";
  CHECK(number_error("9223372036854775808") == "'9223372036854775808': out of range" + full);      // LLONG_MAX + 1
  CHECK(number_error("-9223372036854775809") == "'-9223372036854775809': out of range" + full);    // LLONG_MIN - 1
  CHECK(number_error("0x8000000000000000") == "'0x8000000000000000': out of range" + full);
  CHECK(number_error("18446744073709551616") == "'18446744073709551616': out of range" + full);    // 2^64 wraps to 0 in u64
  CHECK(number_error("99999999999999999999999999999999999999999") ==
        "'9999999999999999999999999999999999999999...': out of range" + full);
  // A range narrower than the type: LLONG_MIN is refused, not negated.
  CHECK(number_error("-9223372036854775808", 1, 8192) == "'-9223372036854775808': out of range; allowed: an integer in "
                                                     "1..8192 (decimal with an optional '-', or 0x hex)");
}

TEST_CASE("parse_unsigned reads 0..2^64-1 in the same grammar and never wraps a negative or a larger number") {
  CHECK(parse_unsigned("0", 0, UINT64_MAX) == 0);
  CHECK(parse_unsigned("18446744073709551615", 0, UINT64_MAX) == UINT64_MAX);
  CHECK(parse_unsigned("0xffffffffffffffff", 0, UINT64_MAX) == UINT64_MAX);
  CHECK(parse_unsigned("42", 1, 100) == 42);
  auto err = [](const std::string& t) {
    try {
      parse_unsigned(t, 0, UINT64_MAX);
    } catch (const NumberError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string allowed = "; allowed: an integer in 0..18446744073709551615 (decimal, or 0x hex)";
  CHECK(err("-1") == "'-1': negative" + allowed);
  CHECK(err("-") == "'-': no digits" + allowed);
  CHECK(err("18446744073709551616") == "'18446744073709551616': out of range" + allowed);
  CHECK(err("0x10000000000000000") == "'0x10000000000000000': out of range" + allowed);
  CHECK(err("1e23") == "'1e23': not an integer" + allowed);
  CHECK(err("+1") == "'+1': not an integer" + allowed);
  CHECK(err("") == "'': no number" + allowed);
  CHECK(err("012") == "'012': a leading zero is not allowed (it is not read as octal; write 12, or 0x12 for hex)" +
                          allowed);
}
