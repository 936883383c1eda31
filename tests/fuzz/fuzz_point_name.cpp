// libFuzzer target: kex::parse_point_name on arbitrary bytes (tests/fuzz/run.sh).
// std::invalid_argument is the expected refusal; anything else, a crash, a hang or
// a sanitizer report is a finding, and so is a parsed point whose canonical name
// does not parse back to the same point (point.hpp: the inverse of point_name).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "src/core/error.hpp"
#include "src/model/point.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  kex::Point p;
  try {
    p = kex::parse_point_name(name);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const kex::InputError&) {
    return 0;
  }
  kex::Point q;
  try {
    q = kex::parse_point_name(kex::point_name(p));
  } catch (const std::exception&) {
    std::abort();  // the canonical name of a parsed point must parse
  }
  if (!(q == p)) std::abort();
  return 0;
}
