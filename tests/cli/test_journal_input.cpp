// A journal is data, not instructions: `kex run --resume` of a crafted, copied,
// locked or damaged journal writes only where the journal's own name (or the
// command line) says, takes --force from the command line only, refuses a header
// or a record that a config or a results file would not pass, another build's
// journal, and a journal in use; interrupted CSV runs resume; long output names
// keep a journal; bounded reads of stdin and journals; --seed read as typed.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/version.hpp"
#include "src/results/results.hpp"
#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/slowdown.hpp"
#include "tests/support/tmpdir.hpp"

namespace {


// 50 small points, 2 paired rounds a group of about 10 ms a member, no sentinel: about a second.
const char* kFastTwoReps = R"({"sizes": ["256", "1KiB", "4KiB", "16KiB", "64KiB"],
  "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "gpr", "avx"]}], "max_time_per_point": 0.01,
  "repetitions": 2, "protocol": {"sentinel": false, "round_sample_us": 10000}})";

/// A run of kFastTwoReps writing `out` (in `d`), killed with SIGKILL once a few repetitions are
/// journaled: its journal remains, its output was never written.
void killed_journal_run(const TmpDir& d, const std::string& out = "out.json", const std::vector<std::string>& extra = {}) {
  spit(d / "c.json", kFastTwoReps);
  std::vector<std::string> args = {"run", d / "c.json", "-o", d / out};
  args.insert(args.end(), extra.begin(), extra.end());
  KexChild c(args, d / "log-killed");
  std::string journal;
  for (int i = 0; i < 2000 && journal.empty(); ++i) {
    for (const auto& e : std::filesystem::directory_iterator(d.path))
      if (e.path().extension() == ".journal") journal = e.path();
    if (journal.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE_MESSAGE(!journal.empty(), slurp(d / "log-killed"));
  REQUIRE_MESSAGE(wait_for_reps(journal, 5), slurp(d / "log-killed"));
  kill(-c.pid, SIGKILL);
  CHECK(c.wait() == 128 + SIGKILL);
  REQUIRE(!std::filesystem::exists(d / out));
}

/// A journal's lines: the first parsed, the others as text.
struct Lines {
  nlohmann::json first;
  std::vector<std::string> rest;
};

Lines read_lines(const std::string& path) {
  Lines l;
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  l.first = nlohmann::json::parse(text);
  while (std::getline(in, text)) l.rest.push_back(text);
  return l;
}

void write_lines(const std::string& path, const Lines& l) {
  std::ofstream f(path);
  f << l.first.dump() << "\n";
  for (const auto& t : l.rest) f << t << "\n";
}

ShellOut resume(const std::string& journal, const std::string& more = "") {
  return shell(kKex + " run -q --resume " + journal + (more.empty() ? "" : " " + more));
}

size_t entry_count(const std::string& results) { return nlohmann::json::parse(slurp(results))["benchmarks"].size(); }

}  // namespace

TEST_CASE("kex run --resume writes where the journal's name says, never a path from its header" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  const std::string journal = d / "out.json.journal";
  Lines l = read_lines(journal);

  // A header naming an output (the unrelated file, or the journal itself) is refused, and nothing is touched.
  spit(d / "victim", "an unrelated file\n");
  for (const std::string& target : {d / "victim", d / "crafted.json.journal"}) {
    Lines crafted = l;
    crafted.first["header"]["output"] = target;
    write_lines(d / "crafted.json.journal", crafted);
    const std::string before = slurp(d / "crafted.json.journal");
    const ShellOut r = resume(d / "crafted.json.journal");
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.text.rfind("kex: " + (d / "crafted.json.journal") + ":1: /header/output: unknown key", 0) == 0,
                  r.text);
    CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1);
    CHECK(slurp(d / "victim") == "an unrelated file\n");
    CHECK(slurp(d / "crafted.json.journal") == before);
    CHECK(!std::filesystem::exists(d / "crafted.json"));
  }

  // No configs: one line naming the field (it was a SIGSEGV).
  Lines empty = l;
  empty.first["header"]["configs"] = nlohmann::json::array();
  write_lines(d / "empty.json.journal", empty);
  ShellOut r = resume(d / "empty.json.journal");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (d / "empty.json.journal") + ":1: /header/configs: []: expected a list of 1 to 1000 entries\n");

  // A copy under another name (in another folder) writes beside itself, under its own name.
  std::filesystem::create_directory(d / "sub");
  std::filesystem::copy_file(journal, d / "sub/renamed.json.journal");
  r = resume(d / "sub/renamed.json.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "sub/renamed.json") == 50);
  CHECK(!std::filesystem::exists(d / "out.json"));
  CHECK(!std::filesystem::exists(d / "sub/renamed.json.journal"));

  // -o with --resume: the user's choice; never the journal itself.
  std::filesystem::copy_file(journal, d / "third.json.journal");
  r = resume(d / "third.json.journal", "-o " + (d / "third.json.journal"));
  CHECK(r.status == 2);
  CHECK(r.text == "kex: -o: " + (d / "third.json.journal") + ": is the journal being resumed; give another results file\n");
  r = resume(d / "third.json.journal", "-o " + (d / "chosen.json"));
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "chosen.json") == 50);
  CHECK(!std::filesystem::exists(d / "third.json"));

  // The original resumes where it always would have.
  r = resume(journal);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "out.json") == 50);
}

