// Lost standard output is an error: each writer run by the kex binary with stdout on
// /dev/full or closed exits 2 with one line (src/core/output.hpp, main()).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

struct Run {
  int status;
  std::string err;  // stderr
};

/// Runs `args` under sh with stdout redirected as `redirect` ("> /dev/full", ">&-").
Run kex_with_stdout(const std::string& args, const std::string& redirect) {
  TmpDir d;
  int st = run_sh(kKex + " " + args + " " + redirect + " 2>" + d / "err");
  return {st, slurp(d / "err")};
}

const std::string kFull = "kex: stdout: write failed (No space left on device)\n";
const std::string kClosed = "kex: stdout: write failed (Bad file descriptor)\n";
const char* kTiny = R"({"sizes": [256], "kernels": [{"op": "copy", "regs": "sse"}], "baselines": false,
  "max_time_per_point": 0.01, "min_samples": 3})";

}  // namespace

TEST_CASE("every stdout writer fails with one line and status 2 on /dev/full" * doctest::test_suite("cli")) {
  const std::string results = std::string(KEX_SOURCE_DIR) + "/tests/data/compare_a.json";
  for (const std::string& args : std::vector<std::string>{"list", "list classes", "info --json", "show copy/sse/unroll:128/scratch:4/pf:nta@256/nt/fwd",
                                 "show fastc/faster_copy", "export " + results + " --format csv -o -",
                                 "export " + results + " --format gbench -o -",
                                 "compare " + results + " " + results, "crossovers " + results, "--help"}) {
    CAPTURE(args);
    Run r = kex_with_stdout(args, ">/dev/full");
    CHECK(r.status == 2);
    CHECK(r.err == kFull);
    // The same command with a working stdout succeeds: the failure is the lost output.
    CHECK(run_sh(kKex + " " + args + " >/dev/null 2>&1") == 0);
  }
}

TEST_CASE("kex run -o - on /dev/full fails and does not claim it wrote the results" * doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "tiny.json", kTiny);
  Run r = kex_with_stdout("run -q " + d / "tiny.json" + " -o -", ">/dev/full");
  CHECK(r.status == 2);
  CHECK(r.err == kFull);
  CHECK(r.err.find("results:") == std::string::npos);
}

TEST_CASE("a closed stdout is lost output too, and never becomes one of kex's files" * doctest::test_suite("cli")) {
  TmpDir d;
  for (const std::string args : {"list", "info --json", "show copy/sse"}) {
    CAPTURE(args);
    Run r = kex_with_stdout(args, ">&-");
    CHECK(r.status == 2);
    CHECK(r.err == kClosed);
  }
  // With fd 1 closed, the results file would have been opened as fd 1 and the summary
  // table written into it; it must hold exactly the results JSON.
  spit(d / "tiny.json", kTiny);
  Run r = kex_with_stdout("run " + d / "tiny.json" + " -o " + d / "out.json", ">&-");
  CHECK(r.status == 2);
  CHECK(r.err.size() >= kClosed.size());
  CHECK(r.err.substr(r.err.size() - std::min(r.err.size(), kClosed.size())) == kClosed);  // after the progress lines
  const std::string out = slurp(d / "out.json");
  CHECK(out.rfind("{", 0) == 0);
  CHECK(out.find("fastest kernel") == std::string::npos);
}

TEST_CASE("kex segments with its table lost still writes --json and says so" * doctest::test_suite("cli")) {
  TmpDir d;
  Run r = kex_with_stdout("segments --iterations 700 --no-modern --json " + d / "s.json", ">/dev/full");
  CHECK(r.status == 2);
  const std::string lost = "kex: stdout: write failed (No space left on device); the results were written to " + d / "s.json" + "\n";
  REQUIRE(r.err.size() >= lost.size());
  CHECK(r.err.substr(r.err.size() - lost.size()) == lost);  // after the line that says the table is running
  CHECK(slurp(d / "s.json").find("\"cases\"") != std::string::npos);
}
