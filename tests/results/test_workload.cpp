// `kex crossovers --workload`: the CSV read strictly, and the expected time per call
// of libc, each kernel and the per-size best kernel worked out by hand.
#include <doctest/doctest.h>

#include <tuple>

#include "src/core/error.hpp"
#include "src/results/workload.hpp"
#include "tests/support/paired_sweep.hpp"

using namespace kex;

TEST_CASE("parse_workload: header, comments, CRLF - every bad line named by its number") {
  CHECK(parse_workload("size,count\r\n# from bpftrace\n\n64,10\r\n4096,0\n0,3\n", "w.csv") ==
        std::vector<WorkloadBin>{{64, 10}, {4096, 0}, {0, 3}});
  CHECK(parse_workload("64,1", "w.csv") == std::vector<WorkloadBin>{{64, 1}});
  struct Bad { std::string text, error; };
  const Bad bad[] = {
      {"size,count\n64\n", "w.csv:2: '64': expected 'size,count' (two integers)"},
      {"64,1,2\n", "w.csv:1: '64,1,2': expected 'size,count' (two integers)"},
      // A NUL or another control byte is escaped, not the end of the message; a long line is cut.
      {std::string("64,1\n1\0\x1b 2\n", 11), "w.csv:2: '1\\x00\\x1b 2': expected 'size,count' (two integers)"},
      {std::string(100, '7') + "\n", "w.csv:1: '" + std::string(57, '7') + "...': expected 'size,count'"},
      {"64,1\nsize,count\n", "w.csv:2: size 'size':"},
      {"64,-1\n", "w.csv:1: count '-1':"},
      {"64, 1\n", "w.csv:1: count ' 1':"},
      {"1e3,1\n", "w.csv:1: size '1e3':"},
      {"64,1\n128,2\n64,3\n", "w.csv:3: size 64 given again (first on line 1)"},
      {"64,18446744073709551615\n128,1\n", "w.csv:2: the counts add up to more than 2^64-1"},
      {"# nothing\n", "w.csv: no calls"},
      {"64,0\n", "w.csv: no calls"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    try {
      parse_workload(b.text, "w.csv");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind(b.error, 0) == 0);
    }
  }
  CHECK_THROWS_WITH_AS(load_workload("/nonexistent/w.csv"),
                       "--workload: /nonexistent/w.csv: cannot read workload file (No such file or directory)", InputError);
}

TEST_CASE("load_workload: a device or a directory is refused in one line, before any byte is read") {
  // /dev/zero was read until memory ran out (std::bad_alloc): a workload is a regular file.
  CHECK_THROWS_WITH_AS(load_workload("/dev/zero"), "--workload: /dev/zero: not a regular file (a workload file is needed)",
                       InputError);
  CHECK_THROWS_WITH_AS(load_workload("/tmp"), "--workload: /tmp: not a regular file (a workload file is needed)", InputError);
}

namespace {

/// One measured point of `kernel` at `size` and `gbps` (a single repetition, 1 tick = 1 ns).
Result workload_point(const std::string& kernel, uint64_t size, double gbps) {
  Result r = paired_sweep::member(kernel, size);
  Repetition rep;
  rep.per_call.n = 8;
  rep.per_call.median = rep.per_call.ci_low = rep.per_call.ci_high = double(size) / gbps;
  rep.calls_per_sample = 1;
  r.reps.push_back(rep);
  return r;
}

const std::string kB = "copy/avx/unroll:128/scratch:4/t/fwd", kC = "copy/sse/unroll:64/scratch:4/t/fwd",
                  kD = "copy/avx/unroll:128/scratch:4/nt/fwd";

}  // namespace

TEST_CASE("rank_workload: expected ns per call, interpolated in log2(size) - calls outside the sizes left out") {
  RunDoc d;
  for (auto [k, size, g] : std::vector<std::tuple<std::string, uint64_t, double>>{
           {"memcpy", 1024, 10}, {"memcpy", 4096, 20}, {kB, 1024, 15}, {kB, 4096, 15}, {kD, 1024, 5},
           {kD, 4096, 30}, {kC, 1024, 50}})
    d.results.push_back(workload_point(k, size, g));
  Result cold = workload_point(kB, 4096, 1000);  // another condition: not used
  cold.point.at.cache = CacheMode::cold;
  d.results.push_back(cold);
  const std::vector<WorkloadBin> bins{{1024, 3}, {2048, 1}, {4096, 1}, {100000, 2}, {16, 1}};
  const WorkloadReport w = rank_workload(d, bins);
  CHECK(w.cache == "warm");
  CHECK(w.calls == 8);
  CHECK(w.below == 1);
  CHECK(w.above == 2);
  CHECK((w.lo == 1024 && w.hi == 4096));
  // memcpy: 3 x 1024/10 + 2048/15 (15 GB/s halfway in log2 size) + 4096/20 = 648.53 ns over 5 calls.
  // kB: 3 x 1024/15 + 2048/15 + 4096/15 = 614.4 / 5. kD: 3 x 1024/5 + 2048/17.5 + 4096/30 = 867.97 / 5.
  // The dispatch: the best kernel but libc at each measured size: kC at 1024 (50; measured there only,
  // so not ranked itself), kD at 4096 (30), 40 halfway at 2048: 249.17 / 5.
  REQUIRE(w.ranked.size() == 4);
  CHECK(w.ranked[0].dispatch);
  CHECK(w.ranked[0].ns_per_call == doctest::Approx((3 * 1024 / 50.0 + 2048 / 40.0 + 4096 / 30.0) / 5));
  CHECK(w.ranked[1].name == kB);
  CHECK(w.ranked[1].ns_per_call == doctest::Approx(614.4 / 5));
  CHECK(w.ranked[2].libc);
  CHECK(w.ranked[2].ns_per_call == doctest::Approx((3 * 102.4 + 2048 / 15.0 + 204.8) / 5));
  CHECK(w.ranked[3].name == kD);
  CHECK(w.ranked[3].ns_per_call == doctest::Approx((3 * 1024 / 5.0 + 2048 / 17.5 + 4096 / 30.0) / 5));
  CHECK(w.incomplete == std::vector<std::string>{kC});
  const std::string text = format_workload(w, 2);
  CHECK(text ==
        "workload (copy, cache warm): 8 calls, 5 at measured sizes [1 KiB, 4 KiB], GB/s interpolated in log2(size) "
        "between them\n"
        "  left out: 1 calls below 1 KiB and 2 above 4 KiB (outside the measured sizes; measure them to rank these)\n"
        "  rank  ns/call   vs libc  kernel\n"
        "     1      49.8    0.384  per-size best kernel (dispatch)\n"
        "     2     122.9    0.947  copy/avx/unroll:128/scratch:4/t/fwd\n"
        "     3     129.7    1.000  memcpy\n"
        "  (4 ranked; the first 2 shown, and libc and the dispatch)\n"
        "  not ranked: 1 kernels not measured at sizes spanning these calls\n");
}
