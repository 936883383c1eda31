// Asami's runtests tables and -graph files (seed 003) from typed Results.
#include <doctest/doctest.h>

#include "generators/presets/presets.hpp"
#include "src/core/error.hpp"
#include "src/results/runtests.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/seed_golden.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

constexpr double kHz = 2e9;

/// A measured Result of `key` at `size` copying at `mib_s` MiB/s (2 ticks per ns).
Result measured(const std::string& key, uint64_t size, double mib_s) {
  Result r;
  r.point.kernel = key;
  r.point.at.size = size;
  r.op = Op::copy;
  if (key == "memcpy") {
    r.kind = KernelKind::baseline;
    r.libc = LibcFacts{"memcpy"};
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
    doc.results.push_back(measured("asami/unroll:96/scratch:2/every:32", size, 50 + size));
    doc.results.push_back(measured("asami/unroll:96/scratch:2/every:0", size, 40 + size));
    doc.results.push_back(measured("asami/fp_copy", size, 60 + size));
    doc.results.push_back(measured("memcpy", size, 30 + size));
  }
  Result cold = measured("asami/fp_copy", 256, 1);
  cold.point.at.cache = CacheMode::cold;  // not runtests' layout: left out
  doc.results.push_back(cold);
  Result skipped = measured("asami/fp_copy", 512, 1);
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
  libc.results.push_back(measured("memcpy", 64, 10));
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
