// `kex tune`'s estimate (building and verifying counted, refused far above the budget) and
// its journal: a tune killed mid-race resumes from OUT.journal to a complete tune file;
// a journal of another tune, of loaded code, or given to kex run is refused in one line.
// Measures: the `tune` suite holds the measuring-cpu lock.
#include <doctest/doctest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

// Kernels every x86-64 CPU runs (as tests/cli/test_tune.cpp's space).
const char* kJournalSpace = R"({"sizes": ["4KiB", "64KiB"], "kernels": [
  {"op": "copy", "regs": ["gpr", "sse"], "store": ["temporal", "nontemporal"]}]})";

// `rep movs` of each element size: at these sizes they tie with rep_movsb and each other
// for many stages (a race that is still going when it is killed), on every x86-64 CPU.
const char* kTieSpace = R"({"sizes": ["64KiB", "256KiB"], "kernels": [
  {"op": "copy", "regs": "string", "unroll": [2, 4, 8]}]})";

/// The journal's lines, parsed.
std::vector<nlohmann::json> journal_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

void write_json_lines(const std::string& path, const std::vector<nlohmann::json>& lines) {
  std::ofstream out(path);
  for (const auto& j : lines) out << j.dump() << "\n";
}

void check_one_line(const ShellOut& r, const std::string& want) {
  CHECK_MESSAGE(r.status == 2, r.text);
  CHECK_MESSAGE(r.text.find(want) != std::string::npos, r.text);
  CHECK_MESSAGE(std::count(r.text.begin(), r.text.end(), '\n') == 1, r.text);
}

/// A journal of `lines` whose repetition names loaded code, or a glibc variant the tune does
/// not race, is refused by `tune` (kex tune SPACE) in one line: nothing is loaded or dropped.
void check_foreign_points(const std::string& d, const std::vector<nlohmann::json>& lines, const std::string& tune) {
  const std::string opts = " --budget 6s --rounds 200 --first-rounds 3 --no-validate";
  nlohmann::json rep = *std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l.contains("rep"); });
  rep["rep"]["point"] = "lib/mine/4096";  // a journal never makes kex load code
  write_json_lines(d + "/lib.journal", {lines[0], rep});
  check_one_line(shell(tune + " --resume " + d + "/lib.journal -o " + d + "/l.json" + opts),
                 "the journal names loaded code (lib/mine); a journal never loads, assembles or runs code");
  rep["rep"]["point"] = "asm/theirs/4096";  // object code: the sources table's other loaded row
  write_json_lines(d + "/asm.journal", {lines[0], rep});
  check_one_line(shell(tune + " --resume " + d + "/asm.journal -o " + d + "/a.json" + opts),
                 "the journal names loaded code (asm/theirs); a journal never loads, assembles or runs code");
  // A glibc variant the tune does not race here (another machine's, or a tune with --glibc):
  // refused as kex run --resume refuses a point of another run, not dropped unsaid.
  rep["rep"]["point"] = "glibc/__memcpy_nonesuch/65536";
  write_json_lines(d + "/glibc.journal", {lines[0], rep});
  check_one_line(shell(tune + " --resume " + d + "/glibc.journal -o " + d + "/g.json" + opts),
                 "--resume: " + d + "/glibc.journal: repetitions of glibc/__memcpy_nonesuch/65536, a glibc variant the "
                 "tune its header describes does not race here: not this tune's journal");
}

}  // namespace

TEST_CASE("kex tune's estimate counts building and verifying: far above the budget it is refused at once" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  // 113 points verified at 1 MiB take about 20 s here, measuring them 3 rounds well under 1 s:
  // an estimate of the rounds alone let this race 20 s of a 5 s budget.
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = shell(kKex + " tune --sizes 1MiB --first-rounds 3 --budget 5s --no-validate -o " + d + "/t.json");
  check_one_line(r, "--budget: the first stage alone (");
  CHECK_MESSAGE(r.text.find(" s building and verifying, ") != std::string::npos, r.text);
  CHECK_MESSAGE(r.text.find("over 1.5x the race's 5 s: give a larger --budget, fewer sizes or kernels, or pass "
                            "--allow-large to race anyway") != std::string::npos,
                r.text);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
  CHECK(!std::filesystem::exists(d + "/t.json"));
  CHECK(!std::filesystem::exists(d + "/t.json.journal"));
}

