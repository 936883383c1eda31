// The hostile results files of tests/hostile/results/ (made by make_results.py)
// through every command that reads results: the accepted ones run no command (gnuplot
// included, the figures rendered), the refused ones are refused with one line.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kHostile = std::string(KEX_SOURCE_DIR) + "/tests/hostile/results";
const std::string kGolden = std::string(KEX_SOURCE_DIR) + "/tests/golden/run.json";

std::vector<fs::path> hostile_files(const std::string& prefix) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(kHostile))
    if (e.path().filename().string().rfind(prefix, 0) == 0) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

/// Files named pwned* anywhere under `dir`: a payload that ran.
std::vector<std::string> pwned(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find("pwned") != std::string::npos &&
        e.path().extension() != ".json")
      v.push_back(e.path());
  return v;
}

/// Runs every gnuplot script in `dir` as a user would (SVG to /dev/null): 0 when all ran.
/// With `same_as`, a script whose .gp and .dat are byte for byte those of the folder
/// `same_as` (whose scripts ran already) is not run again: gnuplot would read the same text.
int run_scripts(const std::string& dir, const std::string& same_as = "") {
  int failed = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gp") {
      const fs::path dat = fs::path(e.path()).replace_extension(".dat");
      const fs::path other = fs::path(same_as) / e.path().filename();
      if (!same_as.empty() && fs::exists(other) && slurp(e.path()) == slurp(other) &&
          slurp(dat) == slurp(fs::path(other).replace_extension(".dat")))
        continue;
      failed += run_sh("cd " + dir + " && gnuplot -e 'fmt=\"svg\"; out=\"/dev/null\"' " + e.path().filename().string() +
                       " >/dev/null 2>&1") != 0;
    }
  return failed;
}

/// Single-quoted for sh.
std::string sq(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The accepted files (every `parts`th from `part`) read, plotted, merged, compared and
/// exported: no payload runs. In parts, so that ctest runs them side by side.
void check_accepted(size_t part, size_t parts) {
  const auto all = hostile_files("accepted-");
  REQUIRE(all.size() >= 8);
  const std::string& k = kKex;
  for (size_t i = part; i < all.size(); i += parts) {
    const fs::path& f = all[i];
    CAPTURE(f);
    TmpDir d;
    fs::copy_file(f, d / "in.json");
    fs::copy_file(kGolden, d / "golden.json");
    const std::string cd = "cd " + sq(d.path) + " && ";
    // kex plot renders its PNG and SVG through gnuplot for the first file of the first part;
    // for the others the same scripts run as SVG (a terminal parses the file's text no
    // differently; the PNG render took 1.3 s to 5 s a file).
    const bool gnuplot = run_sh("command -v gnuplot >/dev/null") == 0;
    const bool render = i == 0 || !gnuplot;
    CHECK(run_sh(cd + k + " plot in.json -o plot" + (render ? "" : " --no-render") + " >/dev/null 2>err-plot") == 0);
    if (!render) CHECK(run_scripts(d / "plot") == 0);
    CHECK(run_sh(cd + k + " merge in.json -o merged.json >/dev/null 2>err-merge") == 0);
    CHECK(run_sh(cd + k + " plot merged.json -o plot4 --no-render >/dev/null 2>err-plot4") == 0);
    // The merged file's scripts: those that differ from the first plot's (text the merge
    // changed) run; the same bytes ran (or rendered) already (2.8 s a file at load 8).
    if (gnuplot) CHECK(run_scripts(d / "plot4", d / "plot") == 0);
    CHECK(run_sh(cd + k + " compare golden.json in.json >out-compare 2>err-compare") == 0);
    CHECK(run_sh(cd + k + " compare golden.json in.json --format markdown >out-compare-md 2>err-compare-md") == 0);
    CHECK(run_sh(cd + k + " summary in.json --format markdown >out-summary-md 2>err-summary-md") == 0);
    CHECK(run_sh(cd + k + " export in.json --format csv -o out.csv 2>err-export") == 0);
    run_sh(cd + k + " crossovers in.json >out-crossovers 2>err-crossovers");
    // The page's text is text: no tag, handler or comment from the file (kex's page has no script at all).
    CHECK(run_sh(cd + k + " report in.json golden.json -o report.html >/dev/null 2>err-report") == 0);
    const std::string page = slurp(d / "report.html");
    for (const char* markup : {"<script", "<img", "<!--", "</pre><"})
      CHECK_MESSAGE(page.find(markup) == std::string::npos, markup);
    // No tag of the page or its figures carries an event handler (in text, "onload=" is text).
    CHECK(!std::regex_search(page, std::regex("<[a-zA-Z][^<>]*\\son[a-zA-Z]+\\s*=", std::regex::icase)));
    if (f.filename() == "accepted-host-html.json")  // shown, as text
      CHECK(page.find("&lt;script&gt;fetch(&quot;http://example.invalid/pwned-html&quot;)&lt;/script&gt;&quot; "
                      "onload=&quot;x&#39; &#96;touch pwned-html&#96;") != std::string::npos);
    // The file's text lands in the emitted source's comments: it must stay comment.
    CHECK(run_sh(cd + k + " emit rep_movsb copy/avx/unroll:128 --format c --results in.json -o emitted.c 2>err-emit") == 0);
    if (run_sh("command -v cc >/dev/null") == 0)
      CHECK(run_sh(cd + "cc -fsyntax-only -Wall -Werror emitted.c 2>err-cc") == 0);
    CHECK(fs::exists(d / "plot/copy-warm.gp"));
    CHECK(fs::exists(d / "plot4/copy-warm.gp"));
    CHECK(pwned(d.path).empty());
  }
}

/// A file name and a --label with payloads, beside each hostile text of `file`: the figures'
/// scripts run as a user would run them, and nothing runs. (Once, not per file: the name and
/// the label come from the command line, whatever the file holds.)
void check_named(const fs::path& file) {
  CAPTURE(file);
  const std::string& k = kKex;
  TmpDir d;
  fs::copy_file(file, d / "in.json");
  fs::copy_file(kGolden, d / "golden.json");
  // A results file's own name becomes a figure label when several are plotted.
  const std::string named = d / "`touch pwned-filename`.json";
  fs::copy_file(file, named);
  const std::string cd = "cd " + sq(d.path) + " && ";
  CHECK(run_sh(cd + k + " plot " + sq(named) + " golden.json -o plot2 --no-render >/dev/null 2>err-plot2") == 0);
  CHECK(run_sh(cd + k + " plot in.json golden.json --label " + sq("`touch pwned-label`") +
               " --label b -o plot3 --no-render >/dev/null 2>err-plot3") == 0);
  if (run_sh("command -v gnuplot >/dev/null") == 0)
    for (const char* p : {"plot2", "plot3"}) CHECK_MESSAGE(run_scripts(d / p) == 0, p);
  CHECK(fs::exists(d / "plot2/copy-warm.gp"));
  CHECK(fs::exists(d / "plot3/copy-warm.gp"));
  CHECK(pwned(d.path).empty());
}

}  // namespace

