// `kex emit --test-program FILE` (src/results/emit_test.*): the C program it writes checks an
// emitted dispatch against the C library at every size 0..4097 and offset pair 0..63 and larger
// sizes, for --format gas and c; with one instruction of the emitted code broken it stops at the
// first wrong byte (or return value) with one line and exit status 1. Its option errors.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

bool test_program_tools() { return shell("command -v cc >/dev/null 2>&1 && command -v as >/dev/null 2>&1").status == 0; }

/// Builds `program` with `source` and runs it in `dir`: the program's output and status.
ShellOut build_and_run(const TmpDir& dir, const std::string& program, const std::string& source) {
  const auto cc = shell("cd " + dir.path + " && cc -O2 -Wall -Wextra -Werror -o t " + program + " " + source);
  REQUIRE_MESSAGE(cc.status == 0, cc.text);
  return shell("cd " + dir.path + " && ./t");
}

// Rows every x86-64 CPU runs, each code keeping rax (no gpr class, no clear's fill in rax), so
// the dispatch is the direct form: one CPU check, rax = dst, a jump into each row's code.
const char* kCopyTable = "'16:copy/sse/unroll:64/overlap/small:overlap,2K:copy/sse/unroll:128/overlap,"
                         "64K:rep_movsb,copy/sse/unroll:64/nt'";

}  // namespace

TEST_CASE("kex emit --test-program: an emitted dispatch passes at every size and offset, gas and C" *
          doctest::test_suite("emit")) {
  if (!test_program_tools()) {
    MESSAGE("cc or as not installed: the test program not built");
    return;
  }
  TmpDir dir;
  for (const char* format : {"gas", "c"}) {
    CAPTURE(format);
    const std::string src = std::string("m.") + (format == std::string("gas") ? "s" : "c");
    const auto e = shell("cd " + dir.path + " && " + kKex + " emit --format " + format + " --dispatch " + kCopyTable +
                         " --test-program test.c --force -o " + src);
    REQUIRE_MESSAGE(e.status == 0, e.text);
    if (format == std::string("gas"))  // the direct form: into each row's code, not its wrapper
      CHECK(slurp(dir / "m.s").find("\tmov rax, rdi\n\tcmp rdx, 16\n\tjbe kex_copy_sse_unroll_64_scratch_4_t_fwd_overlap_small_overlap_kernel\n") !=
            std::string::npos);
    const auto r = build_and_run(dir, "test.c", src);
    // every size 0..4097 at 64 x 64 offset pairs, and 14 larger sizes at 4 pairs
    CHECK(r.text == "ok: 16785464 calls, every byte and return value as the C library's\n");
    CHECK(r.status == 0);
  }
  // A clear dispatch: every dst offset, c = 0, 0x17 and the fill of the kernel that writes 0xaa.
  const auto m = shell("cd " + dir.path + " && " + kKex + " emit --format gas --dispatch '100:rep_stosb," +
                       "2K:clear/sse/unroll:64/fill:0xaa,memset' --test-program tm.c -o ms.s");
  REQUIRE_MESSAGE(m.status == 0, m.text);
  CHECK(slurp(dir / "tm.c").find("static const int fills[] = {0, 0x17, 170, -1};") != std::string::npos);
  const auto r = build_and_run(dir, "tm.c", "ms.s");
  CHECK(r.text == "ok: 786984 calls, every byte and return value as the C library's\n");  // 3 x (4098 x 64 + 56)
}

TEST_CASE("kex emit --test-program: one instruction broken, the program stops with one line naming the call" *
          doctest::test_suite("emit")) {
  if (!test_program_tools()) {
    MESSAGE("cc or as not installed: the test program not built");
    return;
  }
  TmpDir dir;
  const auto e = shell("cd " + dir.path + " && " + kKex + " emit copy/sse/unroll:64 --format gas --test-program test.c -o k.s");
  REQUIRE_MESSAGE(e.status == 0, e.text);
  const std::string k = "kex_copy_sse_unroll_64_scratch_4_t_fwd";
  const std::string good = slurp(dir / "k.s");
  // The loop's last store one vector low: src's bytes 48..63 land on dst's 32..47, and 48..63
  // stay as they were; the first call it shows in: 64 bytes, both offsets 0.
  const std::string store = "movdqu xmmword ptr [rdi + 0x30], xmm3";
  REQUIRE(good.find(store) != std::string::npos);
  std::string bad = good;
  bad.replace(bad.find(store), store.size(), "movdqu xmmword ptr [rdi + 0x20], xmm3");
  spit(dir / "bad.s", bad);
  auto r = build_and_run(dir, "test.c", "bad.s");
  CHECK(r.status == 1);
  CHECK(r.text == k + " n=64 src+0 dst+0: byte 32 is 0xda, expected 0xea\n");  // src: the program's fixed bytes
  // The wrapper's return value broken: rax = src instead of dst.
  const std::string ret = "_nocheck:\n\tendbr64\n\tmov rax, rdi\n";  // then the kernel itself (it falls in)
  REQUIRE(good.find(ret) != std::string::npos);
  bad = good;
  bad.replace(bad.find(ret), ret.size(), "_nocheck:\n\tendbr64\n\tmov rax, rsi\n");
  spit(dir / "bad.s", bad);
  r = build_and_run(dir, "test.c", "bad.s");
  CHECK(r.status == 1);
  CHECK(r.text.rfind(k + " n=0 src+0 dst+0: returned dst", 0) == 0);
  CHECK(r.text.find(", not dst\n") == r.text.size() - 10);
  // Unbroken it passes (the same program, the same kernel).
  CHECK(build_and_run(dir, "test.c", "k.s").status == 0);
}

TEST_CASE("kex emit --test-program: '-', -o's file or an existing file are refused, nothing written" *
          doctest::test_suite("emit")) {
  TmpDir dir;
  const std::string emit = "cd " + dir.path + " && " + kKex + " emit rep_movsb --format c ";
  auto r = shell(emit + "--test-program - -o k.c");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --test-program: '-': a file name (-o writes standard output)\n");
  r = shell(emit + "--test-program k.c -o k.c");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: --test-program: 'k.c' is also -o's file: give another\n");
  spit(dir / "t.c", "mine\n");
  r = shell(emit + "--test-program t.c -o k.c");
  CHECK(r.status == 2);
  CHECK(r.text.find("t.c") != std::string::npos);
  CHECK(slurp(dir / "t.c") == "mine\n");
  CHECK(shell("test -e " + dir.path + "/k.c").status != 0);  // the source was not written either
}
