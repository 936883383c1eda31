// Asami's runtests tables and -graph files (seed 003) from typed Results.
#include <doctest/doctest.h>

#include "generators/presets/presets.hpp"
#include "src/core/error.hpp"
#include "src/results/runtests.hpp"
#include "src/results/seed_text.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/seed_golden.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

constexpr double kHz = 2e9;

/// A measured Result of `key` at `size` copying at `mib_s` MiB/s (2 ticks per ns).
Result runtests_point(const std::string& key, uint64_t size, double mib_s) {
  Result r;
  r.point.kernel = key;
  r.point.at.size = size;
  r.op = Op::copy;
  if (key == "memcpy") {
    r.kind = KernelKind::baseline;
    r.libc = LibcFacts{Function::memcpy};
  } else {
    r.kind = KernelKind::preset;
    r.preset = preset_facts(*find_preset(key), {}, true);
  }
  Repetition rep;
  rep.per_call.n = 11;
  rep.per_call.median = double(size) / (mib_s * (1 << 20)) * kHz;  // ticks per call
  rep.sample_ticks = {1};
  r.reps = {rep};
  r.tsc_hz = kHz;
  return r;
}

RunDoc experiment() {
  RunDoc doc;
  for (uint64_t size : {64, 32, 128}) {  // out of order: the tables sort by size
    doc.results.push_back(runtests_point("asami/unroll:96/scratch:2/every:32", size, 50 + size));
    doc.results.push_back(runtests_point("asami/unroll:96/scratch:2/every:0", size, 40 + size));
    doc.results.push_back(runtests_point("asami/fp_copy", size, 60 + size));
    doc.results.push_back(runtests_point("memcpy", size, 30 + size));
  }
  Result cold = runtests_point("asami/fp_copy", 256, 1);
  cold.point.at.cache = CacheMode::cold;  // not runtests' layout: left out
  doc.results.push_back(cold);
  Result skipped = runtests_point("asami/fp_copy", 512, 1);
  skipped.status = {StatusKind::skipped, "nope", 0, std::nullopt};
  skipped.reps.clear();
  doc.results.push_back(skipped);
  return doc;
}

}  // namespace

TEST_CASE("runtests: one size/bandwidth table per function, variants named apart" * doctest::test_suite("runtests")) {
  const RunDoc doc = experiment();
  const auto curves = runtests_curves(doc);
  REQUIRE(curves.size() == 4);
  CHECK(curves[0].name == "unrolled_96_32_2");
  CHECK(curves[1].name == "unrolled_96_0_2");
  CHECK(curves[2].name == "FP_copy");
  CHECK(curves[3].name == "memcpy");
  CHECK(curves[2].key == "asami/fp_copy");
  REQUIRE(curves[0].points.size() == 3);
  CHECK(curves[0].points[0].first == 32);
  CHECK(curves[0].points[0].second == doctest::Approx(82));
  CHECK(curves[0].points[2].second == doctest::Approx(178));
  const std::string exact = runtests_text(doc, SeedText::exact);
  CHECK(exact.rfind("unrolled_96_32_2\n    size    bandwidth\n      32        82.00\n      64       114.00\n"
                    "     128       178.00\n\nunrolled_96_0_2\n",
                    0) == 0);
  CHECK(exact.find('#') == std::string::npos);
  CHECK(exact.find("\nmemcpy\n    size    bandwidth\n      32        62.00\n") != std::string::npos);
  const std::string notes = runtests_text(doc);
  CHECK(notes.rfind("# Asami's runtests (seed 003): bandwidth is MB/s of 2^20 bytes", 0) == 0);
  CHECK(notes.find("\nFP_copy\t(asami/fp_copy)\n") != std::string::npos);
  // Rows right-aligned under their headers.
  for (const auto& l : golden::lines(exact))
    if (!l.empty() && l[0] == ' ' && l != "    size    bandwidth") CHECK(l.size() == 21);
  // memcpy alone is not Asami's experiment.
  RunDoc libc;
  libc.results.push_back(runtests_point("memcpy", 64, 10));
  CHECK(runtests_curves(libc).empty());
  CHECK(runtests_text(libc).empty());
}

