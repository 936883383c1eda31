// `kex report` (src/cli/report.cpp): the page with gnuplot's figures inline, without
// gnuplot a page that says so, and one-line errors for bad input and existing files.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

const std::string kReportGolden = std::string(KEX_SOURCE_DIR) + "/tests/golden/run.json";

size_t occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = 0; (i = s.find(what, i)) != std::string::npos; i += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("kex report draws the figures inline with gnuplot, or says gnuplot is missing" * doctest::test_suite("cli")) {
  TmpDir d;
  ShellOut r = shell(kKex + " report " + kReportGolden + " -o " + (d / "page.html"));
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text == "report: " + (d / "page.html") + "\n");
  const std::string page = slurp(d / "page.html");
  if (shell("command -v gnuplot >/dev/null").status == 0) {
    CHECK(occurrences(page, "<figure>\n<svg style=\"max-width:") >= 3);
    CHECK(occurrences(page, "<figure>") == occurrences(page, "</svg>\n<figcaption>"));
    CHECK(page.find("<?xml") == std::string::npos);
  }
  // No gnuplot on PATH: the page without figures, and a note that says why.
  r = shell("PATH=/nonexistent " + kKex + " report " + kReportGolden + " -o - -q");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.starts_with("<!DOCTYPE html>\n"));
  CHECK(occurrences(r.text, "<svg") == 0);
  CHECK(r.text.find("<p class=\"note\">gnuplot is not installed (Debian: apt-get install gnuplot-nox)") !=
        std::string::npos);
  r = shell(kKex + " report " + kReportGolden + " -o - --no-figures");
  CHECK(occurrences(r.text, "<svg") == 0);
  CHECK(r.text.find("<p class=\"note\">no figures: kex report --no-figures</p>") != std::string::npos);
}

TEST_CASE("kex run's report inlines the SVGs the run drew: gnuplot runs twice a figure (PNG, SVG), never a third time" *
          doctest::test_suite("cli")) {
  const ShellOut real = shell_stdout("command -v gnuplot");
  if (real.status != 0) return;  // gnuplot-nox is in the Makefile's DEBS; without it nothing renders
  TmpDir d;
  std::filesystem::create_directory(d / "bin");
  // A gnuplot that logs each call, then runs the real one.
  spit(d / "bin/gnuplot", "#!/bin/sh\necho call >> " + d / "calls" + "\nexec " + real.text.substr(0, real.text.find('\n')) +
                              " \"$@\"\n");
  shell("chmod 755 " + d / "bin/gnuplot");
  const ShellOut r = shell("PATH=" + d / "bin" + ":$PATH " + kKex + " run copy/gpr/unroll:8/t/fwd memcpy --sizes 4KiB " +
                           "--no-sentinel -q -o " + d / "r.json --plot-dir " + d / "plots");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  size_t figures = 0;
  for (const auto& e : std::filesystem::directory_iterator(d / "plots")) figures += e.path().extension() == ".gp";
  REQUIRE(figures >= 2);
  CHECK(occurrences(slurp(d / "calls"), "call\n") == 2 * figures);
  const std::string page = slurp(d / "r.html");
  CHECK(occurrences(page, "<figure>\n<svg style=\"max-width:") == figures);
  CHECK(page.find("<figcaption>copy-warm</figcaption>") != std::string::npos);
}

TEST_CASE("kex report: a missing results file or an existing page is one line and exit 2" *
          doctest::test_suite("cli")) {
  TmpDir d;
  ShellOut r = shell(kKex + " report " + (d / "none.json") + " -o " + (d / "p.html"));
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (d / "none.json") + ": cannot open: a results file from `kex run` is needed\n");
  spit(d / "p.html", "mine\n");
  r = shell(kKex + " report " + kReportGolden + " -o " + (d / "p.html") + " --no-figures");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (d / "p.html") + ": exists; not overwriting it (use --force)\n");
  CHECK(slurp(d / "p.html") == "mine\n");
  CHECK(shell(kKex + " report " + kReportGolden + " -o " + (d / "p.html") + " --no-figures --force -q").status == 0);
  CHECK(slurp(d / "p.html").starts_with("<!DOCTYPE html>"));
}

