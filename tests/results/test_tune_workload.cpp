// The report's "Workload memcpy" section of a tune of a stream (src/results/tune_workload.*):
// the dispatch by size range with each range's strategy and why, the stream's time per call
// against memcpy (ifunc's pick), glibc's fastest variant and rep movsb in the same rounds, and
// the fixed sizes beside them; from a fixed run whose members differ by known factors.
#include <doctest/doctest.h>

#include "src/model/spec.hpp"
#include "src/model/tune.hpp"
#include "src/results/markdown.hpp"
#include "src/results/report_html.hpp"
#include "src/results/tune_file.hpp"
#include "src/results/tune_workload.hpp"
#include "tests/support/golden_stream.hpp"

using namespace kex;

namespace {

const std::string kWorkloadTuned = "copy/avx512/unroll:64/scratch:1/t/fwd/overlap/small:mask/rep:64";

/// A glibc variant's result (kernel glibc/SYMBOL) at `size`.
Result workload_glibc(const std::string& symbol, uint64_t size) {
  Result r = golden::baseline("memcpy", size, {}, 1);
  r.point.kernel = "glibc/" + symbol;
  r.kind = KernelKind::implementation;
  r.libc.reset();
  r.impl = ImplFacts{};
  r.impl->symbol = symbol;
  return r;
}

/// Six competitors on Memcpy_Fleet in 12 paired rounds with no noise of their own (every
/// ratio exact), and at 8 B and 1 KiB without a stream: ns per call on the stream and there.
RunDoc workload_run() {
  RunDoc d = golden::stream_run();
  d.results.clear();
  d.context.ifunc = IfuncRecord{};
  d.context.ifunc->memcpy_impl = "__memcpy_avx512_unaligned_erms";
  struct Member {
    std::string kernel;
    double stream_ns, at8, at1k;
  };
  const Member members[] = {{kWorkloadTuned, 5.0, 3.0, 16.0},
                            {"memcpy", 10.0, 4.0, 20.0},
                            {"glibc/__memcpy_avx512_unaligned_erms", 10.5, 4.5, 21.0},
                            {"glibc/__memcpy_erms", 6.0, 9.0, 30.0},
                            {"rep_movsb", 6.25, 8.0, 29.0},
                            {"copy/sse/unroll:64/scratch:4/t/fwd/overlap", 12.0, 5.0, 25.0}};
  auto make = [](const std::string& k, uint64_t size) {
    if (k == "rep_movsb") return golden::rep_movsb(size, 1);
    if (k == "memcpy") return golden::baseline("memcpy", size, {}, 1);
    if (k.rfind("glibc/", 0) == 0) return workload_glibc(k.substr(6), size);
    return golden::generated(k, size, {}, 1);
  };
  const uint64_t bytes = d.context.streams[0].bytes, calls = d.context.streams[0].calls;
  for (const Member& m : members) {
    Result r = make(m.kernel, bytes);
    r.point.at = golden::stream_at(bytes);
    d.results.push_back(golden::in_rounds(r, m.stream_ns * 2 * double(calls), 0, 0));
    d.results.push_back(golden::in_rounds(make(m.kernel, 8), m.at8 * 2, 0, 0));
    d.results.push_back(golden::in_rounds(make(m.kernel, 1024), m.at1k * 2, 0, 0));
  }
  return d;
}

/// The tune's record of that run, as run_tune decides a stream's race: one verdict, one row.
TuneRecord workload_tune(const RunDoc& run) {
  TuneRecord t;
  t.stream = "Memcpy_Fleet";
  t.footprint = "65536";
  t.kept = {"memcpy", "rep_movsb"};
  t.margin = kTieResolution;
  t.drops.push_back({run.context.streams[0].bytes, "copy/gpr", kWorkloadTuned, "", 1, PairedRatio{}});
  for (const GroupAnswer& g : answer_groups(race_view(run, t), t.margin))
    if (!g.key.at.stream.empty()) t.verdicts.push_back(verdict_of(g, race_view(run, t)));
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  for (TuneVerdict& v : t.verdicts) v.dispatched = t.dispatch.kernel_for(v.size);
  return t;
}

}  // namespace

