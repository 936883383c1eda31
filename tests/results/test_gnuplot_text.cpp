// Text from results files into gnuplot: the quoting functions, and every figure
// written from hostile results, rendered by the real gnuplot, runs no command.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

#include "src/model/result_json.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/plot.hpp"
#include "src/results/runtests.hpp"
#include "tests/support/gnuplot_check.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;
using nlohmann::json;

namespace {

/// Payloads that would run a command, add a script line or break out of a string.
/// Each touches a marker file named after it in `dir` if gnuplot ever runs it.
std::vector<std::string> payloads(const std::string& dir) {
  return {
      "`touch " + dir + "/pwned-backtick`",
      "x\" . system(\"touch " + dir + "/pwned-system\") . \"",
      "x\nsystem(\"touch " + dir + "/pwned-newline\")\n",
      "x\rsystem(\"touch " + dir + "/pwned-cr\")",
      "@m `touch " + dir + "/pwned-macro`",
      "x\\\" `touch " + dir + "/pwned-escape`",
      "x\\\n`touch " + dir + "/pwned-continuation`",
      "caf\xc3\xa9 \xe2\x81\xb9 \x1b[2J",
  };
}

void check_script(const std::string& name, const std::string& gp) { CHECK_MESSAGE(gpcheck::script_problem(gp) == "", name); }

std::vector<std::string> markers(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename().string().rfind("pwned", 0) == 0) v.push_back(e.path());
  return v;
}

/// gnuplot's `print` of a literal, written to a file: the string gnuplot holds.
std::string gnuplot_value(const std::string& dir, const std::string& literal) {
  spit(dir + "/print.gp", "set print " + gp_string(dir + "/value.txt") + "\nprint " + literal + "\n");
  REQUIRE(run_sh("gnuplot " + dir + "/print.gp 2>" + dir + "/print.err") == 0);
  std::string v = slurp(dir + "/value.txt");
  REQUIRE(!v.empty());
  return v.substr(0, v.size() - 1);  // print's newline
}

}  // namespace

TEST_CASE("gp_string: a literal that holds the text exactly and carries nothing gnuplot scans" *
          doctest::test_suite("plot")) {
  CHECK(gp_string("copy/sse/unroll:64/pf:nta@256/t/fwd @ dist:64") == "\"copy/sse/unroll:64/pf:nta@256/t/fwd @ dist:64\"");
  CHECK(gp_string("a`b") == "\"a\\140b\"");
  CHECK(gp_string("q\"\\") == "\"q\\042\\134\"");
  CHECK(gp_string("l\n$x") == "\"l\\012\\044x\"");
  CHECK(gp_string("\xc3\xa9") == "\"\\303\\251\"");
  CHECK(gp_comment("a`b\nc\xc3\xa9") == "a?b?c??");
  CHECK(dat_string("a\"b\nc") == "\"a'b\\nc\"");
  CHECK(dat_string("host\u202egnp.exe \xc3\xa9") == "\"host\\u202egnp.exe \xc3\xa9\"");  // a bar label in order
  TmpDir d;
  for (const auto& p : payloads(d.path)) check_script("gp_string", "set title " + gp_string(p) + "\n");
  if (find_gnuplot().empty()) {
    MESSAGE("gnuplot not installed: its reading of the literals not checked (Debian: gnuplot-nox)");
    return;
  }
  for (const auto& p : payloads(d.path)) {
    // gnuplot's print stops a value at a NUL only; everything else comes back byte for byte.
    CHECK(gnuplot_value(d.path, gp_string(p)) == p);
  }
  CHECK(markers(d.path).empty());
}

TEST_CASE("gp_label: a figure's text holds no control byte, whatever a results file's text holds" *
          doctest::test_suite("plot")) {
  // gnuplot turns octal escapes back into bytes: ESC, BEL or CR in a host name made its
  // SVG figures malformed XML (and reached the report page) before labels were shown so.
  CHECK(gp_label("a\x1b[2J\x07" "b") == gp_string("a\\x1b[2J\\x07b"));
  CHECK(gp_label("median per size\nlab (cpu\r)") == gp_string("median per size\nlab (cpu\\r)"));
  CHECK(gp_label("\xc2\x9b\xe2\x80\xae\xff") == gp_string("\\u009b\\u202e\\xff"));
  CHECK(gp_label("copy/sse/unroll:64 `x` \xc3\xa9") == gp_string("copy/sse/unroll:64 `x` \xc3\xa9"));
}