TEST_CASE("kex run --resume draws figures beside its output when the run drew any, or where --plot-dir says now" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d, "out.json", {"--plot-dir", d / "elsewhere"});
  std::filesystem::copy_file(d / "out.json.journal", d / "second.json.journal");
  ShellOut r = resume(d / "out.json.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(!std::filesystem::exists(d / "elsewhere"));  // the header's path is not taken
  REQUIRE(std::filesystem::is_directory(d / "out-plots"));
  CHECK(!std::filesystem::is_empty(d / "out-plots"));
  r = resume(d / "second.json.journal", "--plot-dir " + (d / "figs"));
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(!std::filesystem::is_empty(d / "figs"));
  CHECK(!std::filesystem::exists(d / "second-plots"));
  CHECK(!std::filesystem::exists(d / "elsewhere"));
}

TEST_CASE("kex run --resume of an interrupted run draws over the figures that run drew, and only over those" *
          doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "c.json", kFastTwoReps);
  {
    KexChild c({"run", d / "c.json", "-o", d / "out.json", "--plot-dir", d / "out-plots"}, d / "log");
    REQUIRE(wait_for_reps(d / "out.json.journal", 10));
    kill(-c.pid, SIGINT);
    CHECK(c.wait() == 130);
  }
  REQUIRE(!std::filesystem::is_empty(d / "out-plots"));
  spit(d / "out-plots/mine.txt", "the user's note\n");  // no longer only the run's figures
  ShellOut r = resume(d / "out.json.journal");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --plot-dir: " + (d / "out-plots") + ": not empty; not overwriting its files (use --force)\n");
  std::filesystem::remove(d / "out-plots/mine.txt");
  r = resume(d / "out.json.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "out.json") == 50);
  CHECK(!std::filesystem::exists(d / "out.json.journal"));
}

TEST_CASE("kex run --resume --force replaces the user's file: --force comes from the command line only" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  spit(d / "out.json", "the user's file\n");
  ShellOut r = resume(d / "out.json.journal");
  CHECK(r.status == 2);
  CHECK(slurp(d / "out.json") == "the user's file\n");
  r = resume(d / "out.json.journal", "--force");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "out.json") == 50);
}

