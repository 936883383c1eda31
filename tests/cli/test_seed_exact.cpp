// `kex run --seed-exact`: stdout is what the seed program printed, so the seeds' own
// tables (tests/golden/), numbers masked, equal it after what each archive did to the
// program's output (docs/seed-kernels.md §1.5). These run the harnesses with the seed
// programs' waits cut short (KEX_SEED_TIMING=fast: no sleep(1) before fast.c's copies, a
// 30 ms Hahn calibration); tests/run/test_harness.cpp runs each one with its real waits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/seed_golden.hpp"
#include "tests/support/tmpdir.hpp"

namespace {


/// Runs `args` under kex; stdout into `out`, stderr into `err`; returns the exit status.
int kex_run(const TmpDir& t, const std::string& args, std::string& out, std::string& err) {
  const int st = run_sh("KEX_SEED_TIMING=fast " + kKex + " " + args + " >" + (t / "stdout") + " 2>" + (t / "stderr"));
  out = slurp(t / "stdout");
  err = slurp(t / "stderr");
  return st;
}

}  // namespace

TEST_CASE("seed-exact spraul: Roger Luethi's raw lines byte for byte, numbers masked, seed 004" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run --preset spraul --seed-exact -o " + (t / "r.json"), out, err) == 0, err);
  const auto kex_lines = golden::lines(out);
  CHECK(golden::mask(kex_lines) == golden::mask(golden::lines(golden::read("lkml-20021024-luethi-spraul.txt"))));
  CHECK(golden::mask(golden::terminal(kex_lines, false)) ==
        golden::mask(golden::lines(golden::read("seed-004-spraul.txt"))));
  CHECK(out.find('#') == std::string::npos);
  CHECK(err.find("results: " + (t / "r.json")) != std::string::npos);  // the rest went to stderr
}

TEST_CASE("seed-exact hahn from a config's outputs.seed_exact: Dieter Nuetzel's table, seed 001" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  spit(t / "h.json", R"({"presets": ["hahn"], "harness": "hahn", "outputs": {"seed_exact": true}})");
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run -q " + (t / "h.json") + " -o " + (t / "r.json"), out, err) == 0, err);
  const auto kex_lines = golden::lines(out);
  CHECK(golden::mask(golden::terminal(kex_lines, true)) ==
        golden::mask(golden::lines(golden::read("lkml-20021024-nuetzel-hahn.txt"))));
  CHECK(golden::mask(golden::hypermail(kex_lines)) == golden::mask(golden::lines(golden::read("seed-001-hahn.txt"))));
  // The results keep the same table, annotated: its lines but kex's "#" notes are stdout's.
  const nlohmann::json tables = nlohmann::json::parse(slurp(t / "r.json"))["context"]["seed_tables"];
  REQUIRE(tables.size() == 1);
  CHECK(tables[0]["source"] == t / "h.json");
  CHECK(tables[0]["harness"] == "hahn");
  std::vector<std::string> table;
  for (const auto& line : golden::lines(tables[0]["text"].get<std::string>()))
    if (line.rfind("#", 0) != 0) table.push_back(line);
  CHECK(table == kex_lines);
}

TEST_CASE("seed-exact xmm64 (the set picks its harness): seed 000, LaHaise's banner line" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run -q --preset xmm64 --seed-exact -o " + (t / "r.json"), out, err) == 0, err);
  const auto kex_lines = golden::lines(out);
  REQUIRE(kex_lines.size() > 2);
  CHECK(golden::mask(golden::thunderbird(kex_lines)) == golden::mask(golden::lines(golden::read("seed-000-xmm64.txt"))));
  CHECK(golden::mask(std::vector<std::string>(kex_lines.begin(), kex_lines.begin() + 2)) ==
        golden::mask(golden::lines(golden::read("lkml-20050530-lahaise-xmm64-head.txt"))));
  CHECK(slurp(t / "r.json").find("/4096/harness:xmm64\"") != std::string::npos);
}