// Five parts of the 9 files: the first part's first file is also rendered (8.5 s at load 8,
// as much as a file's other readers), so no part holds more than two files.
TEST_CASE("hostile results: accepted files 1, 6, 11, ... run no payload in any reader" * doctest::test_suite("hostile")) {
  check_accepted(0, 5);
}
TEST_CASE("hostile results: accepted files 2, 7, 12, ... run no payload in any reader" * doctest::test_suite("hostile")) {
  check_accepted(1, 5);
}
TEST_CASE("hostile results: accepted files 3, 8, 13, ... run no payload in any reader" * doctest::test_suite("hostile")) {
  check_accepted(2, 5);
}
TEST_CASE("hostile results: accepted files 4, 9, 14, ... run no payload in any reader" * doctest::test_suite("hostile")) {
  check_accepted(3, 5);
}
TEST_CASE("hostile results: accepted files 5, 10, 15, ... run no payload in any reader" * doctest::test_suite("hostile")) {
  check_accepted(4, 5);
}

TEST_CASE("hostile results: a file name and a label with a payload run nothing, beside a hostile host name" *
          doctest::test_suite("hostile")) {
  check_named(kHostile + "/accepted-host-backtick.json");
}

TEST_CASE("hostile results: a name outside the grammar is refused by every reader with one line" *
          doctest::test_suite("hostile")) {
  const auto files = hostile_files("refused-");
  REQUIRE(files.size() >= 6);
  const std::string& k = kKex;
  for (const auto& f : files) {
    CAPTURE(f);
    TmpDir d;
    fs::copy_file(f, d / "in.json");
    fs::copy_file(kGolden, d / "golden.json");
    const std::string cd = "cd " + sq(d.path) + " && ";
    for (const std::string cmd : {"plot in.json -o plot", "merge in.json -o merged.json", "compare golden.json in.json",
                                  "export in.json --format csv -o out.csv", "crossovers in.json",
                                  "emit rep_movsb --format c --results in.json -o out.c"}) {
      CAPTURE(cmd);
      CHECK(run_sh(cd + k + " " + cmd + " >out 2>err") == 2);
      const std::string err = slurp(d / "err");
      CHECK(std::count(err.begin(), err.end(), '\n') == 1);
      CHECK(err.rfind("kex: in.json", 0) == 0);
      CHECK((err.find("/name: ") != std::string::npos || err.find("/printed: ") != std::string::npos));
      CHECK(std::none_of(err.begin(), err.end(), [](char c) { return c != '\n' && (unsigned char)c < 0x20; }));
    }
    CHECK_FALSE(fs::exists(d / "plot"));
    CHECK_FALSE(fs::exists(d / "merged.json"));
    CHECK_FALSE(fs::exists(d / "out.csv"));
    CHECK_FALSE(fs::exists(d / "out.c"));
    CHECK(pwned(d.path).empty());
  }
}