TEST_CASE("kex run --resume checks the journal header as a config is checked: one line naming the field and value" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  const Lines l = read_lines(d / "out.json.journal");
  const std::string j = d / "h.json.journal";
  struct Case {
    std::string pointer;  // JSON pointer into the first line
    nlohmann::json value;
    std::string message;  // after "kex: J:1: "
  };
  const std::vector<Case> cases = {
      {"/header/protocol/repetitions", 0, "/header/protocol/repetitions: 0: expected an integer in 1..1000"},
      {"/header/protocol/repetitions", 1001, "/header/protocol/repetitions: 1001: expected an integer in 1..1000"},
      {"/header/protocol/sentinel_threshold", "x", "/header/protocol/sentinel_threshold: \"x\": expected a number in 0.001..10"},
      {"/header/protocol/remeasure_budget", -1, "/header/protocol/remeasure_budget: -1: expected a number in 0..10"},
      {"/header/protocol/cpu", 5000, "/header/protocol/cpu: 5000: expected an integer in -1..4095"},
      {"/header/protocol/seed", -1, "/header/protocol/seed: -1: expected an integer in 0..18446744073709551615"},
      {"/header/protocol/seed", 18446744073709551616.0,
       "/header/protocol/seed: 1.8446744073709552e+19 (an integer beyond 64 bits, read as a floating-point number): "
       "expected an integer in 0..18446744073709551615"},
      {"/header/protocol/counters", {""}, "/header/protocol/counters/0: \"\": allowed: an event name (kex info lists them)"},
      {"/header/protocol/pairing", true,
       "/header/protocol/pairing: true: allowed: rounds (a group's points measured together), separate"},
      {"/header/format", "xml", "/header/format: \"xml\": allowed: json, gbench, csv"},
      {"/header/shard", {{"index", 3}, {"count", 2}}, "/header/shard/index: 3: expected below the count, 2"},
      {"/header/drew_figures", "/tmp/x", "/header/drew_figures: \"/tmp/x\": expected true or false"},
      {"/header/output_name", "../x.json", "/header/output_name: \"../x.json\": allowed: a file name without a directory"},
      {"/header/run_id", "x", "/header/run_id: \"x\": allowed: 16 lowercase hex digits"},
      {"/header/filter", "(",
       "/header/filter: '(': not a regular expression (RE2 syntax, as Perl's without backreferences or lookaround): "
       "missing ): ("},
      {"/header/configs/0/config/sizes", {"x"},
       "/header/configs/0/config: /sizes/0: \"x\": expected a byte size such as 4096, \"4KiB\" or \"64MiB\" "
       "(binary units K/KiB, M/MiB, G/GiB)"},
      {"/header/configs/0/source", 7, "/header/configs/0/source: 7: expected a string"},
      {"/header/machine", nullptr, "/header/machine: null: expected a string"},
  };
  for (const Case& c : cases) {
    INFO(c.pointer << " = " << c.value.dump());
    Lines crafted = l;
    crafted.first[nlohmann::json::json_pointer(c.pointer)] = c.value;
    write_lines(j, crafted);
    const ShellOut r = resume(j);
    CHECK(r.status == 2);
    CHECK(r.text == "kex: " + j + ":1: " + c.message + "\n");
  }
  // The first line edited by `edit`, resumed: what kex says.
  auto said = [&](auto edit) {
    Lines x = l;
    edit(x.first);
    write_lines(j, x);
    return resume(j).text;
  };
  CHECK(said([](auto& f) { f["header"]["protocol"].erase("seed"); }) ==
        "kex: " + j + ":1: /header/protocol/seed: missing\n");
  // Another format is named as an earlier or a later kex's; a key no kex writes there by its path.
  CHECK(said([](auto& f) { f["kex_journal"] = 1; }) ==
        "kex: " + j + ":1: a journal of an earlier kex (journal format 1, this kex's is 4): resume it with the kex that "
                      "wrote it\n");
  CHECK(said([](auto& f) { f["kex_journal"] = 9; }) ==
        "kex: " + j + ":1: a journal of a later kex (journal format 9, this kex's is 4): resume it with the kex that "
                      "wrote it\n");
  CHECK(said([](auto& f) { f.erase("header"); }) == "kex: " + j + ":1: /header: missing\n");
  CHECK(said([](auto& f) { f["output"] = "../victim.json"; }) ==
        "kex: " + j + ":1: /output: unknown key (allowed: header, kex_journal)\n");
  // The untouched journal still resumes.
  const ShellOut r = resume(d / "out.json.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
}

TEST_CASE("kex run --resume refuses another build's journal unless --resume-any-build" * doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  Lines l = read_lines(d / "out.json.journal");
  l.first["header"]["git_commit"] = "0000000";
  write_lines(d / "out.json.journal", l);
  ShellOut r = resume(d / "out.json.journal");
  CHECK(r.status == 2);
  const std::string v(kex::kex_version());
  CHECK(r.text == "kex: --resume: " + (d / "out.json.journal") + ": written by kex " + v + " (git 0000000); this is kex " +
                      v + " (git " + std::string(kex::kex_git_commit()) +
                      "): the run would mix repetitions of two builds; pass --resume-any-build to accept that\n");
  r = resume(d / "out.json.journal", "--resume-any-build");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / "out.json") == 50);
  r = shell(kKex + " run copy/sse/unroll:64 --sizes 4KiB --list --resume-any-build");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --resume-any-build: applies to --resume JOURNAL\n");
}

