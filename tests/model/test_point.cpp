// Harness names and point names round-trip (docs/DESIGN.md: every name parses back).
#include <doctest/doctest.h>

#include <stdexcept>

#include "src/model/point.hpp"

using namespace kex;

TEST_CASE("every harness's name parses back to it; the programs' file names are accepted too" *
          doctest::test_suite("point")) {
  for (Harness h : {Harness::kex, Harness::fastc, Harness::hahn, Harness::xmm64}) {
    REQUIRE(parse_harness(to_string(h)));
    CHECK(*parse_harness(to_string(h)) == h);
  }
  CHECK(to_string(Harness::xmm64) == "xmm64");
  CHECK(parse_harness("xmm64.c") == Harness::xmm64);
  CHECK(parse_harness("fast.c") == Harness::fastc);
  CHECK(parse_harness("athlon.c") == Harness::hahn);
  CHECK_FALSE(parse_harness("xmm"));
  CHECK_FALSE(parse_harness("XMM64"));
  CHECK_FALSE(parse_harness(""));
}

TEST_CASE("point names with a seed harness round-trip; harness:kex and file names are not tokens" *
          doctest::test_suite("point")) {
  for (Harness h : {Harness::fastc, Harness::hahn, Harness::xmm64}) {
    Point p{"xmm64/xmm_clear", {}};
    p.at.size = 4096;
    p.at.harness = h;
    const std::string n = point_name(p);
    CHECK(n == "xmm64/xmm_clear/4096/harness:" + std::string(to_string(h)));
    CHECK(parse_point_name(n) == p);
    p.at.pass = 2;
    CHECK(point_name(p) == n + "/pass:2");
    CHECK(parse_point_name(point_name(p)) == p);
  }
  Point plain{"fastc/faster_copy", {}};
  plain.at.size = 4096;
  CHECK(point_name(plain) == "fastc/faster_copy/4096");  // kex is the default: no token
  CHECK_THROWS_AS(parse_point_name("fastc/faster_copy/4096/harness:kex"), std::invalid_argument);
  CHECK_THROWS_AS(parse_point_name("fastc/faster_copy/4096/harness:xmm64.c"), std::invalid_argument);
  try {
    parse_point_name("fastc/faster_copy/4096/harness:lahaise");
    FAIL("no throw");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("harness:xmm64") != std::string::npos);
  }
}