TEST_CASE("a kernel's strategy by size range follows its spec (small path, loop, rep:N), other code is one range") {
  const auto r = strategy_ranges(kWorkloadTuned, Op::copy, 0, kNoBound);
  REQUIRE(r.size() == 2);  // rep:64 starts where the small path (below 64 B) ends: no loop range
  CHECK((r[0].lo == 0 && r[0].hi == 63 && r[0].what == "one AVX-512BW masked move"));
  CHECK((r[1].lo == 64 && r[1].hi == kNoBound && r[1].what == "rep movsb"));
  const auto loop = strategy_ranges("copy/avx/unroll:256/overlap/small:table/rep:4096", Op::copy, 16, 8192);
  REQUIRE(loop.size() == 3);
  CHECK((loop[0].lo == 16 && loop[0].hi == 31 && loop[0].what == "two overlapping moves, the size class by a jump table"));
  CHECK((loop[1].lo == 32 && loop[1].hi == 4095 &&
         loop[1].what == "the avx loop, 256 B an iteration, overlapping moves at the edges"));
  CHECK((loop[2].lo == 4096 && loop[2].hi == 8192 && loop[2].what == "rep movsb"));
  const auto plain = strategy_ranges("copy/sse/unroll:64/nt", Op::copy, 0, 100);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].what == "the sse loop, 64 B an iteration, single bytes at the edges, non-temporal stores");
  CHECK(strategy_ranges("rep_stosb", Op::clear, 0, kNoBound)[0].what == "rep stosb");
  CHECK(strategy_ranges("memcpy", Op::copy, 0, kNoBound)[0].what == "the C library's memcpy");
  CHECK(strategy_ranges("glibc/__memcpy_erms", Op::copy, 0, kNoBound)[0].what == "glibc's __memcpy_erms");
  // A composed dispatch kernel: each row's member over the row's sizes.
  const auto d = strategy_ranges("dispatch:96:copy/avx/unroll:256/overlap/small:table,rep_movsb", Op::copy, 0, kNoBound);
  REQUIRE(d.size() == 3);
  CHECK((d[0].lo == 0 && d[0].hi == 31 && d[0].what == "two overlapping moves, the size class by a jump table"));
  CHECK((d[1].lo == 32 && d[1].hi == 96 && d[1].what == "the avx loop, 256 B an iteration, overlapping moves at the edges"));
  CHECK((d[2].lo == 97 && d[2].hi == kNoBound && d[2].what == "rep movsb"));
}

TEST_CASE("the workload section of a stream tune: dispatch, time per call against glibc's, fixed sizes") {
  const RunDoc run = workload_run();
  const TuneRecord tune = workload_tune(run);
  REQUIRE(tune.dispatch.entries.size() == 1);
  REQUIRE(tune.dispatch.entries[0].kernel == kWorkloadTuned);
  const std::string md = tune_workload_markdown(run, tune);
  CAPTURE(md);
  CHECK(md.find("A memcpy for stream Memcpy\\_Fleet (footprint 65536): `kex emit --tune` writes this dispatch.\n") == 0);
  CHECK(md.find("| every size | " + md_text(kWorkloadTuned) +
                " | 0-63 B: one AVX-512BW masked move; 64 B and up: rep movsb | fastest on the stream over 12 rounds, "
                "of 6 still racing; 1 candidate left the race earlier, slower |") != std::string::npos);
  CHECK(md.find("in the race's 12 paired rounds") != std::string::npos);
  // The tuned kernel at 5 ns a call times the rounds' median machine state, 1.1 (golden::in_rounds);
  // each ratio exact (no noise of their own). Names as md_text writes them (underscores escaped).
  CHECK(md.find("| the tuned kernel, " + md_text(kWorkloadTuned) + " | 5.50 | - |") != std::string::npos);
  CHECK(md.find("| memcpy (ifunc's pick, \\_\\_memcpy\\_avx512\\_unaligned\\_erms) | 11.00 | 0.50x [0.50-0.50] |") !=
        std::string::npos);
  CHECK(md.find("| ifunc's pick as glibc's variant, glibc/\\_\\_memcpy\\_avx512\\_unaligned\\_erms | 11.55 | 0.48x [0.48-0.48] |") !=
        std::string::npos);
  CHECK(md.find("| glibc's fastest variant, glibc/\\_\\_memcpy\\_erms | 6.60 | 0.83x [0.83-0.83] |") != std::string::npos);
  CHECK(md.find("| rep\\_movsb | 6.88 | 0.80x [0.80-0.80] |") != std::string::npos);
  CHECK(md.find("did not race") == std::string::npos);
  CHECK(md.find("| 8 B | 3.30 | 4.40 | 4.95 | 9.90 | 8.80 |") != std::string::npos);
  CHECK(md.find("| 1 KiB | 17.60 | 22.00 | 23.10 | 33.00 | 31.90 |") != std::string::npos);

  const std::string page = report_html({{"t.json", race_view(run, tune), tune}}, {});
  CHECK(page.find("<section id=\"workload\">\n<h2>Workload memcpy</h2>") != std::string::npos);
  CHECK(page.find("<li><a href=\"#workload\">Workload</a></li>") != std::string::npos);
  CHECK(page.find("<td>0-63 B: one AVX-512BW masked move; 64 B and up: rep movsb</td>") != std::string::npos);
}

TEST_CASE("the workload section: a tune by size has none, and a stream tune without glibc's variants says so") {
  const RunDoc run = workload_run();
  TuneRecord by_size = workload_tune(run);
  by_size.stream.clear();
  CHECK(tune_workload_markdown(run, by_size).empty());
  CHECK(report_html({{"t.json", race_view(run, by_size), by_size}}, {}).find("id=\"workload\"") == std::string::npos);
  RunDoc no_glibc = run;
  std::erase_if(no_glibc.results, [](const Result& r) { return r.point.kernel.rfind("glibc/", 0) == 0; });
  const std::string md = tune_workload_markdown(no_glibc, workload_tune(no_glibc));
  CHECK(md.find("glibc's variants did not race (kex tune --glibc races them).") != std::string::npos);
  CHECK(md.find("| 8 B | 3.30 | 4.40 | 8.80 |") != std::string::npos);
}