TEST_CASE("a journal in use is not resumed: a held lock, or a live run, refuses at once and measures nothing" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  const std::string journal = d / "out.json.journal";
  const std::string before = slurp(journal);
  const std::string refusal =
      "kex: " + journal + ": in use: a live kex run or resume holds the journal's lock; nothing measured\n";
  {
    const int fd = open(journal.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(flock(fd, LOCK_EX) == 0);
    const ShellOut r = resume(journal);
    close(fd);
    CHECK(r.status == 2);
    CHECK(r.text == refusal);
    CHECK(slurp(journal) == before);
    CHECK(!std::filesystem::exists(d / "out.json"));
  }
  // A live run holds its own journal: a resume of it is refused while it measures.
  spit(d / "long.json", R"({"sizes": ["4KiB"], "kernels": [{"op": "copy", "regs": ["sse", "gpr"]}],
    "max_time_per_point": 0.05, "min_time_per_point": 0.02, "repetitions": 200,
    "protocol": {"sentinel": false, "pairing": "separate"}, "baselines": false})");
  KexChild live({"run", d / "long.json", "-o", d / "live.json"}, d / "log-live");
  REQUIRE(wait_for_reps(d / "live.json.journal", 1));
  const size_t reps = lines_with(d / "live.json.journal", "{\"rep\":");
  const ShellOut r = resume(d / "live.json.journal");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (d / "live.json.journal") +
                      ": in use: a live kex run or resume holds the journal's lock; nothing measured\n");
  CHECK(lines_with(d / "live.json.journal", "{\"rep\":") < reps + 400);  // no second session's repetitions
  const auto [status, s] = live.stop({SIGINT});
  CHECK(status == 130);
  (void)s;
  // Unlocked again, the journal resumes.
  const ShellOut ok = resume(journal);
  REQUIRE_MESSAGE(ok.status == 0, ok.text);
}

TEST_CASE("the journal reader applies the results reader's checks, and a resume writes a file kex reads" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  const std::string journal = d / "out.json.journal";
  const Lines l = read_lines(journal);
  REQUIRE(!l.rest.empty());
  const std::string j = d / "r.json.journal";
  auto with_rep = [&](const std::function<void(nlohmann::json&)>& edit, bool twice = false) {
    Lines crafted = l;
    nlohmann::json rep = nlohmann::json::parse(crafted.rest.at(0));
    REQUIRE(rep.contains("rep"));
    edit(rep["rep"]["data"]);
    crafted.rest.at(0) = rep.dump();
    if (twice) crafted.rest.insert(crafted.rest.begin() + 1, rep.dump());
    write_lines(j, crafted);
    return resume(j);
  };
  const std::string at = "kex: " + j + ":2: not a journal line: /rep/data";
  ShellOut r = with_rep([](nlohmann::json& x) { x["median_ticks"] = -5; });
  CHECK(r.status == 2);
  CHECK(r.text == at + "/median_ticks: -5.000000: expected a time > 0 and < 1e15 ticks\n");
  r = with_rep([](nlohmann::json& x) { x["median_ticks"] = 0; });
  CHECK(r.text == at + "/median_ticks: 0.000000: expected a time > 0 and < 1e15 ticks\n");
  r = with_rep([](nlohmann::json& x) { x["p90_ticks"] = 1e16; });
  CHECK(r.text == at + ": a tick statistic of 10000000000000000.000000: expected >= 0 and < 1e15\n");
  r = with_rep([](nlohmann::json& x) { x["n"] = "x"; });
  CHECK(r.text == at + "/n: \"x\": expected an integer in 0..18446744073709551615\n");
  r = with_rep([](nlohmann::json& x) { x["order"] = 18446744073709551615ull; });  // the next order would wrap
  CHECK(r.text == at + "/order: 18446744073709551615: expected below 2^53 (orders count tasks)\n");
  r = with_rep([](nlohmann::json&) {}, true);
  const std::string order = nlohmann::json::parse(l.rest.at(0))["rep"]["data"]["order"].dump();
  CHECK(r.text == "kex: " + j + ":3: not a journal line: /rep/data/order: " + order +
                      ": this point's repetition of that order is journaled already (each repetition has an order "
                      "of its own)\n");
  // A well-formed journal resumes into a file the results reader takes.
  r = resume(journal);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const auto docs = kex::load_results(d / "out.json");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].results.size() == 50);
}

