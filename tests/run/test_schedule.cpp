// The measuring order and the sentinel's detector, on synthetic inputs.
#include <doctest/doctest.h>

#include <algorithm>
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

TEST_CASE("rounds: every member of every group once per round, the order reproducible from the seed" *
          doctest::test_suite("protocol")) {
  // Groups of 5, 3, 1 and 8 points (a group of one is measured alone).
  const std::vector<std::vector<uint32_t>> groups = {{0, 1, 2, 3, 4}, {5, 6, 7}, {8}, {9, 10, 11, 12, 13, 14, 15, 16}};
  const auto a = round_tasks(groups, 20, 42, 7), b = round_tasks(groups, 20, 42, 7), c = round_tasks(groups, 20, 43, 7);
  REQUIRE(a.size() == 4 * 20);
  CHECK(a == b);
  CHECK(a != c);
  std::map<size_t, std::set<uint32_t>> rounds_of_group;  // group -> its round numbers
  std::set<uint64_t> ids;
  std::set<std::vector<uint32_t>> member_orders;
  for (size_t i = 0; i < a.size(); ++i) {
    const Task& t = a[i];
    CHECK(t.round == 7 + i);  // ids in measuring order, from the first id
    CHECK(ids.insert(t.round).second);
    const std::vector<uint32_t> pts = t.points();
    CHECK(pts.front() == t.point);
    // Exactly the members of one group, each once.
    const auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& m) {
      return std::find(m.begin(), m.end(), t.point) != m.end();
    });
    REQUIRE(g != groups.end());
    std::vector<uint32_t> sorted = pts;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == *g);
    CHECK(rounds_of_group[size_t(g - groups.begin())].insert(t.rep).second);
    if (pts.size() == 1) CHECK(t.members.empty());  // a group of one: the point alone
    if (g == groups.begin()) member_orders.insert(pts);
    // No group twice in a row: the rounds of a group are spread over the run.
    if (i) {
      const auto& prev = a[i - 1].points();
      CHECK(std::find(g->begin(), g->end(), prev.front()) == g->end());
    }
  }
  for (const auto& [g, reps] : rounds_of_group) CHECK(reps.size() == 20);
  CHECK(member_orders.size() > 10);  // the member order is shuffled per round
}

TEST_CASE("a task names its members: a round's member view, a point alone" * doctest::test_suite("protocol")) {
  const Task alone{4, 2, {}, 0};
  CHECK(alone.points() == std::vector<uint32_t>{4});
  const Task round{3, 1, {3, 1, 2}, 9};
  CHECK(round.points() == std::vector<uint32_t>{3, 1, 2});
  CHECK(round.member(2) == Task{2, 1, {}, 9});
}

TEST_CASE("a resumed paired run completes a round the journal holds in part, and measures only the rounds missing" *
          doctest::test_suite("protocol")) {
  // Group {0, 1, 2}: round 3 complete in the journal, round 5 lacks point 2 (killed
  // between its lines); group {3}: one round. 4 rounds asked.
  auto rep = [](uint64_t round) {
    Repetition r;
    r.round = round;
    return r;
  };
  const std::vector<std::vector<uint32_t>> groups = {{0, 1, 2}, {3}};
  const std::vector<std::vector<Repetition>> reps = {{rep(3), rep(5)}, {rep(3), rep(5)}, {rep(3)}, {rep(4)}};
  const std::vector<Task> t = paired_order(groups, reps, 4, true, 9, 6);
  std::map<uint32_t, size_t> count;  // point -> repetitions it will have
  for (size_t j = 0; j < reps.size(); ++j) count[uint32_t(j)] = reps[j].size();
  std::set<uint64_t> ids;
  std::vector<std::vector<Repetition>> after = reps;  // the journal once these tasks are measured
  for (const Task& x : t) {
    CHECK((x.round >= 6 || x.round == 5));  // new rounds after the journal's; the partial one keeps its id
    CHECK(ids.insert(x.round).second);
    for (uint32_t p : x.points()) {
      ++count[p];
      after[p].push_back(rep(x.round));
    }
  }
  REQUIRE(t.size() == 1 + 2 + 3);  // the completion of round 5, two new rounds of {0,1,2}, three of {3}
  CHECK(t.front().points() == std::vector<uint32_t>{2});
  CHECK(t.front().round == 5);
  for (const auto& [p, n] : count) CHECK(n == 4);  // every point ends with one repetition a round
  // A resume of that journal measures nothing again: round 5 is complete now.
  CHECK(paired_order(groups, after, 4, true, 9, 20).empty());
}
