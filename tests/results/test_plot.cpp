#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "src/core/error.hpp"
#include "src/results/plot.hpp"
#include "tests/support/seed_golden.hpp"
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

/// synth's run with `section` (a segment table) in its context, its figures written
/// unrendered into `dir`.
void plot_segment_section(const nlohmann::json& section, const std::string& dir) {
  kex::RunDoc doc = synth::run({});
  doc.context.segments = segment_section_from_json(section, "segments-section.json");
  PlotOptions o;
  o.render = false;
  write_plots({doc}, dir, o);
}

}  // namespace

TEST_CASE("write_plots --filter: presets kept by the filter, no segment figure (the table has no names)") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  o.filter = "copy";
  auto files = write_plots({synth::run()}, d.path, o);
  std::vector<std::string> names;
  for (auto& f : files) names.push_back(std::filesystem::path(f).filename());
  CHECK(std::find(names.begin(), names.end(), "segments.gp") == names.end());
  CHECK(std::find(names.begin(), names.end(), "presets-copy.gp") != names.end());
  const std::string bars = slurp(d / "presets-copy.dat");
  CHECK(bars.find("faster_copy") != std::string::npos);  // fastc/faster_copy matches "copy"
  CHECK(bars.find("no_prefetch") == std::string::npos);  // amd/no_prefetch does not
  CHECK(std::find(names.begin(), names.end(), "presets-clear.gp") == names.end());  // xmm_clear is filtered out
}

