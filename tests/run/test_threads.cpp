// Workers of multi-threaded points: where they are placed, that they start together,
// and what a sample's time is.
#include <doctest/doctest.h>

#include <sched.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "src/core/affinity.hpp"
#include "src/core/error.hpp"
#include "src/run/placement.hpp"
#include "src/run/team.hpp"

using namespace kex;

namespace {

/// A synthetic machine: `domains` L3 domains of `cores` cores of `smt` CPUs each, CPUs
/// numbered as Linux does on AMD (the first sibling of every core, then the second ones).
std::vector<ThreadPlace> machine_of(int domains, int cores, int smt) {
  std::vector<ThreadPlace> v;
  const int n_cores = domains * cores;
  for (int s = 0; s < smt; ++s)
    for (int c = 0; c < n_cores; ++c) v.push_back({s * n_cores + c, c, c / cores, 0});
  return v;
}

std::vector<int> cpus_of(const std::vector<ThreadPlace>& v) {
  std::vector<int> out;
  for (const ThreadPlace& p : v) out.push_back(p.cpu);
  return out;
}

}  // namespace

TEST_CASE("--placement parses spread, compact and CPU lists in worker order, and refuses the rest" * doctest::test_suite("run")) {
  CHECK(parse_placement("spread", "--placement").mode == PlacementMode::spread);
  CHECK(parse_placement("compact", "--placement").mode == PlacementMode::compact);
  const PlacementRequest r = parse_placement("3,0-1", "--placement");
  CHECK(r.mode == PlacementMode::list);
  CHECK(r.cpus == std::vector<int>{3, 0, 1});
  CHECK(placement_text(r) == "3,0,1");
  CHECK(parse_placement(placement_text(r), "x") == r);
  CHECK_THROWS_WITH_AS(parse_placement("wide", "--placement"),
                       "--placement: 'wide': allowed: spread, compact, or a CPU list such as 0,2-3 (workers in that order)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_placement("1,1", "--placement"), doctest::Contains("CPU 1 is listed twice"), InputError);
  CHECK_THROWS_AS(parse_placement("", "--placement"), InputError);
  CHECK_THROWS_AS(parse_placement("1,,2", "--placement"), InputError);
}

TEST_CASE("spread takes one CPU per core, alternating L3 domains, before SMT siblings, compact fills a core first" *
          doctest::test_suite("run")) {
  // 2 domains x 2 cores x 2 SMT: cores 0,1 in domain 0, cores 2,3 in domain 1; CPU c+4 is core c's sibling.
  const std::vector<ThreadPlace> m = machine_of(2, 2, 2);
  CHECK(cpus_of(order_places(PlacementMode::spread, m, 0)) == std::vector<int>{0, 2, 1, 3, 4, 6, 5, 7});
  CHECK(cpus_of(order_places(PlacementMode::compact, m, 0)) == std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7});
  // Starting from the measuring CPU (the last one, as kex pins by default): its core and domain first.
  // Spread from CPU 7 (core 3, domain 1): core 0 in the other domain next, then core 2, core 1;
  // compact: core 3's sibling, then core 2, then domain 0.
  CHECK(cpus_of(order_places(PlacementMode::spread, m, 7)) == std::vector<int>{7, 0, 2, 1, 3, 4, 6, 5});
  CHECK(cpus_of(order_places(PlacementMode::compact, m, 7)) == std::vector<int>{7, 3, 2, 6, 0, 4, 1, 5});
  // Without hwloc's cores (a VM that tells nothing): every CPU its own core, in order from the first.
  std::vector<ThreadPlace> bare = {{0, -1, -1, -1}, {1, -1, -1, -1}, {2, -1, -1, -1}};
  const std::vector<ThreadPlace> o = order_places(PlacementMode::spread, bare, 1);
  CHECK(cpus_of(o) == std::vector<int>{1, 2, 0});
  CHECK(o[0].core == -1);
  CHECK(order_places(PlacementMode::spread, m, 99).empty());  // a first CPU not in the machine
}

TEST_CASE("asking for more workers than the affinity mask allows is an error naming the mask" * doctest::test_suite("run")) {
  const std::vector<int> mask = {0, 1};
  CHECK_THROWS_WITH_AS(place_threads({}, 3, 1, mask),
                       "threads: 3 workers need 3 CPUs; the affinity mask 0-1 allows 2 (one worker per CPU)", InputError);
  CHECK_THROWS_WITH_AS(place_threads({PlacementMode::list, {1, 5}}, 2, 1, mask),
                       "--placement: 5 is not a CPU this process may run on (affinity mask 0-1)", InputError);
  CHECK_THROWS_WITH_AS(place_threads({PlacementMode::list, {1}}, 2, 1, mask), doctest::Contains("--placement lists 1"),
                       InputError);
  const std::vector<ThreadPlace> l = place_threads({PlacementMode::list, {1, 0}}, 2, 1, mask);
  CHECK(cpus_of(l) == std::vector<int>{1, 0});
  const std::vector<ThreadPlace> s = place_threads({}, 2, 1, mask);
  CHECK(s[0].cpu == 1);  // worker 0 on the measuring CPU
  CHECK(s[1].cpu == 0);
}

TEST_CASE("a team's workers run on their own CPUs and start every sample together" * doctest::test_suite("threads")) {
  const std::vector<int>& mask = startup_cpus();
  if (mask.size() < 2) {
    MESSAGE("one CPU in the affinity mask: no second worker to check");
    return;
  }
  const std::vector<int> cpus = {mask[1], mask[0]};
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[0], &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);  // worker 0 is the calling thread, pinned by its owner
  Team team(cpus);
  REQUIRE(team.size() == 2);
  std::vector<int> ran(2, -1);
  team.run(2, [&](uint32_t k) { ran[k] = sched_getcpu(); });
  CHECK(ran == cpus);
  // The barrier: no worker starts before the last one arrived, in every sample, also when
  // one of them takes longer to prepare (here worker 1, spinning for ~1 ms before it arrives).
  for (int i = 0; i < 50; ++i) {
    const TeamSample s = team_sample(
        team, 2,
        [&](uint32_t k) {
          if (k == 1 && i % 2) {
            const uint64_t t0 = __builtin_ia32_rdtsc();
            while (__builtin_ia32_rdtsc() - t0 < 2000000) {
            }
          }
        },
        [](uint32_t) {});
    const uint64_t last_arrival = std::max(s.arrive[0], s.arrive[1]);
    CHECK(std::min(s.start[0], s.start[1]) >= last_arrival);
    CHECK(s.wall() == std::max(s.end[0], s.end[1]) - std::min(s.start[0], s.start[1]));
    CHECK(s.start_spread() == std::max(s.start[0], s.start[1]) - std::min(s.start[0], s.start[1]));
  }
  // Fewer workers than the team: only those run. An exception from a helper reaches the caller.
  std::vector<int> hit(2, 0);
  team.run(1, [&](uint32_t k) { hit[k] = 1; });
  CHECK(hit == std::vector<int>{1, 0});
  CHECK_THROWS_WITH_AS(team.run(2, [](uint32_t k) {
    if (k == 1) throw std::runtime_error("worker 1 failed");
  }), "worker 1 failed", std::runtime_error);
  team.run(2, [&](uint32_t k) { ran[k] = -2; });  // still usable after
  CHECK(ran == std::vector<int>{-2, -2});
}
