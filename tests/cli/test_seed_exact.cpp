// `kex run --seed-exact`: stdout is what the seed program printed, so the seeds' own
// tables (tests/golden/), numbers masked, equal it after what each archive did to the
// program's output (docs/seed-kernels.md §1.5). These run the real harnesses: each
// fast.c copy line sleeps 1 s first, as fast.c did.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/seed_golden.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

const std::string kex = KEX_BINARY;

/// Runs `args` under kex; stdout into `out`, stderr into `err`; returns the exit status.
int kex_run(const TmpDir& t, const std::string& args, std::string& out, std::string& err) {
  const int st = run_sh(kex + " " + args + " >" + (t / "stdout") + " 2>" + (t / "stderr"));
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
  CHECK(kex_run(t, "run --preset faster_copy --seed-exact -o " + (t / "a.json"), out, err) == 2);
  CHECK(err.find("--seed-exact: nothing a seed program printed") != std::string::npos);
  CHECK(kex_run(t, "run --preset spraul --seed-exact -o -", out, err) == 2);
  CHECK(err.find("--seed-exact: stdout carries the seed tables") != std::string::npos);
  CHECK(kex_run(t, "run --preset faster_copy --graph " + (t / "g") + " -o " + (t / "a.json"), out, err) == 2);
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