TEST_CASE("write_plots: a bandwidth figure per op - presets and segments - every curve in .dat and .gp") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  auto files = write_plots({synth::run()}, d.path, o);
  std::vector<std::string> names;
  for (auto& f : files) names.push_back(std::filesystem::path(f).filename());
  CHECK(names == std::vector<std::string>{"copy-warm.dat", "copy-warm.gp", "copy-warm-presets.dat",
                                          "copy-warm-presets.gp", "clear-warm.dat", "clear-warm.gp",
                                          "clear-warm-presets.dat", "clear-warm-presets.gp", "presets-clear.dat",
                                          "presets-clear.gp", "presets-copy.dat", "presets-copy.gp",
                                          "segments-modern.dat", "segments-modern.gp"});
  // The presets' curves: from one page up, a panel per family of origin, libc in each.
  const std::string pc = slurp(d / "copy-warm-presets.gp");
  CHECK(pc.find("set xrange [4096:") != std::string::npos);
  CHECK(pc.find("set title \"fastc presets\"") != std::string::npos);
  CHECK(pc.find("set title \"other\"") == std::string::npos);
  CHECK(count(pc, "title \"memcpy (libc)\"") == count(pc, "\nplot \\\n"));
  CHECK(pc.find("rep_movsb") == std::string::npos);
  for (const std::string op : {"copy", "clear"}) {
    std::string dat = slurp(d / (op + "-warm.dat")), gp = slurp(d / (op + "-warm.gp"));
    auto curves = synth_curves(op);
    // every curve plus the envelope, each one block
    CHECK(count(dat, "# index ") == curves.size() + 1);
    CHECK(dat.find("# index " + std::to_string(curves.size()) + ": best of all kernels per size (envelope)\n") !=
          std::string::npos);
    for (const auto& c : curves) {
      CHECK_MESSAGE(dat.find(": " + c) != std::string::npos, c);
      const std::string title = c == "memcpy" || c == "memset" ? "title \"" + c + " (libc)\"" : "title \"" + c + "\"";
      CHECK_MESSAGE(gp.find(title) != std::string::npos, c);
    }
    // blocks separated by two blank lines, 5 numeric columns per data row
    CHECK(count(dat, "\n\n\n# index ") == curves.size());
    std::regex row(R"(^\S+ \S+ \S+ \S+ \S+$)");
    size_t rows = 0;
    std::istringstream in(dat);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      CHECK_MESSAGE(std::regex_match(line, row), line);
      ++rows;
    }
    CHECK(rows == (curves.size() + 1) * synth::sizes().size());
    CHECK(gp.find("set logscale x 2") != std::string::npos);
    CHECK(gp.find("\"4K\" 4096") != std::string::npos);
    CHECK(gp.find("\"1M\" 1.04858e+06") != std::string::npos);
    CHECK(gp.find("set xlabel \"size (bytes " + std::string(op == "copy" ? "copied" : "cleared") + " per call, log2)\"") != std::string::npos);
    CHECK(gp.find("set ylabel \"GB/s (1e9 bytes") != std::string::npos);
  }
  // Bars keyed by preset id, clears and copies apart, the baselines of the same run beside them.
  std::string copies = slurp(d / "presets-copy.dat"), clears = slurp(d / "presets-clear.dat");
  for (const char* p : {"faster_copy  (fastc/faster_copy)", "v26_copy_page  (linux/v26_copy_page)",
                        "no_prefetch  (amd/no_prefetch)", "memcpy  (baseline)", "rep_movsb  (baseline)"})
    CHECK_MESSAGE(copies.find(std::string("\"") + p + "\" ") != std::string::npos, p);
  CHECK(clears.find("\"xmm_clear  (fastc/xmm_clear)\" 1150") != std::string::npos);  // TSC ticks per page
  CHECK(clears.find("\"memset  (baseline)\" ") != std::string::npos);
  CHECK(copies.find("xmm_clear") == std::string::npos);
  CHECK(slurp(d / "presets-copy.gp").find("libc baselines from the same run") != std::string::npos);
  // the row names fit in the left margin: the longest ("v26_copy_page  (linux/v26_copy_page)", 36) + 2
  CHECK(slurp(d / "presets-copy.gp").find("set lmargin 38 ") != std::string::npos);
  std::string seg = slurp(d / "segments-modern.dat");  // synth's cases name no loop: the modern costs' bars
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
  CHECK(count(gp, "ps 0.6 title \"") == 3);  // 2 NT loops + rep_movsb
  CHECK(gp.find("copy/sse/unroll:64/scratch:4/t/fwd\"") == std::string::npos);
  CHECK(gp.find("\"memcpy (libc)\"") != std::string::npos);

  o.filter.clear();
  o.best = 2;
  write_plots({synth::run()}, d / "b", o);
  gp = slurp(d / "b/copy-warm.gp");
  CHECK(count(gp, "ps 0.6 title \"") == 3);  // the two best and rep_movsb
  // highest geometric-mean GB/s among the synthetic loops: avx temporal, then the prefetching sse loop
  CHECK(gp.find("copy/avx/unroll:128/scratch:4/t/fwd\"") != std::string::npos);
  CHECK(gp.find("copy/sse/unroll:64/scratch:4/pf:nta@256/t/fwd\"") != std::string::npos);

  o.best = 0;
  o.filter = "-/nt/";  // the other curves: the temporal loops, every baseline still
  write_plots({synth::run()}, d / "n", o);
  gp = slurp(d / "n/copy-warm.gp");
  CHECK(gp.find("/nt/") == std::string::npos);
  CHECK(gp.find("copy/sse/unroll:64/scratch:4/t/fwd\"") != std::string::npos);
  CHECK(gp.find("\"memcpy (libc)\"") != std::string::npos);

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
  // generated and rep-string curves once each; memcpy of both runs in each of the 3 panels
  CHECK(count(gp, "ps 0.6 title \"") == 2 * (synth_curves("copy").size() - 1));
  CHECK(count(gp, "title \"memcpy @ beta (Synthetic CPU B) (libc)\"") == 3);
  std::string presets = slurp(d / "presets-copy.dat");
  CHECK(presets.find("\"faster_copy  (fastc/faster_copy)\" 700 910") != std::string::npos);
  CHECK_THROWS_AS(write_plots({synth::run()}, d.path, o), InputError);
  o.force = true;
  CHECK_NOTHROW(write_plots({synth::run()}, d.path, o));
  // The filter sees kernel and condition, not the run's label: '/fwd$' keeps the same
  // curves of both runs as of one, and a host name selects nothing.
  o.filter = "/fwd$";
  write_plots({synth::run()}, d / "one", o);
  write_plots({synth::run(), synth::run(ob)}, d / "two", o);
  const size_t one = count(slurp(d / "one/copy-warm.gp"), "ps 0.6 title \"");
  CHECK(one > 0);
  CHECK(count(slurp(d / "two/copy-warm.gp"), "ps 0.6 title \"") == 2 * one);
  o.filter = "beta";  // no curve, no preset bar, no segment figure: nothing to plot
  CHECK_THROWS_WITH_AS(write_plots({synth::run(), synth::run(ob)}, d / "host", o),
                       doctest::Contains("nothing to plot: no measured entries match --filter beta"), InputError);
  CHECK_FALSE(std::filesystem::exists(d / "host/copy-warm.gp"));
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
  CHECK(files.size() == 28);
  for (const char* base : {"copy-warm", "clear-warm", "copy-warm-presets", "presets-clear", "presets-copy", "segments-modern"}) {
    CHECK_MESSAGE(gnuplot_check(d.path, std::string(base) + ".gp") == "", base);
    std::string png = slurp(d / (std::string(base) + ".png"));
    REQUIRE(png.size() > 1000);
    CHECK(png.substr(1, 3) == "PNG");
    std::string svg = slurp(d / (std::string(base) + ".svg"));
    CHECK(svg.find("<svg") != std::string::npos);
  }
  CHECK(slurp(d / "copy-warm.svg").find("L2 (src+dst = 1 MiB)") != std::string::npos);
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
  CHECK(slurp(d / "err") == "kex: " + d / "bad.json" + ": not JSON: syntax error at byte 2: a results file from `kex run` is needed\n");
  spit(d / "run.journal", "{\"kex_journal\": 2, \"header\": {}}\n{\"rep\": {}}\n");
  CHECK(run_sh(k + " plot " + d / "run.journal" + " -o " + d / "q 2>" + d / "err") == 2);
  CHECK(slurp(d / "err") == "kex: " + d / "run.journal" + ": a kex journal, not a results file: `kex run --resume " +
                                d / "run.journal" + "` finishes the run and writes its results file\n");
  // What kex never writes and nlohmann/json alone would read as another file: a key twice
  // (the first value lost), text after a NUL byte (ignored).
  const std::string good = synth::results().dump();
  spit(d / "twice.json", "{\"context\": {}, " + good.substr(1));
  CHECK(run_sh(k + " plot " + d / "twice.json" + " -o " + d / "q 2>" + d / "err") == 2);
  CHECK(slurp(d / "err") == "kex: " + d / "twice.json" + ": key \"context\" appears twice in one object (JSON keeps only the last)\n");
  spit(d / "nul.json", good + std::string(1, '\0') + "{}");
  CHECK(run_sh(k + " plot " + d / "nul.json" + " -o " + d / "q 2>" + d / "err") == 2);
  CHECK(slurp(d / "err") == "kex: " + d / "nul.json" + ": a NUL byte at byte " + std::to_string(good.size()) + ": not JSON\n");
  CHECK(!std::filesystem::exists(d / "q"));
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
  // Named by the kernel (its canonical name) and the two axes; one kernel, one condition.
  const std::string base = "heatmap-copy-avx-unroll-128-scratch-4-t-fwd-by-size-and-distance";
  REQUIRE(std::filesystem::exists(d / (base + ".dat")));
  CHECK(std::count_if(files.begin(), files.end(), [](const std::string& f) { return f.find("heatmap-") != std::string::npos; }) == 2);
  const std::string dat = slurp(d / (base + ".dat")), gp = slurp(d / (base + ".gp"));
  // 21 sizes x 3 distances, every cell measured
  CHECK(count(dat, "\n") - count(dat, "# ") - 3 == 21 * 3);
  CHECK(dat.find(" NaN \"-\"") == std::string::npos);
  // Each cell's value printed in it (a label column kex formats), white on dark cells.
  CHECK(dat.find("\n0 0 ") != std::string::npos);
  CHECK(gp.find("using 1:2:4:(($3 < ") != std::string::npos);
  CHECK(gp.find("with labels font \",9\" textcolor rgb variable notitle") != std::string::npos);
  CHECK(gp.find("with image") != std::string::npos);
  CHECK(gp.find("set xlabel \"size (bytes per operation)\"") != std::string::npos);
  CHECK(gp.find("set ylabel \"distance (dst - src, bytes; rel = mod 4096)\"") != std::string::npos);
  CHECK(gp.find("set cblabel \"GB/s") != std::string::npos);
  // distances in numeric order; a far one with its offset within the page
  CHECK(gp.find("(\"-64\" 0, \"8\" 1, \"4160 (rel 64)\" 2)") != std::string::npos);
  CHECK(gp.find("\"4 KiB\"") != std::string::npos);
  if (!find_gnuplot().empty()) CHECK(gnuplot_check(d.path, base + ".gp") == "");
}