TEST_CASE("write_plots: hostile host names, CPU models, labels and kernel names run no command in gnuplot" *
          doctest::test_suite("plot")) {
  TmpDir d;
  const auto ps = payloads(d.path);
  std::vector<RunDoc> docs;
  for (size_t i = 0; i < ps.size(); ++i) {
    synth::Options o;
    o.host = ps[i];
    o.cpu = ps[(i + 1) % ps.size()];
    RunDoc doc = synth::run(o);
    // Names the results reader refuses still reach write_plots from code: it must hold on its own.
    for (auto& r : doc.results) {
      if (r.kind == KernelKind::preset && r.preset) r.preset->printed = ps[(i + 2) % ps.size()];
      if (r.kind == KernelKind::generated && r.point.at.size == 4096) r.point.kernel += ps[(i + 3) % ps.size()];
    }
    if (doc.context.segments) {
      doc.context.segments->cases.at(0).name = ps[(i + 4) % ps.size()];
      // The segment heatmap's row and column names: a loop case with a hostile selector
      // (its register and kinds are enums: no text of a file reaches them).
      SegmentCase c;
      c.name = ps[(i + 5) % ps.size()];
      c.variant = SegVariant::loop2006;
      c.segment = SegReg::fs;
      c.selector_kind = SelectorKind::gdt_tls;
      c.selector = ps[(i + 8) % ps.size()];
      c.entry_selector_kind = SelectorKind::null;
      c.ns_per_iteration = 20;
      doc.context.segments->cases.push_back(c);
    }
    docs.push_back(std::move(doc));
  }
  PlotOptions o;
  o.render = !find_gnuplot().empty();
  const std::string out = d / "plots";
  auto files = write_plots(docs, out, o);
  o.labels = ps;  // --label
  o.render = false;
  auto labelled = write_plots(docs, d / "labelled", o);
  files.insert(files.end(), labelled.begin(), labelled.end());
  size_t scripts = 0;
  for (const auto& f : files) {
    if (f.size() < 3 || f.substr(f.size() - 3) != ".gp") continue;
    ++scripts;
    check_script(f, slurp(f));
    // A data file's strings and comments stay on their line: no control byte but the newline.
    CHECK_MESSAGE(gpcheck::data_problem(slurp(f.substr(0, f.size() - 3) + ".dat")) == "", f);
  }
  CHECK(scripts >= 10);
  if (find_gnuplot().empty()) MESSAGE("gnuplot not installed: the scripts were checked, not run");
  // Rendered (when gnuplot is there) and run again by hand, as a user would.
  if (!find_gnuplot().empty())
    for (const auto& f : labelled)
      if (f.substr(f.size() - 3) == ".gp")
        CHECK(run_sh("cd " + d / "labelled" + " && gnuplot -e 'fmt=\"svg\"; out=\"/dev/null\"' " + f +
                     " >/dev/null 2>&1") == 0);
  CHECK(markers(d.path).empty());
}

