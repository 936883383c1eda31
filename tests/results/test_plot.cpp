#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "src/core/error.hpp"
#include "src/results/plot.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;
using nlohmann::json;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = 0; (p = hay.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

/// Curve names of one op in the synthetic sweep.
std::vector<std::string> synth_curves(const std::string& op) {
  std::vector<std::string> v;
  for (const auto& k : synth::kernels())
    if (k.op == op) v.push_back(k.kernel);
  return v;
}

/// Runs gnuplot on a script with a dumb terminal; returns stderr ("" when clean).
std::string gnuplot_check(const std::string& dir, const std::string& gp) {
  std::string err = dir + "/.gnuplot-stderr";
  int rc = run_sh("cd " + dir + " && gnuplot -e 'fmt=\"svg\"; out=\"/dev/null\"' " + gp + " 2>" + err);
  std::string text = slurp(err);
  std::filesystem::remove(err);
  return rc == 0 ? text : "exit " + std::to_string(rc) + ": " + text;
}

}  // namespace

TEST_CASE("write_plots: a bandwidth figure per op - presets and segments - every curve in .dat and .gp") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  auto files = write_plots({synth::run()}, d.path, o);
  std::vector<std::string> names;
  for (auto& f : files) names.push_back(std::filesystem::path(f).filename());
  CHECK(names == std::vector<std::string>{"copy-warm.dat", "copy-warm.gp", "clear-warm.dat", "clear-warm.gp",
                                          "presets-clear.dat", "presets-clear.gp", "presets-copy.dat",
                                          "presets-copy.gp", "segments.dat", "segments.gp"});
  for (const std::string op : {"copy", "clear"}) {
    std::string dat = slurp(d / (op + "-warm.dat")), gp = slurp(d / (op + "-warm.gp"));
    auto curves = synth_curves(op);
    CHECK(count(dat, "# index ") == curves.size());
    CHECK(count(gp, "ps 0.6 title \"") == curves.size());
    for (const auto& c : curves) {
      CHECK_MESSAGE(dat.find(": " + c) != std::string::npos, c);
      CHECK_MESSAGE(gp.find("title \"" + c + "\"") != std::string::npos, c);
    }
    // blocks separated by two blank lines, 5 numeric columns per data row
    CHECK(count(dat, "\n\n\n# index ") == curves.size() - 1);
    std::regex row(R"(^\S+ \S+ \S+ \S+ \S+$)");
    size_t rows = 0;
    std::istringstream in(dat);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      CHECK_MESSAGE(std::regex_match(line, row), line);
      ++rows;
    }
    CHECK(rows == curves.size() * synth::sizes().size());
    CHECK(gp.find("set logscale x 2") != std::string::npos);
    CHECK(gp.find("\"4 KiB\" 4096") != std::string::npos);
    CHECK(gp.find("\"1 MiB\" 1.04858e+06") != std::string::npos);
    for (const char* cache : {"L1d 48 KiB", "L2 1 MiB", "LLC 32 MiB"}) CHECK(gp.find(cache) != std::string::npos);
    CHECK(gp.find("GB/s") != std::string::npos);
  }
  // Bars keyed by preset id, clears and copies apart, the baselines of the same run beside them.
  std::string copies = slurp(d / "presets-copy.dat"), clears = slurp(d / "presets-clear.dat");
  for (const char* p : {"faster_copy  (fastc/faster_copy)", "v26_copy_page  (linux/v26_copy_page)",
                        "no_prefetch  (amd/no_prefetch)", "memcpy  (baseline)", "rep_movsb  (baseline)"})
    CHECK_MESSAGE(copies.find(std::string("\"") + p + "\" ") != std::string::npos, p);
  CHECK(clears.find("\"xmm_clear  (fastc/xmm_clear)\" 1150") != std::string::npos);  // TSC ticks per page
  CHECK(clears.find("\"memset  (baseline)\" ") != std::string::npos);
  CHECK(copies.find("xmm_clear") == std::string::npos);
  std::string seg = slurp(d / "segments.dat");
  CHECK(seg.find("\"fs with LDT selector\" 26") != std::string::npos);
  CHECK(seg.find("arch_prctl") == std::string::npos);  // skipped case
}

TEST_CASE("write_plots: --filter and --best keep the named curves and every baseline") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  o.filter = "/nt/";
  write_plots({synth::run()}, d / "f", o);
  std::string gp = slurp(d / "f/copy-warm.gp");
  CHECK(count(gp, "ps 0.6 title \"") == 4);  // 2 NT loops + memcpy + rep_movsb
  CHECK(gp.find("copy/sse/unroll:64/scratch:4/t/fwd\"") == std::string::npos);
  CHECK(gp.find("\"memcpy\"") != std::string::npos);

  o.filter.clear();
  o.best = 2;
  write_plots({synth::run()}, d / "b", o);
  gp = slurp(d / "b/copy-warm.gp");
  CHECK(count(gp, "ps 0.6 title \"") == 4);
  // highest geometric-mean GB/s among the synthetic loops: avx temporal, then the prefetching sse loop
  CHECK(gp.find("copy/avx/unroll:128/scratch:4/t/fwd\"") != std::string::npos);
  CHECK(gp.find("copy/sse/unroll:64/scratch:4/pf:nta@256/t/fwd\"") != std::string::npos);

  o.best = 0;
  o.filter = "([";
  CHECK_THROWS_AS(write_plots({synth::run()}, d / "x", o), InputError);
}

