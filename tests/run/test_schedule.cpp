// The measuring order and the sentinel's detector, on synthetic inputs.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "src/run/schedule.hpp"
#include "src/run/sentinel.hpp"

using namespace kex;

TEST_CASE("shuffled order: every (point, repetition) exactly once, reproducible from the seed" * doctest::test_suite("protocol")) {
  std::vector<uint32_t> group;
  for (uint32_t p = 0; p < 300; ++p) group.push_back(p % 17);
  const auto a = shuffled_tasks(group, 5, 42), b = shuffled_tasks(group, 5, 42), c = shuffled_tasks(group, 5, 43);
  REQUIRE(a.size() == 1500);
  CHECK(a == b);
  CHECK(a != c);
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const Task& t : a) CHECK(seen.insert({t.point, t.rep}).second);
  CHECK(seen.size() == 1500);
  // Spread over the whole sweep: the first tenth holds points from all over, not the first tenth of them.
  uint32_t maxp = 0;
  for (size_t i = 0; i < 150; ++i) maxp = std::max(maxp, a[i].point);
  CHECK(maxp > 250);
  CHECK(adjacent_conflicts(a, group) == 0);
  CHECK(adjacent_conflicts(ordered_tasks(300, 5), group) == 300 * 4);  // in turn: every repetition follows its own point
}

TEST_CASE("shuffled order: no two neighbours share a family at one size when it can be avoided" * doctest::test_suite("protocol")) {
  // Two groups, one much larger: conflicts cannot all be avoided, but the repair keeps them few.
  std::vector<uint32_t> group(100, 0);
  for (size_t i = 0; i < 40; ++i) group[i] = 1;
  const auto t = shuffled_tasks(group, 3, 7);
  CHECK(t.size() == 300);
  // 180 of group 0 among 120 of group 1: at least 59 are forced; the greedy repair stays near that
  CHECK(adjacent_conflicts(t, group) <= 75);
  CHECK(task_group("copy/avx", 4096) == "copy/avx@4096");
}

TEST_CASE("the detector flags a reading slower than its running baseline by more than the threshold" * doctest::test_suite("protocol")) {
  DisturbanceDetector d(0.15, 5);
  auto reading = [](double l1, double mem) {
    SentinelReading r;
    r.l1_ticks_per_kib = l1;
    r.mem_ticks_per_kib = mem;
    return r;
  };
  for (double v : {100.0, 102.0, 99.0, 101.0}) {
    auto r = reading(v, 50);
    CHECK_FALSE(d.add(r));
  }
  CHECK(d.baseline_l1() == doctest::Approx(100.5));
  auto slow_core = reading(120, 50);  // 19% slower on the core: another tenant on the sibling
  CHECK(d.add(slow_core));
  CHECK(slow_core.disturbed);
  auto slow_mem = reading(100, 60);   // 20% slower to memory: bandwidth taken by others
  CHECK(d.add(slow_mem));
  auto ok = reading(110, 55);         // within 15%
  CHECK_FALSE(d.add(ok));
  CHECK(d.disturbed() == 2);
  CHECK(d.readings() == 7);
  // Disturbed readings stay out of the baseline; a faster machine lowers it.
  CHECK(d.baseline_l1() == doctest::Approx(101));
  for (int i = 0; i < 5; ++i) {
    auto r = reading(80, 40);
    d.add(r);
  }
  CHECK(d.baseline_l1() == doctest::Approx(80));
  auto was_normal = reading(100, 50);  // normal before, 25% above the new baseline now
  CHECK(d.add(was_normal));
}
