// The scaling table: aggregate GB/s by threads, the speedup over one thread and the
// spread between workers, from a fixed run of 1- and 2-thread points.
#include <doctest/doctest.h>

#include "src/model/filter.hpp"
#include "src/results/plot_scaling.hpp"
#include "src/results/scaling.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// `r` measured by `threads` workers: its sample time `ticks` (the last end), each worker's own
/// median ticks in `own`.
Result threaded(Result r, uint32_t threads, std::vector<double> own) {
  r.point.at.threads = threads;
  for (Repetition& rep : r.reps) {
    rep.threads.clear();
    for (size_t k = 0; k < own.size(); ++k) rep.threads.push_back({int(k), own[k], own[k]});
  }
  return r;
}

/// `r` measured in rounds 1, 2, ...: one repetition per round, of these ticks per operation.
Result in_rounds(Result r, const std::vector<double>& ticks) {
  r.reps.clear();
  for (size_t i = 0; i < ticks.size(); ++i) {
    r.reps.push_back(golden::rep(ticks[i], 8, {uint64_t(ticks[i] * 8)}, "round"));
    r.reps.back().round = i + 1;
  }
  return r;
}

RunDoc scaling_run() {
  RunDoc d;
  const Layout l;
  const char* avx = "copy/avx/unroll:128/scratch:4/t/fwd";
  // 2 GHz TSC: 4096 bytes in 100 ticks = 81.92 GB/s; two workers each 105 and 110 ticks, the
  // sample 110 ticks: 2 x 4096 bytes in 55 ns = 148.9 GB/s (1.82x), spread 110/105 = 1.05.
  d.results.push_back(golden::generated(avx, 4096, l, 100));
  d.results.push_back(threaded(golden::generated(avx, 4096, l, 110), 2, {105, 110}));
  // memcpy in 5 shared rounds: the 1-thread time over the 2-thread time per round is
  // 1.0, 0.96, 1.0, 0.8, 0.96 (median 0.96): speedup 2 x 0.96 = 1.92x, with an interval.
  d.results.push_back(in_rounds(golden::baseline("memcpy", 4096, l, 120), {120, 120, 120, 120, 120}));
  d.results.push_back(threaded(in_rounds(golden::baseline("memcpy", 4096, l, 125), {120, 125, 120, 150, 125}), 2, {125, 120}));
  // 64 MiB: bandwidth-bound; two workers gain nothing.
  d.results.push_back(golden::generated(avx, 1 << 26, l, 6e6));
  d.results.push_back(threaded(golden::generated(avx, 1 << 26, l, 12e6), 2, {11.5e6, 12e6}));
  // A clear at one thread count only: not in the table.
  d.results.push_back(golden::generated("clear/avx/unroll:128/scratch:4/t/fwd", 4096, l, 50));
  return d;
}

}  // namespace

TEST_CASE("scaling rows: aggregate GB/s counts every worker, speedup over one thread, worker spread" *
          doctest::test_suite("golden")) {
  const std::vector<ScalingRow> rows = scaling_rows(scaling_run());
  REQUIRE(rows.size() == 3);  // the clear ran at one thread count
  CHECK(rows[0].kernel == "copy/avx/unroll:128/scratch:4/t/fwd");
  CHECK(rows[0].size == 4096);
  REQUIRE(rows[0].cells.size() == 2);
  CHECK(rows[0].cells[0].gbps == doctest::Approx(81.92));
  CHECK(rows[0].cells[1].threads == 2);
  CHECK(rows[0].cells[1].gbps == doctest::Approx(2 * 4096 / 55.0));
  CHECK(rows[0].cells[1].per_thread == doctest::Approx(4096 / 55.0));
  CHECK(rows[0].cells[1].speedup == doctest::Approx(2 * 100 / 110.0));
  CHECK(rows[0].cells[1].spread == doctest::Approx(110 / 105.0));
  CHECK(rows[1].kernel == "memcpy");
  CHECK(rows[1].cells[1].speedup == doctest::Approx(2 * 0.96));
  CHECK(rows[1].cells[1].speedup_low < rows[1].cells[1].speedup);
  CHECK(rows[1].cells[1].speedup_high >= rows[1].cells[1].speedup);
  CHECK(rows[0].cells[1].speedup_low == rows[0].cells[1].speedup);  // no rounds: from the medians
  CHECK(rows[2].size == uint64_t(1) << 26);
  CHECK(rows[2].cells[1].speedup == doctest::Approx(1.0));
  CHECK(scaling_rows(golden::run()).empty());  // no point with threads > 1
  CHECK(scaling_table(golden::run()) == "");
  CHECK(golden::check("scaling.txt", scaling_table(scaling_run())) == "");
}

TEST_CASE("scaling figures: a panel per size, a curve per kernel, every kernel name quoted for gnuplot" *
          doctest::test_suite("golden")) {
  RunDoc run = scaling_run();
  run.context.host_name = "golden";
  run.context.machine.cpu_model = "Golden CPU";
  const NameFilter all = parse_name_filter("", "--filter");
  const std::vector<PlotFigure> figs = scaling_figures(run, all);
  REQUIRE(figs.size() == 1);  // copies only: the clear ran at one thread count
  CHECK(figs[0].base == "scaling-copy");
  CHECK(golden::check("scaling-copy.dat", figs[0].dat) == "");
  CHECK(golden::check("scaling-copy.gp", figs[0].gp) == "");
  // The filter keeps kernels (baselines stay); a host or kernel name from a file never
  // reaches the script as code.
  const std::vector<PlotFigure> only = scaling_figures(run, parse_name_filter("^nothing$", "--filter"));
  REQUIRE(only.size() == 1);
  CHECK(only[0].gp.find("copy/avx") == std::string::npos);
  CHECK(only[0].gp.find("\"memcpy\"") != std::string::npos);
  run.context.host_name = "h`touch /tmp/kex-pwned`$(id)";
  run.results[0].point.kernel = run.results[1].point.kernel = "copy/`reboot`\"@x";
  for (const PlotFigure& f : scaling_figures(run, all)) {
    CHECK(f.gp.find('`') == std::string::npos);
    CHECK(f.gp.find('$') == std::string::npos);
    CHECK(f.dat.find('`') == std::string::npos);
  }
}