TEST_CASE("write_plots: the segment table's loops as one heatmap (selector x register and entry selector), ns in the cells") {
  TmpDir d;
  plot_segment_section(nlohmann::json::parse(golden::read("segments-section.json")), d.path);
  const std::string dat = slurp(d / "segments.dat"), gp = slurp(d / "segments.gp");
  // 12 rows (2006 and mixed loops, 6 selectors each) x 11 columns (<none>, fs and gs with 5 entry selectors).
  CHECK(count(dat, "\n") - count(dat, "# ") - 12 == 12 * 11);
  CHECK(gp.find("set ytics (\"2006: data 0x2b\" 0, \"2006: ldt 0x0f\" 1,") != std::string::npos);
  CHECK(gp.find("set xtics (\"<none>\" 0, \"fs, entry null\" 1, \"gs, entry null\" 2, \"fs, entry data\" 3,") !=
        std::string::npos);
  CHECK(gp.find("set cblabel \"ns per iteration\"") != std::string::npos);
  CHECK(dat.find(" NaN \"-\"\n") != std::string::npos);  // a skipped case: a dash, no colour
  // Readable: one cell per case, well within a screen.
  CHECK(gp.find("size 1077,576 ") != std::string::npos);
  // The modern costs stay bars, one per case.
  const std::string modern = slurp(d / "segments-modern.dat");
  CHECK(modern.find("\"fs load latency (pointer chase), base 0\" ") != std::string::npos);
  CHECK(modern.find("2006") == std::string::npos);
  if (!find_gnuplot().empty()) CHECK(gnuplot_check(d.path, "segments.gp") == "");
}