TEST_CASE("an interrupted --format csv run resumes, and its partial output once edited is kept" *
          doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "c.json", kFastTwoReps);
  {
    KexChild c({"run", d / "c.json", "-o", d / "out.csv", "--format", "csv"}, d / "log");
    REQUIRE(wait_for_reps(d / "out.csv.journal", 10));
    kill(-c.pid, SIGINT);
    CHECK(c.wait() == 130);
  }
  const std::string partial = slurp(d / "out.csv");
  REQUIRE(!partial.empty());
  spit(d / "out.csv", partial + "edited\r\n");  // no longer what the run wrote
  ShellOut r = resume(d / "out.csv.journal");
  CHECK(r.status == 2);
  CHECK(slurp(d / "out.csv") == partial + "edited\r\n");
  spit(d / "out.csv", partial);
  r = resume(d / "out.csv.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const std::string csv = slurp(d / "out.csv");
  size_t rows = 0;
  for (size_t at = 0; (at = csv.find("\r\n", at)) != std::string::npos; at += 2) ++rows;
  CHECK(rows == 1 + 50);
  CHECK(!std::filesystem::exists(d / "out.csv.journal"));
}

TEST_CASE("kex run --resume keeps another run's interrupted results, even with this run's seed" *
          doctest::test_suite("cli")) {
  TmpDir e;
  killed_journal_run(e);
  const auto seed = read_lines(e / "out.json.journal").first["header"]["protocol"]["seed"];
  const std::string other = nlohmann::json{{"context", {{"interrupted", true}, {"protocol", {{"seed", seed}}}}},
                                           {"benchmarks", nlohmann::json::array()}}.dump();
  spit(e / "out.json", other);
  const ShellOut r = resume(e / "out.json.journal");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (e / "out.json") + ": exists; not overwriting it (use --force)\n");
  CHECK(slurp(e / "out.json") == other);
}

TEST_CASE("a 255-byte output name keeps a journal (its name shortened with a hash) and resumes" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const std::string name = std::string(250, 'n') + ".json";
  killed_journal_run(d, name);
  std::string journal;
  for (const auto& e : std::filesystem::directory_iterator(d.path))
    if (e.path().extension() == ".journal") journal = e.path();
  REQUIRE(!journal.empty());
  CHECK(std::filesystem::path(journal).filename().string().size() <= 255);
  const ShellOut r = resume(journal);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(entry_count(d / name) == 50);
  CHECK(!std::filesystem::exists(journal));
}

TEST_CASE("when the output's folder or the journal is removed during a run, kex does not point to a journal that is gone" *
          doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "c.json", kFastTwoReps);
  std::filesystem::create_directory(d / "sub");
  {
    KexChild c({"run", d / "c.json", "-o", d / "sub/out.json"}, d / "log1");
    REQUIRE(wait_for_reps(d / "sub/out.json.journal", 5));
    std::filesystem::remove_all(d / "sub");
    kill(-c.pid, SIGINT);
    CHECK(c.wait() == 2);  // the results cannot be written either
  }
  std::string log = slurp(d / "log1");
  CHECK_MESSAGE(log.find("its journal " + (d / "sub/out.json.journal") +
                         " was removed during the run: the run cannot be resumed") != std::string::npos,
                log);
  CHECK_MESSAGE(log.find("--resume") == std::string::npos, log);
  {
    KexChild c({"run", d / "c.json", "-o", d / "out.json"}, d / "log2");
    REQUIRE(wait_for_reps(d / "out.json.journal", 5));
    std::filesystem::remove(d / "out.json.journal");
    kill(-c.pid, SIGINT);
    CHECK(c.wait() == 130);
  }
  log = slurp(d / "log2");
  CHECK_MESSAGE(log.find("kex: interrupted; the finished points were written to " + (d / "out.json") + "; its journal " +
                         (d / "out.json.journal") + " was removed during the run: the run cannot be resumed\n") !=
                    std::string::npos,
                log);
  CHECK_MESSAGE(log.find("--resume") == std::string::npos, log);
}

