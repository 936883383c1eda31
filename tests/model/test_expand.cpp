// Points of a config visited one at a time: the same points as expand_points, and a
// visitor can stop early without the product being built first.
#include <doctest/doctest.h>

#include "src/model/config.hpp"
#include "src/model/expand.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/plans.hpp"

using namespace kex;

TEST_CASE("visit_points visits expand_points' points in order and stops when told" * doctest::test_suite("expand")) {
  const Config c = parse_config(R"({"sizes": [256, 4096], "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "avx"]}],
                                   "layout": {"src_offset": [0, 1]}, "baselines": true})", "t.json");
  LoadedCode loaded;
  const ConfigPlans cp = config_plans(c, loaded);
  const std::vector<PlannedPoint> all = expand_points(c, cp);
  REQUIRE(all.size() == 4 * 2 * 2 + 4 * 2 * 2);  // 4 kernels and 4 baselines at 2 sizes x 2 offsets
  std::vector<std::string> seen;
  CHECK(visit_points(c, cp, [&](const PlannedPoint& p) {
    seen.push_back(point_name({cp.plans[p.plan].key, p.at}));
    return true;
  }));
  REQUIRE(seen.size() == all.size());
  for (size_t i = 0; i < all.size(); ++i) CHECK(seen[i] == point_name({cp.plans[all[i].plan].key, all[i].at}));
  size_t n = 0;
  CHECK_FALSE(visit_points(c, cp, [&](const PlannedPoint&) { return ++n < 5; }));
  CHECK(n == 5);
}

TEST_CASE("a grid of 10^8 coordinates is visited lazily: stopping after a few costs nothing" * doctest::test_suite("expand")) {
  Axes a;
  for (uint64_t i = 1; i <= 10000; ++i) a.sizes.push_back(i);
  a.src_offsets.clear();
  for (uint64_t i = 0; i < 10000; ++i) a.src_offsets.push_back(i);
  size_t n = 0;
  CHECK_FALSE(visit_coordinates(a, [&](const Coords& c) {
    CHECK(c.size == 1);
    CHECK(c.layout.src_offset == n);
    return ++n < 3;
  }));
  CHECK(n == 3);
}