TEST_CASE("seed sets, harnesses and --seed-exact: bad combinations fail first, on one line" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  std::string out, err;
  CHECK(kex_run(t, "run --preset xmm64 --harness fastc -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("--preset: /presets/0: \"xmm64\" is the table of LaHaise's xmm64.c; run it with harness xmm64 "
                 "(not fastc)") != std::string::npos);
  CHECK(kex_run(t, "run --preset hahn --harness xmm64 -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("is the table of Hahn's athlon.c") != std::string::npos);
  CHECK(kex_run(t, "run --preset xmm64/xmm_clear --harness mem_cp -o " + (t / "a.json"), out, err) == 2);
  CHECK(err == "kex: --preset: /presets/0: \"xmm64/xmm_clear\" has no copy: harness mem_cp times copies only (run "
               "clears under harness kex)\n");
  CHECK(kex_run(t, "run --preset fastc/faster_copy --seed-exact -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("--seed-exact: nothing a seed program printed") != std::string::npos);
  CHECK(kex_run(t, "run --preset spraul --seed-exact -o -", out, err) == 2);
  CHECK(err.find("--seed-exact: stdout carries the seed tables") != std::string::npos);
  CHECK(kex_run(t, "run --preset fastc/faster_copy --graph " + (t / "g") + " -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("--graph: ") != std::string::npos);
  CHECK(kex_run(t, "run --preset xmm64 --harness nope", out, err) == 2);
  for (const char* f : {"a.json", "g"}) CHECK_FALSE(std::filesystem::exists(t / f));
}

TEST_CASE("Asami's runtests: tables on stdout under --seed-exact, -graph files with --graph" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  spit(t / "a.json", R"({"presets": ["asami/unroll:64/scratch:2/every:32", "asami/unroll:64/scratch:2/every:0",
    "asami/fp_copy"], "sizes": [64, 1024], "baselines": ["memcpy"], "max_time_per_point": 0.01})");
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run " + (t / "a.json") + " --seed-exact --graph " + (t / "g") + " -o " +
                                 (t / "r.json"),
                             out, err) == 0,
                  err);
  const auto l = golden::lines(out);
  REQUIRE(l.size() == 4 * 5 - 1);  // 4 tables of name, header, 2 rows, with an empty line between
  CHECK(l[0] == "unrolled_64_32_2");
  CHECK(l[1] == "    size    bandwidth");
  CHECK(l[2].rfind("      64 ", 0) == 0);
  CHECK(l[3].rfind("    1024 ", 0) == 0);
  CHECK(l[5] == "unrolled_64_0_2");
  CHECK(l[10] == "FP_copy");
  CHECK(l[15] == "memcpy");
  for (const char* f : {"unrolled_64_32_2.dat", "unrolled_64_0_2.dat", "FP_copy.dat", "memcpy.dat", "plot.gp"})
    CHECK_MESSAGE(std::filesystem::exists((t / "g") + "/" + f), f);
  CHECK(err.find("runtests graph: 5 files in " + (t / "g")) != std::string::npos);
}

TEST_CASE("seed-exact --repeat 2: two hahn tables one after the other, each Dieter Nuetzel's seed table" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run -q --preset hahn --harness hahn --repeat 2 --seed-exact -o " + (t / "r.json"), out,
                          err) == 0,
                  err);
  const auto l = golden::lines(out);
  REQUIRE(l.size() % 2 == 0);
  const std::vector<std::string> first(l.begin(), l.begin() + l.size() / 2), second(l.begin() + l.size() / 2, l.end());
  const auto seed = golden::mask(golden::lines(golden::read("lkml-20021024-nuetzel-hahn.txt")));
  CHECK(golden::mask(golden::terminal(first, true)) == seed);
  CHECK(golden::mask(golden::terminal(second, true)) == seed);
  CHECK(out.find('[') == std::string::npos);  // no spread annotation under --seed-exact
  // Every pass is a repetition in the results; each table prints its own pass.
  const auto doc = nlohmann::json::parse(slurp(t / "r.json"));
  size_t line = 1;  // after "N.NNN MHz"
  for (const auto& e : doc["benchmarks"]) {
    if (!e.contains("seed") || !e.contains("reps")) continue;
    REQUIRE(e["reps"].size() == 2);
    if (line < first.size() && first[line].empty()) ++line;
    REQUIRE(line < first.size());
    const uint64_t div = e["seed"]["divisor"].get<uint64_t>();
    for (size_t pass = 0; pass < 2; ++pass) {
      const uint64_t printed = e["reps"][pass]["samples_ticks"][0].get<uint64_t>() / div;
      const std::string& text = pass == 0 ? first[line] : second[line];
      CHECK_MESSAGE(text.find("took " + std::string(printed < 1000 ? " " : "") + std::to_string(printed) + " cycles") !=
                        std::string::npos,
                    text);
    }
    ++line;
  }
  CHECK(line > 5);
}

