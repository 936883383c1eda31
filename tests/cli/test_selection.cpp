// kex run with kernels named on the command line (--sizes, --cache, --layout),
// --filter, a config on stdin, and -q on every command.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/cli/selection.hpp"
#include "src/model/filter.hpp"

namespace {

std::vector<std::string> entry_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') out.push_back(l);
  return out;
}


}  // namespace

TEST_CASE("--sizes: lists, doubling ranges and steps per octave" * doctest::test_suite("cli")) {
  CHECK(kex::sizes_option("64KiB,4KiB,4K") == std::vector<uint64_t>{4096, 65536});
  CHECK(kex::sizes_option("4KiB..64KiB") == std::vector<uint64_t>{4096, 8192, 16384, 32768, 65536});
  CHECK(kex::sizes_option("4KiB..8KiB:2,5000") == std::vector<uint64_t>{4096, 5000, 5793, 8192});
  CHECK_THROWS_WITH_AS(kex::sizes_option("4KiB..1K"), doctest::Contains("--sizes"), kex::InputError);
  CHECK_THROWS_WITH_AS(kex::sizes_option(""), doctest::Contains("--sizes"), kex::InputError);
  CHECK_THROWS_WITH_AS(kex::cache_option("lukewarm"), doctest::Contains("--cache"), kex::InputError);
}

TEST_CASE("--layout: tokens become the config's layout, and a key given twice or dst: with dist: is refused" *
          doctest::test_suite("cli")) {
  const kex::LayoutAxes l = kex::layout_option({"src:0,1/dist:0,-64,none", "nohuge"});
  CHECK(l.src_offsets == std::vector<uint64_t>{0, 1});
  CHECK(l.dst_offsets == std::vector<uint64_t>{0});
  CHECK(l.distances == std::vector<std::optional<int64_t>>{0, -64, std::nullopt});
  CHECK(l.huge_pages == std::vector<bool>{false});
  CHECK_THROWS_WITH_AS(kex::layout_option({"nohuge/nohuge"}), "--layout: 'nohuge' is given twice", kex::InputError);
  CHECK_THROWS_WITH_AS(kex::layout_option({"src:0", "src:64"}),
                       "--layout: 'src:' is given twice (list its values once: src:0,64)", kex::InputError);
  CHECK_THROWS_WITH_AS(kex::layout_option({"src:0,0"}), "--layout: 'src:0,0': '0' is given twice", kex::InputError);
  CHECK_THROWS_WITH_AS(kex::layout_option({"dst:64/dist:0"}), doctest::Contains("dst: and dist: both place dst"),
                       kex::InputError);
}

TEST_CASE("names on the command line become points with the axes given" * doctest::test_suite("cli")) {
  auto r = shell(kKex + " run copy/avx/unroll:256 memcpy --sizes 4KiB,64KiB --cache warm,cold --layout dst:0,15 --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const auto names = entry_lines(r.text);
  // 2 kernels x 2 sizes x 2 cache modes x 2 dst offsets.
  CHECK(names.size() == 16);
  CHECK(std::count(names.begin(), names.end(), "copy/avx/unroll:256/scratch:4/t/fwd/65536/dst:15/cold") == 1);
  CHECK(std::count(names.begin(), names.end(), "memcpy/4096") == 1);
  // A preset set alone runs at one page.
  r = shell(kKex + " run linux24 --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  for (const auto& n : entry_lines(r.text)) CHECK_MESSAGE(n.find("/4096") != std::string::npos, n);
  // Axes options without names are refused, naming the option.
  r = shell(kKex + " run --sizes 4KiB --list");
  CHECK(r.status == 2);
  CHECK(r.text.find("--sizes: applies to kernels named as arguments") != std::string::npos);
  r = shell(kKex + " run copy/avx/unroll:7");
  CHECK(r.status == 2);
  CHECK(r.text.find("copy/avx/unroll:7: not a config file and not a kernel name") != std::string::npos);
}

TEST_CASE("--filter keeps the points whose name matches, '-' keeps the others" * doctest::test_suite("cli")) {
  auto all = entry_lines(shell(kKex + " run copy/sse copy/avx memcpy --sizes 4KiB,64KiB --list").text);
  auto kept = entry_lines(shell(kKex + " run copy/sse copy/avx memcpy --sizes 4KiB,64KiB --filter /avx/ --list").text);
  auto rest = entry_lines(shell(kKex + " run copy/sse copy/avx memcpy --sizes 4KiB,64KiB --filter -/avx/ --list").text);
  REQUIRE(all.size() == 6);
  // The avx points, and the memcpy baseline at their sizes.
  CHECK(kept.size() == 4);
  for (const auto& n : kept) CHECK_MESSAGE((n.find("/avx/") != std::string::npos || n.rfind("memcpy", 0) == 0), n);
  for (const auto& n : rest) CHECK(n.find("/avx/") == std::string::npos);
  auto none = shell(kKex + " run copy/sse --sizes 4KiB --filter nothing-matches --list");
  CHECK(none.status == 2);
  CHECK(none.text.find("matches none of the 3 points") != std::string::npos);
  const auto f = kex::parse_name_filter("-^copy/", "--filter");
  CHECK(f.keep("memcpy/4096"));
  CHECK_FALSE(f.keep("copy/sse/unroll:64/scratch:4/t/fwd/4096"));
}

TEST_CASE("--filter patterns: RE2's syntax, matched without backtracking, errors on one line" *
          doctest::test_suite("cli")) {
  // Nested stars on a name they almost match: a backtracking matcher (std::regex) took
  // minutes on this; RE2 answers at once, and answers right.
  const auto nested = kex::parse_name_filter("(a*)*b", "--filter");
  CHECK_FALSE(nested.keep(std::string(5000, 'a')));
  CHECK(nested.keep(std::string(5000, 'a') + "b"));
  CHECK(kex::parse_name_filter(R"(/unroll:\d+/scratch:(?:2|4)/)", "--filter").keep("copy/sse/unroll:64/scratch:4/t/fwd/4096"));
  CHECK(kex::parse_name_filter("", "--filter").keep("anything"));
  // What RE2 does not take is refused by name, not matched some other way.
  const auto r = shell(kKex + " run copy/sse --sizes 4KiB --filter '(sse)/\\1' --list");
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find("kex: --filter: '(sse)/\\1': not a regular expression (RE2 syntax") == 0, r.text);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1);
}

