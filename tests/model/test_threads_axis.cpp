// The threads axis: a coordinate of every point, in its name, its config and its bandwidth.
#include <doctest/doctest.h>

#include <stdexcept>

#include "src/core/affinity.hpp"
#include "src/model/config.hpp"
#include "src/model/expand.hpp"
#include "src/model/axis.hpp"
#include "src/model/point.hpp"
#include "src/model/result.hpp"

using namespace kex;

TEST_CASE("threads is in a point's name after cold and before the harness, and parses back" * doctest::test_suite("model")) {
  Point p{"copy/avx/unroll:256/scratch:4/t/fwd", {}};
  p.at.size = 262144;
  p.at.cache = CacheMode::cold;
  p.at.threads = 2;
  CHECK(point_name(p) == "copy/avx/unroll:256/scratch:4/t/fwd/262144/cold/threads:2");
  CHECK(parse_point_name(point_name(p)) == p);
  p.at.threads = 1;
  CHECK(point_name(p) == "copy/avx/unroll:256/scratch:4/t/fwd/262144/cold");  // the default is left out
  CHECK(axis_value(p.at, Axis::threads) == "1");
  // One spelling only: threads:1 is the name without the token; out of order or out of range is refused.
  CHECK_THROWS_WITH_AS(parse_point_name("memcpy/4096/threads:1"), doctest::Contains("out of range (allowed 2..1024)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_point_name("memcpy/4096/threads:1025"), doctest::Contains("out of range"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_point_name("memcpy/4096/threads:2/cold"), doctest::Contains("out of order"),
                       std::invalid_argument);
  CHECK(parse_point_name("memcpy/4096/threads:8/harness:fastc").at.threads == 8);
}

TEST_CASE("a config's threads axis: a number, a list, all = the affinity mask, grids overriding it" * doctest::test_suite("config")) {
  const Config c = parse_config(R"({"sizes": [4096], "threads": [1, 2],
    "kernels": [{"op": "copy", "regs": "sse"}, {"op": "clear", "regs": "sse", "threads": "all"}]})", "t.json");
  CHECK(c.axes.threads == std::vector<uint32_t>{1, 2});
  CHECK(c.grids[0].axes.threads == std::vector<uint32_t>{1, 2});
  CHECK(c.grids[1].axes.threads == std::vector<uint32_t>{uint32_t(startup_cpus().size())});
  CHECK(coordinate_product(c.grids[0].axes).size() == 2);
  CHECK(coordinate_product(c.grids[0].axes)[1].threads == 2);
  // Repeated values count once ("all" is 2 on a 2-CPU machine, as 2 is).
  const Config d = parse_config(R"({"sizes": [4096], "threads": [2, 2, 1], "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json");
  CHECK(d.axes.threads == std::vector<uint32_t>{2, 1});
}

TEST_CASE("bandwidth counts every worker's bytes: size x threads per operation" * doctest::test_suite("model")) {
  Result r;
  r.point = {"memcpy", {}};
  r.point.at.size = 1000;
  r.point.at.threads = 4;
  r.kind = KernelKind::baseline;
  r.tsc_hz = 1e9;  // one tick per ns
  Repetition rep;
  rep.calls_per_sample = 1;
  rep.sample_ticks = {100, 100, 100};
  rep.per_call = summarize({100, 100, 100});
  r.reps = {rep};
  CHECK(moved_bytes(r.point.at) == 4000);
  CHECK(median_gbps(r) == doctest::Approx(40.0));  // 4000 bytes in 100 ns
  const EntryFigures f = entry_figures(r);
  CHECK(f.gbps == doctest::Approx(40.0));
  CHECK(f.gbps_best == doctest::Approx(40.0));
  r.point.at.threads = 1;
  CHECK(median_gbps(r) == doctest::Approx(10.0));
}