TEST_CASE("a config's repeat: the annotated table gives each line the spread of its passes, from the stored passes" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  spit(t / "h.json", R"({"presets": ["hahn"], "harness": "hahn", "repeat": 3})");
  std::string out, err;
  REQUIRE_MESSAGE(kex_run(t, "run " + (t / "h.json") + " -o " + (t / "r.json"), out, err) == 0, err);
  const auto doc = nlohmann::json::parse(slurp(t / "r.json"));
  size_t checked = 0;
  for (const auto& e : doc["benchmarks"]) {
    if (!e.contains("seed") || !e.contains("reps")) continue;
    REQUIRE(e["reps"].size() == 3);
    const uint64_t div = e["seed"]["divisor"].get<uint64_t>();
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& rep : e["reps"]) {
      const uint64_t p = rep["samples_ticks"][0].get<uint64_t>() / div;
      lo = std::min(lo, p);
      hi = std::max(hi, p);
    }
    char note[128];
    std::snprintf(note, sizeof note, "  [3 runs: min %llu, max %llu, spread %.1f%%]", (unsigned long long)lo,
                  (unsigned long long)hi, double(hi - lo) / double(lo) * 100);
    const std::string printed = "'" + e["seed"]["label"].get<std::string>() + "'";
    bool found = false;
    for (const auto& l : golden::lines(out))
      if (l.find(printed) != std::string::npos && l.find(note) != std::string::npos) found = true;
    const std::string want = printed + note;
    CHECK_MESSAGE(found, want);
    ++checked;
  }
  CHECK(checked == 9);
}

TEST_CASE("--repeat: 0, above 1000, not a number, without a seed harness: one line, exit 2, nothing written" *
          doctest::test_suite("seedexact")) {
  TmpDir t;
  std::string out, err;
  for (const char* v : {"0", "1001", "abc", "2x", "-1"}) {
    CHECK(kex_run(t, std::string("run --preset hahn --harness hahn --repeat ") + v + " -o " + (t / "a.json"), out, err) == 2);
    CHECK(err == std::string("kex: --repeat: '") + v + "': expected a whole number of runs, 1..1000\n");
  }
  CHECK(kex_run(t, "run --repeat 2 -o " + (t / "a.json"), out, err) == 2);
  CHECK(err == "kex: --repeat: applies to --preset kernels under a seed harness; give --preset NAME...\n");
  CHECK(kex_run(t, "run --preset fastc/faster_copy --repeat 2 -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("kex: --repeat: applies to a seed harness") == 0);
  spit(t / "c.json", R"({"presets": ["hahn"], "harness": "hahn", "repeat": 0})");
  CHECK(kex_run(t, "run " + (t / "c.json") + " -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("/repeat: 0: out of range (allowed 1..1000)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(t / "a.json"));
}