TEST_CASE("kex report: bidirectional and invisible characters of a file's text shown as escapes, never raw" *
          doctest::test_suite("cli")) {
  TmpDir d;
  nlohmann::json doc = nlohmann::json::parse(slurp(kReportGolden));
  const std::string hidden = "\u202e\u2066\u2069\u061c\u200b\u2060\ufeff\u00ad\U000e0041";
  doc["context"]["host_name"] = "lab" + hidden + "gnp.exe";
  doc["context"]["machine"]["cpu_model"] = "cpu" + hidden;
  for (auto& b : doc["benchmarks"])
    if (b.contains("skip_message")) b["skip_message"] = "no" + hidden + "avx";
  spit(d / "h.json", doc.dump());
  const ShellOut r = shell(kKex + " report " + kReportGolden + " " + d / "h.json -o " + d / "p.html -q");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const std::string page = slurp(d / "p.html");
  CHECK(page.find("lab\\u202e\\u2066\\u2069\\u061c\\u200b\\u2060\\ufeff\\u00ad\\U000e0041gnp.exe") != std::string::npos);
  for (const char* raw : {"\u202e", "\u2066", "\u2069", "\u061c", "\u200b", "\u2060", "\ufeff", "\u00ad", "\U000e0041"}) {
    CAPTURE(raw);
    CHECK(page.find(raw) == std::string::npos);
  }
}

TEST_CASE("kex report stopped by SIGINT, SIGTERM or SIGHUP while drawing leaves no temporary folder, and stale ones go" *
          doctest::test_suite("cli")) {
  TmpDir d;
  shell("mkdir -p " + d / "bin" + " " + d / "tmp");
  // A stand-in gnuplot that says it started, then would draw for 30 s.
  spit(d / "bin/gnuplot", "#!/bin/sh\necho $$ > " + d / "started.tmp" + "; mv " + d / "started.tmp " + d / "started" +
                              "\nexec sleep 30\n");
  shell("chmod 755 " + d / "bin/gnuplot");
  // A folder of a process that is gone (a kill -9), and one of a live process (this test).
  std::string dead = shell_stdout("sh -c 'echo $$'").text;
  dead.pop_back();
  shell("mkdir " + d / "tmp/kex-report-" + dead + "-abcdef && touch " + d / "tmp/kex-report-" + dead + "-abcdef/f.svg");
  const std::string live = d / "tmp/kex-report-" + std::to_string(getpid()) + "-abcdef";
  shell("mkdir " + live);
  for (const std::string sig : {"INT", "TERM", "HUP"}) {
    CAPTURE(sig);
    const std::string script =
        "rm -f " + d / "started" + "\n"
        "TMPDIR=" + d / "tmp" + " PATH=" + d / "bin" + ":$PATH env --default-signal=INT " + kKex + " report " +
        kReportGolden + " -o " + d / "page.html --force >/dev/null 2>&1 &\n"
        "kex=$!\n"
        "for i in $(seq 200); do [ -s " + d / "started" + " ] && break; sleep 0.05; done\n"
        "ls " + d / "tmp" + " | grep -c kex-report-\n"
        "kill -" + sig + " $kex; wait $kex; echo status $?\n"
        "ls " + d / "tmp\n";
    spit(d / "t.sh", script);
    // While drawing: the live folder and the report's own (the stale one is gone).
    CHECK(shell_stdout("sh " + d / "t.sh").text ==
          "2\nstatus " + std::to_string(128 + (sig == "INT" ? 2 : sig == "TERM" ? 15 : 1)) + "\nkex-report-" +
              std::to_string(getpid()) + "-abcdef\n");
  }
}