TEST_CASE("runtests -graph: a data file per function and plot.gp with a curve each" * doctest::test_suite("runtests")) {
  TmpDir t;
  const std::string dir = t / "graph";
  const auto files = write_runtests_graph(experiment(), dir, false);
  REQUIRE(files.size() == 5);
  CHECK(files.back() == dir + "/plot.gp");
  CHECK(slurp(dir + "/unrolled_96_0_2.dat") ==
        "# unrolled_96_0_2 (asami/unroll:96/scratch:2/every:0): size (bytes), bandwidth (MB/s, 2^20 bytes/s)\n"
        "32 72.00\n64 104.00\n128 168.00\n");
  const std::string gp = slurp(dir + "/plot.gp");
  CHECK(gp.find("plot \"" + dir + "/unrolled_96_32_2.dat\" title \"unrolled_96_32_2\" with linespoints, \\\n") !=
        std::string::npos);
  CHECK(gp.find("\"" + dir + "/memcpy.dat\" title \"memcpy\" with linespoints\n") != std::string::npos);
  CHECK(gp.find("set logscale x 2\n") != std::string::npos);
  // No overwrite without force, and nothing written when refusing.
  CHECK_THROWS_AS(write_runtests_graph(experiment(), dir, false), InputError);
  CHECK(write_runtests_graph(experiment(), dir, true).size() == 5);
  RunDoc none;
  CHECK_THROWS_AS(write_runtests_graph(none, t / "empty", false), InputError);
}

TEST_CASE("golden: runtests' tables and -graph files of Asami's experiment" * doctest::test_suite("golden")) {
  const RunDoc doc = golden::asami_run();
  CHECK(golden::check("runtests.txt", runtests_text(doc, SeedText::exact)) == "");
  CHECK(golden::check("runtests-annotated.txt", runtests_text(doc)) == "");
  TmpDir t;
  const std::string dir = t / "graph";
  std::vector<std::string> names;
  for (const std::string& path : write_runtests_graph(doc, dir, false)) {
    // The files name the directory they were written to: DIR in the golden files.
    std::string text = slurp(path);
    for (size_t at; (at = text.find(t.path)) != std::string::npos;) text.replace(at, t.path.size(), "DIR");
    names.push_back(path.substr(dir.size() + 1));
    CHECK(golden::check("runtests-graph/" + names.back(), text) == "");
  }
  CHECK(names == std::vector<std::string>{"unrolled_96_32_2.dat", "unrolled_96_0_3.dat", "FP_copy.dat", "memcpy.dat",
                                          "plot.gp"});
}

namespace {

/// A mem_cp-harness Result of `key` at `size`: `copies` copies in `seconds` (gettimeofday).
Result mem_cp_result(const std::string& key, uint64_t size, uint64_t copies, double seconds, uint32_t pass = 1) {
  Result r;
  r.point.kernel = key;
  r.point.at.size = size;
  r.point.at.harness = Harness::mem_cp;
  r.point.at.pass = pass;
  r.op = Op::copy;
  r.kind = KernelKind::preset;
  r.preset = preset_facts(*find_preset(key), {}, true);
  SeedFigures f;
  f.pages = copies;
  f.divisor = copies;
  f.mb_per_s = double(copies * size) / double(1 << 20) / seconds;
  r.seed = f;
  Repetition rep;
  rep.calls_per_sample = static_cast<uint32_t>(copies);
  rep.sample_ticks = {uint64_t(seconds * kHz)};
  rep.seconds = seconds;
  r.reps = {rep};
  r.tsc_hz = kHz;
  return r;
}

}  // namespace