TEST_CASE("reads are bounded: a config on stdin or in a file above 16 MiB, a journal that is no regular file or has a "
          "line above 64 MiB" * doctest::test_suite("cli")) {
  TmpDir d;
  // ulimit and timeout: a kex that reads without a bound fails here instead of filling the memory.
  // (AddressSanitizer cannot start under ulimit -v: there the timeout alone bounds it.)
  const std::string bounded = std::string(kSanitized ? "" : "ulimit -v 4000000; ") + "timeout 60 ";
  ShellOut r = shell(bounded + kKex + " run - < /dev/zero");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: -: the config on stdin is longer than 16 MiB (a config is at most that); not read further\n");
  r = shell(bounded + kKex + " run --resume /dev/zero");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: /dev/zero: not a regular file: a journal kex wrote is needed\n");
  {
    std::ofstream f(d / "big.json");
    f << "{\"sizes\": [4096]," << std::string((size_t(16) << 20), ' ') << "\"baselines\": true}";
  }
  r = shell(bounded + kKex + " run " + (d / "big.json") + " --list");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + (d / "big.json") + ": longer than 16 MiB: a config is at most that\n");
  killed_journal_run(d);
  {
    std::ofstream f(d / "out.json.journal", std::ios::app);
    f << "{\"rep\": \"" << std::string((size_t(64) << 20) + 1, 'x') << "\"}\n";
  }
  r = shell(bounded + kKex + " run --resume " + (d / "out.json.journal"));
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find(": longer than 64 MiB: not a line kex writes\n") != std::string::npos, r.text);
  CHECK(r.text.rfind("kex: " + (d / "out.json.journal") + ":", 0) == 0);
}

TEST_CASE("--seed is read as typed into 0..2^64-1: -1, 2^64 and 1e23 are refused, not wrapped" * doctest::test_suite("cli")) {
  const std::string run = kKex + " run copy/sse/unroll:64 --sizes 4KiB --list --seed=";
  const std::string allowed = "; allowed: an integer in 0..18446744073709551615 (decimal, or 0x hex)\n";
  ShellOut r = shell(run + "-1");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --seed: '-1': negative" + allowed);
  r = shell(run + "18446744073709551616");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --seed: '18446744073709551616': out of range" + allowed);
  r = shell(run + "1e23");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --seed: '1e23': not an integer" + allowed);
  r = shell(run + "18446744073709551615");
  CHECK_MESSAGE(r.status == 0, r.text);
  r = shell(run + "0x10");
  CHECK_MESSAGE(r.status == 0, r.text);
}

TEST_CASE("kex run --resume refuses a journal whose run loaded code: a journal never loads anything" *
          doctest::test_suite("cli")) {
  TmpDir d;
  killed_journal_run(d);
  Lines l = read_lines(d / "out.json.journal");
  // A constructor that would leave a file if the shared object were ever opened.
  spit(d / "ctor.c", "#include <stdio.h>\n__attribute__((constructor)) static void c(void) { fclose(fopen(\"" +
                         (d / "OPENED") + "\", \"w\")); }\nvoid f(void *d, const void *s, unsigned long n) {}\n");
  REQUIRE(shell("gcc -shared -fPIC -o " + (d / "ctor.so") + " " + (d / "ctor.c")).status == 0);
  l.first["header"]["configs"][0]["config"]["load"] = {{{"name", "x"}, {"path", d / "ctor.so"}, {"symbol", "f"}}};
  write_lines(d / "out.json.journal", l);
  const ShellOut out = resume(d / "out.json.journal");
  INFO(out.text);
  CHECK(out.status == 2);
  CHECK(out.text.find("the run loaded code (lib/x); a journal never loads, assembles or runs code") != std::string::npos);
  CHECK(!std::filesystem::exists(d / "OPENED"));
}
