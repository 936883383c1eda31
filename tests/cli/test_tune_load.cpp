// `kex tune --load`: a shared object built here with gcc races in every stage beside the
// reference, and is never dropped nor dispatched (where it beats the dispatch the tune says
// so: tests/results/test_tune_outside.cpp). Measures: the `tune` suite holds the measuring-cpu lock.
#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("kex tune --load races a shared object beside its kernels and names it only as a comparison" *
          doctest::test_suite("tune")) {
  TmpDir dir;
  // libc's memcpy behind a symbol of our own.
  std::ofstream(dir / "fast.c") << "#include <string.h>\n"
                                   "void *fast_copy(void *d, const void *s, unsigned long n) { return memcpy(d, s, n); }\n";
  const ShellOut cc = shell("gcc -shared -fPIC -O2 -o " + (dir / "fast.so") + " " + (dir / "fast.c"));
  REQUIRE_MESSAGE(cc.status == 0, cc.text);
  spit(dir / "space.json", R"({"sizes": ["64KiB"], "kernels": [{"op": "copy", "regs": "gpr", "unroll": [8, 16]}]})");
  const std::string tune = kKex + " tune " + (dir / "space.json") + " --no-validate --budget 10s --rounds 6 " +
                           "--first-rounds 3 --load fast=" + (dir / "fast.so") + ":fast_copy";
  const ShellOut out = shell_stdout(tune + " -o " + (dir / "t.json") + " 2>/dev/null");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto doc = nlohmann::json::parse(slurp(dir / "t.json"));
  size_t rounds = 0;
  for (const auto& e : doc["benchmarks"])
    if (e["kernel"] == "lib/fast") rounds = e["reps"].size();
  CHECK(rounds >= 3);  // raced in the rounds of every stage
  for (const auto& row : doc["tune"]["dispatch"]) CHECK(row["kernel"].get<std::string>().rfind("lib/", 0) != 0);
  for (const auto& d : doc["tune"]["drops"]) CHECK(d["kernel"] != "lib/fast");
  // A memset's code in a race of copies: one line, nothing raced.
  const ShellOut clear = shell(tune + ":clear -o " + (dir / "c.json"));
  CHECK(clear.status == 2);
  CHECK_MESSAGE(clear.text.find("--load: 'fast=" + (dir / "fast.so") + ":fast_copy:clear': a clear (memset's ABI); kex "
                                "tune --op copy races copy kernels\n") != std::string::npos,
                clear.text);
}