TEST_CASE("write_plots: a loop whose file leaves out its register or selector kind has no heatmap cell and no bar") {
  auto section = nlohmann::json::parse(golden::read("segments-section.json"));
  section["cases"][1].erase("segment");        // fs, data selector, entry null: 60 ns
  section["cases"][3].erase("selector_kind");  // fs, data selector, entry data
  TmpDir d;
  plot_segment_section(section, d.path);
  const std::string dat = slurp(d / "segments.dat"), gp = slurp(d / "segments.gp");
  CHECK(gp.find("\", entry") == std::string::npos);  // no column of an empty register name
  CHECK(gp.find("\"2006: \"") == std::string::npos);  // no row of an empty selector kind
  CHECK(gp.find("set ytics (\"2006: data 0x2b\" 0,") != std::string::npos);
  CHECK(count(dat, "\n") - count(dat, "# ") - 12 == 12 * 11);  // the same rows and columns: the cells stay
  CHECK(slurp(d / "segments-modern.dat").find("with data selector") == std::string::npos);
}

TEST_CASE("write_plots: small multiples - a panel per register class - envelope and libc baseline in each") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  write_plots({synth::run()}, d.path, o);
  for (const std::string op : {"copy", "clear"}) {
    const std::string gp = slurp(d / (op + "-warm.gp"));
    const std::string libc = op == "copy" ? "memcpy" : "memset";
    // panels avx, sse, string, in name order: one per row, as two with keys this long would be
    // wider than kMaxTwoPanelWidth (the report would shrink their text)
    CHECK(gp.find("set multiplot layout 3,1 title") != std::string::npos);
    CHECK(count(gp, "\nplot \\\n") == 3);
    const size_t avx = gp.find("set title \"avx\""), sse = gp.find("set title \"sse\""),
                 str = gp.find("set title \"string (rep movs/stos)\"");
    REQUIRE(avx != std::string::npos);
    REQUIRE(sse != std::string::npos);
    REQUIRE(str != std::string::npos);
    CHECK(avx < sse);
    CHECK(sse < str);
    CHECK(count(gp, "title \"best of all kernels per size (envelope)\"") == 3);
    CHECK(count(gp, "title \"" + libc + " (libc)\"") == 3);
    CHECK(count(gp, "lc rgb \"#000000\" lw 2.5 dt 2 pt 6") == 3);  // the libc style, fixed
    // each panel holds only its class
    const std::string sse_panel = gp.substr(sse, str - sse);
    CHECK(sse_panel.find("/avx/") == std::string::npos);
    CHECK(sse_panel.find(op + "/sse/") != std::string::npos);
    // the envelope is the highest median at each size over every kernel (synthetic: rep_movsb/rep_stosb wins in L1)
    const std::string dat = slurp(d / (op + "-warm.dat"));
    const auto ks = synth::kernels();
    double best = 0;
    for (const auto& k : ks)
      if (k.op == op) best = std::max(best, synth::model_gbps(k, 4096));
    char row[64];
    std::snprintf(row, sizeof row, "\n4096 %.6g ", best);
    const size_t env = dat.find("(envelope)");
    REQUIRE(env != std::string::npos);
    CHECK(dat.find(row, env) != std::string::npos);
  }
}