TEST_CASE("write_runtests_graph: a hostile printed name neither runs in plot.gp nor names a file outside the folder" *
          doctest::test_suite("plot")) {
  TmpDir d;
  RunDoc doc;
  doc.context = context_from_json(synth::context({}), "synth");
  const auto ps = payloads(d.path);
  std::vector<std::string> printed = ps;
  printed.push_back("../../escaped");
  printed.push_back("");
  printed.push_back(".hidden");
  for (size_t i = 0; i < printed.size(); ++i) {
    Result r;
    r.point.kernel = "asami/unroll:" + std::to_string(8 * (i + 1)) + "/scratch:2/every:0";
    r.point.at.size = 4096;
    r.kind = KernelKind::preset;
    r.op = Op::copy;
    PresetFacts f;
    f.id = r.point.kernel;
    f.printed = printed[i];
    f.family = "asami";
    r.preset = f;
    r.reps.push_back(synth::rep(1000));
    r.tsc_hz = synth::kTscHz;
    doc.results.push_back(r);
  }
  const std::string dir = d / "graph";
  const auto files = write_runtests_graph(doc, dir, false);
  CHECK(files.size() == printed.size() + 1);
  for (const auto& f : files) {
    CHECK_MESSAGE(std::filesystem::path(f).parent_path() == dir, f);
    const std::string name = std::filesystem::path(f).filename();
    CHECK_MESSAGE(std::regex_match(name, std::regex(R"([A-Za-z0-9_][A-Za-z0-9_.-]*)")), name);
  }
  const std::string gp = slurp(dir + "/plot.gp");
  check_script("plot.gp", gp);
  if (!find_gnuplot().empty())
    CHECK(run_sh("cd " + dir + " && gnuplot -e 'set terminal dumb; set output \"/dev/null\"' plot.gp >/dev/null 2>&1") == 0);
  CHECK(markers(d.path).empty());
}

TEST_CASE("write_plots: figures stay a size Cairo renders - 3000 curves, 300 bar rows" * doctest::test_suite("plot")) {
  RunDoc doc;
  doc.context = context_from_json(synth::context({}), "synth");
  for (int dist = 0; dist < 3000; ++dist) {
    Result r = synth::entry(synth::kernels()[0], 4096, 1.0);
    r.point.at.layout.distance = 8192 + dist;
    doc.results.push_back(r);
    Result b = r;
    b.point.at.size = 65536;
    doc.results.push_back(b);
  }
  for (int i = 0; i < 300; ++i) {
    Result r;
    r.point.kernel = "fastc/k" + std::to_string(i);
    r.point.at.size = 4096;
    r.kind = KernelKind::preset;
    r.op = Op::copy;
    PresetFacts f;
    f.id = r.point.kernel;
    f.printed = "k" + std::to_string(i);
    r.preset = f;
    r.reps.push_back(synth::rep(1000));
    r.tsc_hz = synth::kTscHz;
    doc.results.push_back(r);
  }
  TmpDir d;
  PlotOptions o;
  o.render = false;
  o.heatmap = std::pair{Axis::size, Axis::distance};
  o.per_panel = 0;  // every curve drawn: the key's own cap is what is checked
  write_plots({doc}, d.path, o);
  std::regex size_re(R"(size (\d+),(\d+))");
  size_t checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) {
    if (e.path().extension() != ".gp") continue;
    const std::string gp = slurp(e.path());
    std::smatch m;
    REQUIRE(std::regex_search(gp, m, size_re));
    CHECK_MESSAGE(std::stoi(m[1]) <= 8000, e.path());
    CHECK_MESSAGE(std::stoi(m[2]) <= 8000, e.path());
    ++checked;
  }
  CHECK(checked >= 3);
  const std::string bw = slurp(d / "copy-warm.gp");
  // 3000 curves and the envelope, 100 of them in the key
  CHECK(bw.find("\"2901 more curves have no key entry") != std::string::npos);
  // By default a panel draws its 8 fastest kernels and says how many more there are.
  TmpDir capped;
  o.per_panel = kMaxPanelCurves;
  write_plots({doc}, capped.path, o);
  CHECK(slurp(capped / "copy-warm.gp").find("\"2992 more kernels left out: the fastest by geometric-mean GB/s are drawn") !=
        std::string::npos);
  const std::string bars = slurp(d / "presets-copy.gp");
  CHECK(bars.find("(the first 200 of 300 rows; presets-copy.dat holds all)") != std::string::npos);
  CHECK(bars.find(" every ::0::199 using") != std::string::npos);
  // the data file still has every row
  const std::string dat = slurp(d / "presets-copy.dat");
  CHECK(dat.find("\"k299  (fastc/k299)\"") != std::string::npos);
}
