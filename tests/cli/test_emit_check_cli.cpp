// `kex emit --test`: the emitted source and its test program built with cc and run, a verdict
// a line, for kernels named, a dispatch, gas and C, memcpy and memset; -o still written; a
// time limit that expires is a failing verdict (exit 1); bad options and a missing compiler
// are one line and exit status 2.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

bool emit_test_tools() { return shell("command -v cc >/dev/null 2>&1 && command -v as >/dev/null 2>&1").status == 0; }

/// `kex emit ARGS --test` run in `dir`: its status and output (stdout and stderr).
ShellOut emit_test_run(const TmpDir& dir, const std::string& args) {
  return shell("cd " + dir.path + " && TMPDIR=" + dir.path + " " + kKex + " emit " + args + " --test");
}

}  // namespace

TEST_CASE("kex emit --test: a memcpy and a memset kernel in gas pass, a verdict a line" * doctest::test_suite("emit")) {
  if (!emit_test_tools()) {
    MESSAGE("cc or as not installed: nothing built");
    return;
  }
  TmpDir dir;
  // Two kernels, one run each: a verdict a line.
  const auto r = emit_test_run(dir, "copy/sse/unroll:64 clear/sse/unroll:64 --format gas");
  CHECK_MESSAGE(r.status == 0, r.text);
  CHECK(line_count(r.text) == 2);
  CHECK(r.text.rfind("kex_copy_sse_unroll_64_scratch_4_t_fwd: passed: 16785464 calls, every byte and return value as "
                     "the C library's (", 0) == 0);
  CHECK(r.text.find("\nkex_clear_sse_unroll_64_scratch_4_t_fwd: passed: 524656 calls, ") !=
        std::string::npos);  // 2 fills x (4098 x 64 + 56)
  CHECK(shell("ls -A " + dir.path).text == "");  // no temporary folder left, nothing written
}

TEST_CASE("kex emit --test: a 2-row memcpy dispatch and a memset kernel in C pass, -o written too" *
          doctest::test_suite("emit")) {
  if (!emit_test_tools()) {
    MESSAGE("cc or as not installed: nothing built");
    return;
  }
  TmpDir dir;
  // A dispatch is checked as the one function the file exports.
  auto r = emit_test_run(dir, "--dispatch '2K:copy/sse/unroll:64/overlap,rep_movsb' --format c");
  CHECK_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.rfind("kex_memcpy: passed: 16785464 calls, ", 0) == 0);
  CHECK(line_count(r.text) == 1);
  CHECK(shell("ls -A " + dir.path).text == "");
  // With -o the source is written too, and standard output has the verdicts only.
  r = emit_test_run(dir, "clear/sse/unroll:64 --format c -o k.c");
  CHECK_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.rfind("kex_clear_sse_unroll_64_scratch_4_t_fwd: passed: 524656 calls, ", 0) == 0);
  CHECK(line_count(r.text) == 1);
  CHECK(slurp(dir / "k.c").find("kex_clear_sse_unroll_64_scratch_4_t_fwd_code") != std::string::npos);
  CHECK(shell("ls -A " + dir.path).text == "k.c\n");
}

TEST_CASE("kex emit --test: a run past --test-timeout is killed, a failing verdict and exit status 1" *
          doctest::test_suite("emit")) {
  if (!emit_test_tools()) {
    MESSAGE("cc or as not installed: nothing built");
    return;
  }
  TmpDir dir;
  const auto r = emit_test_run(dir, "copy/sse/unroll:64 --format gas --test-timeout 0.05");
  CHECK(r.status == 1);
  CHECK(r.text == "kex_copy_sse_unroll_64_scratch_4_t_fwd: failed: did not finish within 50 ms: killed\n");
  CHECK(shell("ls -A " + dir.path).text == "");
}

TEST_CASE("kex emit --test: bad options and a missing compiler, one line and exit status 2" *
          doctest::test_suite("emit")) {
  TmpDir dir;
  auto r = emit_test_run(dir, "rep_movsb --format gas -o -");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: -o: '-': --test prints its verdicts on standard output; give -o a file, or leave it out\n");
  for (const char* bad : {"0", "1e9", "nan"}) {
    r = emit_test_run(dir, std::string("rep_movsb --format gas --test-timeout ") + bad);
    CHECK(r.status == 2);
    CHECK(r.text == "kex: --test-timeout: '" + std::string(bad == std::string("1e9") ? "1000000000" : bad) +
                        "': allowed: 0.01 to 3600 (seconds)\n");
  }
  r = emit_test_run(dir, "rep_movsb --format gas --test-timeout soon");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: Could not convert: --test-timeout = soon (see kex emit --help)\n");
  r = shell("cd " + dir.path + " && " + kKex + " emit rep_movsb --format gas --test-timeout 5");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --test-timeout: applies to --test only (the time each function's test run may take)\n");
  r = emit_test_run(dir, "memcpy --format gas");  // kex emit's own refusals come first
  CHECK(r.status == 2);
  CHECK(r.text == "kex: kex emit: 'memcpy' is the C library's; it can be a --dispatch row, not an emitted kernel\n");
  r = shell("cd " + dir.path + " && PATH=/kex-no-such-folder " + kKex + " emit rep_movsb --format c --test");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --test: cannot run cc, the C compiler (ENOENT (No such file or directory)): install the "
                  "Debian package gcc\n");
  CHECK(shell("ls -A " + dir.path).text == "");
}

TEST_CASE("kex emit --test: a SIGINT kills the test program, removes the folder and stops kex by that signal" *
          doctest::test_suite("emit")) {
  if (!emit_test_tools()) {
    MESSAGE("cc or as not installed: nothing built");
    return;
  }
  TmpDir dir, logs;
  const char* old = std::getenv("TMPDIR");
  const std::string kept = old ? old : "";
  setenv("TMPDIR", dir.path.c_str(), 1);  // the child's, inherited
  KexChild kex({"emit", "copy/sse/unroll:64", "--format", "gas", "--test"}, logs / "log");
  if (old) setenv("TMPDIR", kept.c_str(), 1);
  else unsetenv("TMPDIR");
  // Built: the program runs (a copy's check takes seconds).
  REQUIRE(wait_until([&] { return shell("ls " + dir.path + "/kex-emit-test-*/test >/dev/null 2>&1").status == 0; }));
  const auto [status, seconds] = kex.stop({SIGINT});
  CHECK(status == 128 + SIGINT);
  CHECK(seconds < 5);
  CHECK(shell("ls -A " + dir.path).text == "");
  CHECK(slurp(logs / "log") == "");  // no verdict for a run the stop killed
}