TEST_CASE("write_plots: cache markers where the working set crosses a cache - copy at cache/2 - clear at cache") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  write_plots({synth::run()}, d.path, o);
  const std::string copy = slurp(d / "copy-warm.gp"), clear = slurp(d / "clear-warm.gp");
  // synthetic caches: L1d 48 KiB, L2 1 MiB, LLC 32 MiB
  CHECK(copy.find("set arrow from 24576, graph 0 to 24576, graph 1") != std::string::npos);
  CHECK(copy.find("set arrow from 524288, graph 0") != std::string::npos);
  CHECK(copy.find("set arrow from 1.67772e+07, graph 0") != std::string::npos);
  CHECK(copy.find("set label \"L2 (src+dst = 1 MiB)\" at 524288,") != std::string::npos);
  CHECK(copy.find("set label \"L1d (src+dst = 48 KiB)\" at 24576,") != std::string::npos);
  CHECK(clear.find("set arrow from 49152, graph 0 to 49152, graph 1") != std::string::npos);
  CHECK(clear.find("set arrow from 1.04858e+06, graph 0") != std::string::npos);
  CHECK(clear.find("set label \"LLC (32 MiB)\" at 3.35544e+07,") != std::string::npos);
  CHECK(clear.find("src+dst") == std::string::npos);
  CHECK(count(copy, "set arrow from") == 3);
}