TEST_CASE("a config on stdin, -q writes the file and prints nothing" * doctest::test_suite("cli")) {
  const TmpDir dir;
  const std::string& d = dir.path;
  auto r = shell("echo '{\"sizes\":[4096],\"kernels\":[{\"op\":\"clear\",\"regs\":\"sse\"}],\"baselines\":false,"
              "\"max_time_per_point\":0.01}' | " + kKex + " run - -q --repetitions 1 --no-sentinel -o " + d + "/o.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.empty());
  std::ifstream in(d + "/o.json");
  const auto doc = nlohmann::json::parse(in);
  REQUIRE(doc["benchmarks"].size() == 1);
  CHECK(doc["benchmarks"][0]["name"] == "clear/sse/unroll:64/scratch:4/t/fwd/4096");
}

TEST_CASE("kex run without -o writes a new folder of its own: results, figures and report, never an existing one" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const std::string run = "cd " + d.path + " && " + kKex + " run copy/gpr memcpy --sizes 4KiB,64KiB --no-sentinel";
  ShellOut r = shell(run);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  CHECK(std::regex_match(names[0], std::regex("kex-results-[0-9]{8}-[0-9]{6}")));
  const std::string dir = d / names[0];
  std::vector<std::string> inside;
  for (const auto& e : std::filesystem::directory_iterator(dir)) inside.push_back(e.path().filename().string());
  std::sort(inside.begin(), inside.end());
  CHECK(inside == std::vector<std::string>{"plots", "report.html", "results.json"});
  CHECK(r.text.find("\nreport: " + names[0] + "/report.html\n") != std::string::npos);
  CHECK(r.text.find("\nresults: " + names[0] + "/results.json (") != std::string::npos);
  const std::string gp = slurp(dir + "/plots/copy-warm.gp");
  CHECK(gp.find("memcpy (libc)") != std::string::npos);
  CHECK(gp.find("copy/gpr/") != std::string::npos);
  CHECK(slurp(dir + "/report.html").find("copy/gpr/unroll:") != std::string::npos);
  // Folders of the names of the next seconds exist: the run takes another name and leaves them
  // alone. With --no-plot --no-report the folder holds the results only.
  std::filesystem::remove_all(dir);
  std::vector<std::string> taken;
  const time_t now = time(nullptr);
  for (time_t t = now; t < now + 10; ++t) {
    char b[40];
    strftime(b, sizeof b, "kex-results-%Y%m%d-%H%M%S", localtime(&t));
    taken.push_back(b);
    std::filesystem::create_directory(d / b);
  }
  r = shell("cd " + d.path + " && " + kKex + " run copy/gpr --sizes 4KiB --no-sentinel --no-plot --no-report -q");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  size_t made = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) {
    const std::string name = e.path().filename().string();
    if (std::find(taken.begin(), taken.end(), name) != taken.end()) {
      CHECK_MESSAGE(std::filesystem::is_empty(e.path()), name);
      continue;
    }
    ++made;
    CHECK_MESSAGE(std::regex_match(name, std::regex("kex-results-[0-9]{8}-[0-9]{6}-2")), name);
    std::vector<std::string> files;
    for (const auto& f : std::filesystem::directory_iterator(e.path())) files.push_back(f.path().filename().string());
    CHECK(files == std::vector<std::string>{"results.json"});
  }
  CHECK(made == 1);
  r = shell(run + " --no-plot --plot-dir " + (d / "p"));
  CHECK(r.status == 2);
  CHECK(r.text.find("--plot-dir excludes --no-plot") != std::string::npos);
}