TEST_CASE("write_plots: two machines share figures - existing files need force") {
  TmpDir d;
  synth::Options ob;
  ob.host = "beta";
  ob.cpu = "Synthetic CPU B";
  ob.time_scale = 1.3;
  PlotOptions o;
  o.render = false;
  write_plots({synth::run(), synth::run(ob)}, d.path, o);
  std::string gp = slurp(d / "copy-warm.gp");
  CHECK(count(gp, "ps 0.6 title \"") == 2 * synth_curves("copy").size());
  CHECK(gp.find("memcpy @ beta (Synthetic CPU B)") != std::string::npos);
  std::string presets = slurp(d / "presets-copy.dat");
  CHECK(presets.find("\"faster_copy  (fastc/faster_copy)\" 700 910") != std::string::npos);
  CHECK_THROWS_AS(write_plots({synth::run()}, d.path, o), InputError);
  o.force = true;
  CHECK_NOTHROW(write_plots({synth::run()}, d.path, o));
}

TEST_CASE("plot scripts are valid gnuplot and render PNG and SVG (when gnuplot is installed)") {
  if (find_gnuplot().empty()) {
    MESSAGE("skipped: gnuplot is not on PATH (Debian: gnuplot-nox)");
    return;
  }
  TmpDir d;
  synth::Options ob;
  ob.host = "beta";
  ob.time_scale = 1.3;
  auto files = write_plots({synth::run(), synth::run(ob)}, d.path, PlotOptions{});
  CHECK(files.size() == 20);
  for (const char* base : {"copy-warm", "clear-warm", "presets-clear", "presets-copy", "segments"}) {
    CHECK_MESSAGE(gnuplot_check(d.path, std::string(base) + ".gp") == "", base);
    std::string png = slurp(d / (std::string(base) + ".png"));
    REQUIRE(png.size() > 1000);
    CHECK(png.substr(1, 3) == "PNG");
    std::string svg = slurp(d / (std::string(base) + ".svg"));
    CHECK(svg.find("<svg") != std::string::npos);
  }
  CHECK(slurp(d / "copy-warm.svg").find("L2 1 MiB") != std::string::npos);
  // no temp files left behind
  for (auto& e : std::filesystem::directory_iterator(d.path))
    CHECK_MESSAGE(e.path().filename().string().find(".tmp") == std::string::npos, e.path());
}

TEST_CASE("kex plot: CLI writes the figures - bad results file exits 2 with one line") {
  TmpDir d;
  spit(d / "r.json", synth::results().dump());
  std::string k = KEX_BINARY;
  CHECK(run_sh(k + " plot " + d / "r.json" + " -o " + d / "p --no-render >/dev/null") == 0);
  CHECK(std::filesystem::exists(d / "p/copy-warm.gp"));
  CHECK(!std::filesystem::exists(d / "p/copy-warm.png"));
  spit(d / "bad.json", "not json");
  CHECK(run_sh(k + " plot " + d / "bad.json" + " -o " + d / "q 2>" + d / "err") == 2);
  CHECK(slurp(d / "err").rfind("kex: " + d / "bad.json" + ": not JSON", 0) == 0);
}

TEST_CASE("write_plots: a heatmap per kernel over two swept axes (size x distance), valid gnuplot") {
  kex::RunDoc doc = synth::run({});
  std::vector<kex::Result> grid;
  for (const auto& r : doc.results)
    if (r.ok() && r.point.kernel == "copy/avx/unroll:128/scratch:4/t/fwd")
      for (int64_t dist : {-64, 8, 4160}) {
        kex::Result x = r;
        x.point.at.size = r.point.at.size;
        x.point.at.layout.distance = dist;
        for (auto& rep : x.reps) rep.per_call.median *= dist == 4160 ? 2 : 1;  // 4 KiB aliasing halves GB/s
        grid.push_back(x);
      }
  doc.results = grid;
  TmpDir d;
  PlotOptions o;
  o.render = false;
  auto files = write_plots({doc}, d.path, o);
  REQUIRE(std::filesystem::exists(d / "heatmap-1.dat"));
  CHECK(!std::filesystem::exists(d / "heatmap-2.dat"));  // one kernel, one condition
  const std::string dat = slurp(d / "heatmap-1.dat"), gp = slurp(d / "heatmap-1.gp");
  // 21 sizes x 3 distances, every cell measured
  CHECK(count(dat, "\n") - count(dat, "# ") - 3 == 21 * 3);
  CHECK(dat.find(" NaN\n") == std::string::npos);
  CHECK(gp.find("with image") != std::string::npos);
  CHECK(gp.find("set xlabel \"size (bytes per operation)\"") != std::string::npos);
  CHECK(gp.find("set ylabel \"distance (dst - src, bytes; rel = mod 4096)\"") != std::string::npos);
  CHECK(gp.find("set cblabel \"GB/s") != std::string::npos);
  // distances in numeric order; a far one with its offset within the page
  CHECK(gp.find("(\"-64\" 0, \"8\" 1, \"4160 (rel 64)\" 2)") != std::string::npos);
  CHECK(gp.find("\"4 KiB\"") != std::string::npos);
  if (!find_gnuplot().empty()) CHECK(gnuplot_check(d.path, "heatmap-1.gp") == "");
}