TEST_CASE("hostile journals (tests/hostile/journals, made by make_journals.py): each refused with one line, nothing "
          "measured, written or removed" * doctest::test_suite("hostile")) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(KEX_SOURCE_DIR) + "/tests/hostile/journals"))
    files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 15);
  const std::string& k = kKex;
  for (const auto& f : files) {
    CAPTURE(f);
    TmpDir d;
    fs::create_directories(d / "run");
    const std::string journal = d / "run/r.json.journal";
    fs::copy_file(f, journal);
    spit(d / "run/r.json", "USER FILE\n");  // what the journal's own name would write: the user's, not a partial output
    spit(d / "victim.json", "VICTIM\n");
    const std::string before = slurp(journal);
    // --resume-any-build: the seed journal's build is not this one; every other check must still refuse.
    const int rc = run_sh("cd " + sq(d / "run") + " && " + k + " run --resume r.json.journal --resume-any-build >" +
                          d / "out" + " 2>" + d / "err");
    CHECK(rc == 2);
    const std::string err = slurp(d / "err");
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(err.rfind("kex: ", 0) == 0);
    CHECK(err.find("r.json.journal") != std::string::npos);
    CHECK(slurp(d / "out").empty());
    CHECK(slurp(journal) == before);
    CHECK(slurp(d / "run/r.json") == "USER FILE\n");
    CHECK(slurp(d / "victim.json") == "VICTIM\n");
    std::vector<std::string> left;
    for (const auto& e : fs::recursive_directory_iterator(d.path)) left.push_back(e.path().filename());
    std::sort(left.begin(), left.end());
    CHECK(left == std::vector<std::string>{"err", "out", "r.json", "r.json.journal", "run", "victim.json"});
  }
}

TEST_CASE("an unreadable results file (/proc/self/mem) is one line and exit 2 in every reader" *
          doctest::test_suite("hostile")) {
  const std::string& k = kKex;
  TmpDir d;
  for (const std::string cmd : {"plot /proc/self/mem -o p --no-render", "export /proc/self/mem --format csv -o x.csv",
                                "merge /proc/self/mem -o m.json", "crossovers /proc/self/mem"}) {
    CAPTURE(cmd);
    CHECK(run_sh("cd " + sq(d.path) + " && " + k + " " + cmd + " >/dev/null 2>err") == 2);
    CHECK(slurp(d / "err") == "kex: /proc/self/mem: cannot read: a results file from `kex run` is needed\n");
  }
}

TEST_CASE("kex plot runs no gnuplot from an empty or relative PATH entry (it would run the figure folder's)" *
          doctest::test_suite("hostile")) {
  const std::string& k = kKex;
  TmpDir d;
  fs::copy_file(kGolden, d / "golden.json");
  fs::create_directory(d / "plot");
  for (const std::string at : {"gnuplot", "plot/gnuplot"}) {
    spit(d / at, "#!/bin/sh\ntouch pwned-path\n");
    fs::permissions(d / at, fs::perms::owner_all);
  }
  run_sh("cd " + sq(d.path) + " && PATH=:.:/usr/bin " + k + " plot golden.json -o plot --force >/dev/null 2>err");
  CHECK(pwned(d.path).empty());
  CHECK(!fs::exists(d / "plot/pwned-path"));
  CHECK(!fs::exists(d / "pwned-path"));
}
