// check_emitted (src/results/emit_check.hpp), kex emit --test's builder and runner: an emitted
// kernel with one store broken fails with the program's first line; a program that outlives
// its time limit is killed and says so; a source that does not compile is the build's
// verdict; a missing compiler is refused naming its Debian package; the temporary folder is
// gone afterwards.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "src/core/error.hpp"
#include "src/results/emit_check.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

bool emit_check_cc() { return shell("command -v cc >/dev/null 2>&1 && command -v as >/dev/null 2>&1").status == 0; }

/// TMPDIR pointed at a folder of the test's while it lives, so the test sees what is left there.
struct EmitCheckTmp {
  TmpDir dir;
  std::string old;
  bool had = false;
  EmitCheckTmp() {
    if (const char* t = std::getenv("TMPDIR")) had = true, old = t;
    setenv("TMPDIR", dir.path.c_str(), 1);
  }
  ~EmitCheckTmp() {
    if (had) setenv("TMPDIR", old.c_str(), 1);
    else unsetenv("TMPDIR");
  }
  /// What is left in the folder.
  std::string left() const { return shell("ls -A " + dir.path).text; }
};

const char* kCheckSymbol = "kex_copy_sse_unroll_64_scratch_4_t_fwd";

}  // namespace

TEST_CASE("check_emitted: one store of the emitted loop broken, the verdict is the program's failure line" *
          doctest::test_suite("emit")) {
  if (!emit_check_cc()) {
    MESSAGE("cc or as not installed: nothing built");
    return;
  }
  EmitCheckTmp tmp;
  TmpDir work;
  const auto e = shell("cd " + work.path + " && " + kKex +
                       " emit copy/sse/unroll:64 --format gas --test-program t.c -o k.s");
  REQUIRE_MESSAGE(e.status == 0, e.text);
  EmitCheckInput in{slurp(work / "k.s"), SourceFormat::gas, slurp(work / "t.c"), {kCheckSymbol}};
  std::vector<EmitCheckVerdict> v = check_emitted(in);
  REQUIRE(v.size() == 1);
  CHECK(v[0].passed);
  CHECK(v[0].line.rfind(std::string(kCheckSymbol) + ": passed: 16785464 calls, every byte and return value as the C "
                        "library's (", 0) == 0);
  // The loop's last store one vector low (as tests/cli/test_emit_test_program.cpp breaks it).
  const std::string store = "movdqu xmmword ptr [rdi + 0x30], xmm3";
  REQUIRE(in.source.find(store) != std::string::npos);
  in.source.replace(in.source.find(store), store.size(), "movdqu xmmword ptr [rdi + 0x20], xmm3");
  std::vector<EmitCheckVerdict> seen;
  EmitCheckOptions noting;
  noting.on_verdict = [&](const EmitCheckVerdict& x) { seen.push_back(x); };
  v = check_emitted(in, noting);
  REQUIRE(v.size() == 1);
  CHECK(!v[0].passed);
  CHECK(v[0].line ==
        std::string(kCheckSymbol) + ": failed: " + kCheckSymbol + " n=64 src+0 dst+0: byte 32 is 0xda, expected 0xea");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].line == v[0].line);
  CHECK(tmp.left() == "");
}

TEST_CASE("check_emitted: a program past its time limit is killed and its verdict says so" *
          doctest::test_suite("emit")) {
  if (!emit_check_cc()) {
    MESSAGE("cc not installed: nothing built");
    return;
  }
  EmitCheckTmp tmp;
  const EmitCheckInput in{"", SourceFormat::c, "#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n",
                          {"kex_slow"}};
  EmitCheckOptions opts;
  opts.run_timeout = std::chrono::milliseconds(200);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<EmitCheckVerdict> v = check_emitted(in, opts);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  REQUIRE(v.size() == 1);
  CHECK(!v[0].passed);
  CHECK(v[0].line == "kex_slow: failed: did not finish within 200 ms: killed");
  CHECK(tmp.left() == "");
}

TEST_CASE("check_emitted: a source that does not compile, a program that prints no ok, a missing compiler" *
          doctest::test_suite("emit")) {
  if (!emit_check_cc()) {
    MESSAGE("cc not installed: nothing built");
    return;
  }
  EmitCheckTmp tmp;
  EmitCheckInput in{"this is not C\n", SourceFormat::c, "int main(void) { return 0; }\n", {"kex_x"}};
  std::vector<EmitCheckVerdict> v = check_emitted(in);
  REQUIRE(v.size() == 1);
  CHECK(v[0].function == "build");
  CHECK(!v[0].passed);
  CHECK(v[0].line.rfind("build: failed: cc exit status 1: kernels.c:1:", 0) == 0);
  // Exit status 0 without the ok line is no pass; a crash is named with what it printed.
  in.source = "";
  CHECK(check_emitted(in)[0].line == "kex_x: failed: exit status 0");
  in.program = "#include <stdio.h>\n#include <signal.h>\nint main(void) { printf(\"half\\x1b[2J\\n\"); fflush(stdout); "
               "raise(SIGSEGV); return 0; }\n";
  CHECK(check_emitted(in)[0].line == "kex_x: failed: killed by SIGSEGV: half\\x1b[2J");
  EmitCheckOptions opts;
  opts.compiler = "kex-no-such-cc-51";
  try {
    check_emitted(in, opts);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "--test: cannot run kex-no-such-cc-51, the C compiler (ENOENT (No such file or "
                                   "directory)): install the Debian package gcc");
  }
  // A compiler that cannot run the assembler (binutils missing) says so as gcc does.
  TmpDir bin;
  spit(bin / "cc",
       "#!/bin/sh\necho \"cc: fatal error: cannot execute 'as': execvp: No such file or directory\"\nexit 1\n");
  REQUIRE(shell("chmod +x " + bin / "cc").status == 0);
  opts.compiler = bin / "cc";
  try {
    check_emitted(in, opts);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--test: " + bin / "cc" + " cannot run as, the assembler: install the Debian package binutils");
  }
  CHECK(tmp.left() == "");
}