TEST_CASE("kex tune prints its estimate before the race and against the time it took after" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kJournalSpace;
  const auto r = shell(kKex + " tune " + d + "/space.json --budget 8s --rounds 6 --first-rounds 3 --no-validate -o " +
                       d + "/t.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK_MESSAGE(r.text.find("kex tune: estimated 8 s: the first stage ") != std::string::npos, r.text);
  CHECK_MESSAGE(r.text.find(" s building and verifying 12 points, ") != std::string::npos, r.text);
  CHECK_MESSAGE(r.text.find("\nkex tune: estimated 8 s, took ") != std::string::npos, r.text);
  CHECK(!std::filesystem::exists(d + "/t.json.journal"));  // removed once the results are written
}

TEST_CASE("kex tune killed mid-race resumes from its journal to a complete tune file" * doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kTieSpace;
  const std::vector<std::string> opts = {"--budget", "6s", "--rounds", "200", "--first-rounds", "3", "--no-validate"};
  std::vector<std::string> args = {"tune", d + "/space.json", "-o", d + "/t.json"};
  args.insert(args.end(), opts.begin(), opts.end());
  const std::string journal = d + "/t.json.journal";
  {
    KexChild c(args, d + "/log");
    // Killed after three stages, in the fourth: the resume replays three and goes on with the fourth's rounds.
    REQUIRE_MESSAGE(wait_until([&] { return lines_with(journal, "{\"tune_stage\":") >= 3; }), slurp(d + "/log"));
    CHECK(c.stop({SIGKILL}).first == 128 + SIGKILL);
  }
  REQUIRE(std::filesystem::exists(journal));
  CHECK(!std::filesystem::exists(d + "/t.json"));
  const std::vector<nlohmann::json> lines = journal_lines(journal);
  std::filesystem::copy_file(journal, d + "/copy.journal");
  std::set<std::pair<std::string, uint64_t>> journaled;  // (point, order) of every repetition measured
  for (const auto& l : lines)
    if (l.contains("rep"))
      journaled.insert({l["rep"]["point"].get<std::string>(), l["rep"]["data"]["order"].get<uint64_t>()});
  REQUIRE(!journaled.empty());

  std::string resume = kKex + " tune " + d + "/space.json --resume " + journal;
  for (const auto& o : opts) resume += " " + o;
  const auto r = shell(resume);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.find("kex: verifying") == std::string::npos);  // stage 1 replayed, not verified nor measured again
  for (const auto& l : lines)  // each journaled stage replayed with its rounds
    if (l.contains("tune_stage")) {
      const auto& m = l["tune_stage"];
      CHECK_MESSAGE(r.text.find("kex tune: stage " + std::to_string(m["stage"].get<int>()) + ": " +
                                std::to_string(m["rounds"].get<int>()) + " rounds at ") != std::string::npos,
                    r.text);
    }
  CHECK(!std::filesystem::exists(journal));
  const auto doc = nlohmann::json::parse(slurp(d + "/t.json"));
  CHECK(doc["context"]["run_id"] == lines[0]["header"]["run_id"]);
  CHECK(doc["context"]["interrupted"] == false);
  REQUIRE(doc["tune"]["verdicts"].size() == 2);
  CHECK(doc["tune"]["stages"].size() >= 4);
  CHECK(!doc["tune"]["dispatch"].empty());
  size_t found = 0;  // each journaled repetition is in the results (taken over, not measured again)
  for (const auto& e : doc["benchmarks"])
    for (const auto& rep : e["reps"])
      found += journaled.count({e["name"].get<std::string>(), rep["order"].get<uint64_t>()});
  CHECK(found == journaled.size());

  // Another tune's journal: one line, nothing raced.
  const auto other = shell(kKex + " tune " + d + "/space.json --resume " + d + "/copy.journal --sizes 4KiB -o " + d +
                           "/o.json --budget 6s --rounds 200 --first-rounds 3 --no-validate");
  check_one_line(other, "--resume: " + d + "/copy.journal: the journal of another tune (its --sizes differs)");
  {  // The journal of a mix weighed otherwise (a header edited so): refused the same way.
    std::ofstream w(d + "/weights.journal");
    for (nlohmann::json l : lines) {
      if (l.contains("header")) l["header"]["tune"]["weights"] = {3, 1};
      w << l.dump() << "\n";
    }
  }
  check_one_line(shell(kKex + " tune " + d + "/space.json --resume " + d + "/weights.journal -o " + d +
                       "/w.json --budget 6s --rounds 200 --first-rounds 3 --no-validate"),
                 "--resume: " + d + "/weights.journal: the journal of another tune (its --stream-weights differs)");
  CHECK(!std::filesystem::exists(d + "/w.json"));
  check_one_line(shell(kKex + " run --resume " + d + "/copy.journal"),
                 "the journal of a kex tune: continue it with kex tune --resume ");
  check_foreign_points(d, lines, resume.substr(0, resume.find(" --resume ")));
  CHECK(!std::filesystem::exists(d + "/o.json"));
  CHECK(!std::filesystem::exists(d + "/l.json"));
  CHECK(!std::filesystem::exists(d + "/g.json"));
}