TEST_CASE("mem_cp harness: runtests' table of mem_cp's own MB/s, failures said in the annotated form" *
          doctest::test_suite("runtests")) {
  SeedRun run;
  run.header.harness = Harness::mem_cp;
  run.header.pinned_cpu = 1;
  run.header.tsc_mhz = 2000;
  run.header.cpu_model = "Test CPU";
  // 4 MiB of copies in 0.1 s and 0.05 s: 40 and 80 MB/s; 10000 bytes: 419 copies.
  run.results.push_back(mem_cp_result("asami/generic_bcopy", 32, 131072, 0.1));
  run.results.push_back(mem_cp_result("asami/generic_bcopy", 10000, 419, 0.05));
  run.results.push_back(mem_cp_result("asami/fp_copy", 32, 131072, 0.08));
  Result bad = mem_cp_result("asami/fp_copy", 10000, 419, 0.05);
  bad.status = {StatusKind::error, "mem_cp: byte 17, should be 3a is 00", 0, std::nullopt};
  bad.reps.clear();
  run.results.push_back(bad);
  run.results.push_back(mem_cp_result("asami/generic_bcopy", 32, 131072, 0.2, 2));  // listed twice: pass 2
  const std::string exact = seed_table_text(run, SeedText::exact);
  CHECK(exact ==
        "generic_bcopy\n    size    bandwidth\n      32        40.00\n   10000        79.92\n\n"
        "FP_copy\n    size    bandwidth\n      32        50.00\n\n"
        "generic_bcopy_2\n    size    bandwidth\n      32        20.00\n");
  const std::string notes = seed_table_text(run);
  CHECK(notes.rfind("# kex seed harness 'mem_cp' (Asami's mem_cp: 4 MiB of copies per size", 0) == 0);
  CHECK(notes.find("pinned to CPU 1, TSC 2000.000 MHz\n# Test CPU; bandwidth is MB/s of 2^20 bytes") != std::string::npos);
  CHECK(notes.find("# asami/fp_copy at 10000 bytes: ERROR: mem_cp: byte 17, should be 3a is 00\n") != std::string::npos);
  CHECK(notes.find("\ngeneric_bcopy\t(asami/generic_bcopy)\n    size    bandwidth\n") != std::string::npos);
  // --repeat: each pass's MB/s from its own gettimeofday time.
  SeedRun twice = run;
  Repetition slower = twice.results[0].reps[0];
  slower.seconds = 0.4;
  twice.results[0].reps.push_back(slower);
  const auto passes = seed_passes(twice);
  REQUIRE(passes.size() == 2);
  CHECK(passes[0].results[0].seed->mb_per_s == doctest::Approx(40));
  CHECK(passes[1].results[0].seed->mb_per_s == doctest::Approx(10));
  // In a run's results: not in runtests_text (the seed table prints them), but -graph draws
  // each kernel's first listing, named apart from a kex-harness curve of the same kernel.
  RunDoc doc;
  doc.results = run.results;
  doc.results.push_back(runtests_point("asami/generic_bcopy", 32, 70));
  CHECK(runtests_text(doc, SeedText::exact) == "generic_bcopy\n    size    bandwidth\n      32        70.00\n");
  TmpDir t;
  const std::string dir = t / "graph";
  const auto files = write_runtests_graph(doc, dir, false);
  REQUIRE(files.size() == 4);
  CHECK(slurp(dir + "/generic_bcopy_mem_cp.dat") ==
        "# generic_bcopy_mem_cp (asami/generic_bcopy/harness:mem_cp): size (bytes), bandwidth (MB/s, 2^20 bytes/s)\n"
        "32 40.00\n10000 79.92\n");
  CHECK(slurp(dir + "/FP_copy_mem_cp.dat").find("\n32 50.00\n") != std::string::npos);
  CHECK(slurp(dir + "/generic_bcopy.dat").find("\n32 70.00\n") != std::string::npos);
}