TEST_CASE("kex run -o FILE writes the report beside it (FILE's stem + .html), never over a file without --force" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const std::string run = kKex + " run copy/gpr --sizes 4KiB --no-sentinel -q -o " + (d / "r.json");
  ShellOut r = shell(run);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(std::filesystem::exists(d / "r.json"));
  CHECK(slurp(d / "r.html").starts_with("<!DOCTYPE html>"));
  std::filesystem::remove(d / "r.json");
  r = shell(run);  // the report is there: refused before measuring
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find("r.html") != std::string::npos, r.text);
  CHECK(!std::filesystem::exists(d / "r.json"));
  CHECK(shell(run + " --force").status == 0);
}

TEST_CASE("kex run --preset measures libc's page copy and clear beside the presets, under any harness" *
          doctest::test_suite("cli")) {
  ShellOut r = shell(kKex + " run --preset fastc/normal_copy_page --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_lines(r.text) == std::vector<std::string>{"fastc/normal_copy_page/4096", "memcpy/4096", "rep_movsb/4096"});
  r = shell(kKex + " run --preset fastc --harness fastc --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_lines(r.text) == std::vector<std::string>{"memcpy/4096", "memset/4096", "rep_movsb/4096", "rep_stosb/4096"});
}

TEST_CASE("--list says which points this CPU skips and why, and leaves them out of the tasks" *
          doctest::test_suite("cli")) {
  // The test holds with and without AVX-512: it reads the CPU's flags and expects the other branch there.
  const auto flags = shell("grep -m1 -o -w avx512f /proc/cpuinfo");
  const bool avx512 = flags.text.find("avx512f") != std::string::npos;
  const auto r = shell(kKex + " run copy/avx512/unroll:256 copy/sse --sizes 4KiB --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const size_t at = r.text.find("copy/avx512/unroll:256/scratch:4/t/fwd/4096\n");
  REQUIRE(at != std::string::npos);
  const std::string after = r.text.substr(at + 44);
  if (avx512) {
    CHECK(r.text.find("skipped") == std::string::npos);
    CHECK(r.text.find("# 4 points x ") != std::string::npos);
  } else {
    CHECK(after.rfind("#   skipped: this CPU lacks ", 0) == 0);
    CHECK(after.find("avx512f") < after.find('\n'));
    CHECK(r.text.find("# 4 points (1 skipped here: see each point's reason) x ") != std::string::npos);
  }
  // Either way the names stay one per line, comments apart (what scripts and --resume read).
  size_t names = 0;
  for (const auto& l : entry_lines(r.text)) names += !l.empty() && l[0] != '#';
  CHECK(names == 4);
}

TEST_CASE("--filter leaves the segment table out of a run, and says so" * doctest::test_suite("cli")) {
  const auto r = shell_stdout(kKex + " run built-in:default --filter 'copy/sse/' --list 2>&1 >/dev/null");
  CHECK(r.status == 0);
  CHECK(r.text.find("kex: --filter: the segment-override table is not run (it has no points to filter; kex segments "
                    "runs it)\n") != std::string::npos);
  const auto all = shell_stdout(kKex + " run built-in:default --list 2>&1 >/dev/null");
  CHECK(all.text.find("segment-override table is not run") == std::string::npos);
}

TEST_CASE("kernels named on the command line get the README's 20 paired rounds, 3 separate repetitions" *
          doctest::test_suite("cli")) {
  // The default the README states for a group (a run once gave named kernels 3 rounds).
  auto r = shell(kKex + " run copy/sse memcpy --sizes 4KiB --list");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK_MESSAGE(r.text.find(" x 20 paired rounds = ") != std::string::npos, r.text);
  r = shell(kKex + " run copy/sse memcpy --sizes 4KiB --separate --list");
  CHECK_MESSAGE(r.text.find(" x 3 repetitions = ") != std::string::npos, r.text);
  r = shell(kKex + " run copy/sse memcpy --sizes 4KiB --repetitions 7 --list");
  CHECK_MESSAGE(r.text.find(" x 7 paired rounds = ") != std::string::npos, r.text);
  // A config's count stands.
  r = shell("echo '{\"sizes\": [4096], \"kernels\": [{\"op\": \"copy\", \"regs\": \"sse\"}], \"repetitions\": 4}' | " + kKex +
            " run - --list");
  CHECK_MESSAGE(r.text.find(" x 4 paired rounds = ") != std::string::npos, r.text);
}