TEST_CASE("write_plots: --ratio writes B over A per kernel and size - y = 1 line - labels name the runs") {
  TmpDir d;
  synth::Options ob;
  ob.host = "beta";
  ob.time_scale = 0.8;  // B takes 0.8 x the time: 1.25 x the throughput at every point
  PlotOptions o;
  o.render = false;
  o.ratio = true;
  o.labels = {"A", "B"};
  write_plots({synth::run(), synth::run(ob)}, d.path, o);
  const std::string dat = slurp(d / "ratio-copy-warm.dat"), gp = slurp(d / "ratio-copy-warm.gp");
  CHECK(count(dat, "# index ") == synth_curves("copy").size());  // no envelope
  size_t rows = 0;
  std::istringstream in(dat);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++rows;
    CHECK_MESSAGE(line.find(" 1.25 ") != std::string::npos, line);
  }
  CHECK(rows == synth_curves("copy").size() * synth::sizes().size());
  CHECK(gp.find("speedup = B throughput / A throughput, > 1: B faster; A = A, B = B") != std::string::npos);
  CHECK(gp.find("set arrow from graph 0, first 1 to graph 1, first 1 nohead") != std::string::npos);
  // Speedups 1.25 everywhere: the y axis spans 1 (the reference) to 1.25, padded by a tenth.
  CHECK_MESSAGE(gp.find("set yrange [0.975:1.275]") != std::string::npos, gp.substr(gp.find("set yrange"), 40));
  CHECK(gp.find("title \"copy/avx/unroll:128/scratch:4/t/fwd\"") != std::string::npos);
  // the plain figures carry the labels
  CHECK(slurp(d / "copy-warm.gp").find("title \"copy/avx/unroll:128/scratch:4/t/fwd @ B\"") != std::string::npos);
  if (!find_gnuplot().empty()) CHECK(gnuplot_check(d.path, "ratio-copy-warm.gp") == "");
  o.labels = {"A"};
  CHECK_THROWS_AS(write_plots({synth::run(), synth::run(ob)}, d / "x", o), InputError);
  o.labels.clear();
  CHECK_THROWS_AS(write_plots({synth::run()}, d / "y", o), InputError);
}

TEST_CASE("kex plot: --label per file or file names - a wrong count or --ratio with one file exits 2") {
  TmpDir d;
  spit(d / "a.json", synth::results().dump());
  spit(d / "b.json", synth::results().dump());
  std::string k = KEX_BINARY;
  CHECK(run_sh(k + " plot " + d / "a.json " + d / "b.json -o " + d / "p --no-render --ratio >/dev/null") == 0);
  CHECK(slurp(d / "p/ratio-copy-warm.gp").find("A = a, B = b") != std::string::npos);
  CHECK(run_sh(k + " plot " + d / "a.json " + d / "b.json -o " + d / "q --no-render --label old --label new >/dev/null") == 0);
  CHECK(slurp(d / "q/copy-warm.gp").find("@ new\"") != std::string::npos);
  CHECK(run_sh(k + " plot " + d / "a.json " + d / "b.json -o " + d / "r --no-render --label x,y,z 2>" + d / "err") == 2);
  CHECK(slurp(d / "err") == "kex: --label: 3 labels for 2 results files: give one per file\n");
  CHECK(run_sh(k + " plot " + d / "a.json -o " + d / "s --no-render --ratio 2>" + d / "err") == 2);
  CHECK(slurp(d / "err").rfind("kex: --ratio: needs two results files", 0) == 0);
}

TEST_CASE("write_plots: --per-panel N draws each panel's N fastest kernels and says how many are left out") {
  TmpDir d;
  PlotOptions o;
  o.render = false;
  o.per_panel = 2;
  write_plots({synth::run()}, d.path, o);
  // copy's sse panel has three kernels: the non-temporal one is the slowest by geometric mean, left out.
  const std::string gp = slurp(d / "copy-warm.gp"), dat = slurp(d / "copy-warm.dat");
  CHECK(count(gp, "set label 98 \"1 more kernel left out: the fastest by geometric-mean GB/s are drawn (kex plot "
                  "--per-panel 0 draws every one)\"") == 1);
  CHECK(dat.find("copy/sse/unroll:64/scratch:4/nt/fwd") == std::string::npos);
  CHECK(dat.find("copy/sse/unroll:64/scratch:4/t/fwd") != std::string::npos);
  CHECK(dat.find("copy/sse/unroll:64/scratch:4/pf:nta@256/t/fwd") != std::string::npos);
  CHECK(gp.find("title \"memcpy (libc)\"") != std::string::npos);  // the baselines stay
  // 0: every kernel, no label.
  TmpDir all;
  o.per_panel = 0;
  write_plots({synth::run()}, all.path, o);
  CHECK(slurp(all / "copy-warm.gp").find("left out") == std::string::npos);
  CHECK(slurp(all / "copy-warm.dat").find("copy/sse/unroll:64/scratch:4/nt/fwd") != std::string::npos);
  // By default 8 at most: synth's panels are within it.
  CHECK(PlotOptions{}.per_panel == kMaxPanelCurves);
}
