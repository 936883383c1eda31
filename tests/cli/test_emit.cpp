// `kex emit`: the kernels it writes, as a GNU as source (Intel and AT&T) and as C,
// linked into a small C program that checks each wrapper and the size dispatches
// against memcpy/memset byte for byte (sizes 0..300 and page multiples, several src/dst
// offsets, guard bytes around dst, the return value); and its input errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "src/core/cpu_features.hpp"
#include "src/model/kernel_names.hpp"
#include "src/results/emit_kernels.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

bool emit_tool(const std::string& tool) { return run_sh("command -v " + tool + " >/dev/null 2>&1") == 0; }

/// The kernels under test: one per class and kind this CPU runs (chosen at run time,
/// so the test holds with and without AVX and AVX-512).
std::vector<std::string> emit_runnable_kernels() {
  const std::vector<std::string> candidates = {
      "copy/gpr",                                 // gpr
      "copy/sse/unroll:128/scratch:4/pf:nta@256",  // sse with prefetch
      "copy/sse/unroll:64/nt",                     // non-temporal (a head aligns dst)
      "copy/sse/unroll:64/aligned",                // 16-byte aligned only: the wrapper falls back
      "copy/avx/unroll:128/bwd",                   // backward, avx
      "copy/avx512/unroll:256",                    // avx512
      "clear/avx512/unroll:256/nt",
      "copy/mmx/unroll:64",
      "copy/x87/unroll:64",
      "rep_movsb",
      "clear/gpr/unroll:64/fill:0xaa",  // a clear of another byte than 0
      "clear/sse/unroll:128/bwd",
      "rep_stosb",
      "linux/copy_page",     // page preset: 4096-byte multiples only
      "linux/memcpy_orig",   // preset of any length
      "xmm64/xmm_clear",     // page preset that needs 16-byte alignment
  };
  std::vector<std::string> out;
  for (const auto& n : candidates) {
    const KernelPlan p = source_plan(n, {}, "test");
    if (p.skip.empty()) out.push_back(n);
    else MESSAGE(n << " not tested here: " << p.skip);
  }
  return out;
}

/// The C program: each copy and clear wrapper and both dispatches against libc.
std::string emit_harness(const std::vector<std::string>& kernels) {
  std::string decl, copies, clears;
  for (const auto& n : kernels) {
    const KernelPlan p = source_plan(n, {}, "test");
    const std::string sym = kernel_symbol(p.key);
    if (p.op == Op::copy) {
      decl += "void *" + sym + "(void *, const void *, size_t);\n";
      copies += "  {\"" + p.key + "\", " + sym + "},\n";
    } else {
      decl += "void *" + sym + "(void *, int, size_t);\n";
      clears += "  {\"" + p.key + "\", " + sym + "},\n";
    }
  }
  return R"(#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
)" + decl + R"(void *kex_memcpy(void *, const void *, size_t);
void *kex_memset(void *, int, size_t);
typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*clear_fn)(void *, int, size_t);
static const struct { const char *name; copy_fn f; } copies[] = {
)" + copies + R"(  {"kex_memcpy", kex_memcpy}};
static const struct { const char *name; clear_fn f; } clears[] = {
)" + clears + R"(  {"kex_memset", kex_memset}};
enum { GUARD = 64, MAXN = 3 * 4096 + 64 };
static unsigned char srcbuf[MAXN + 128] __attribute__((aligned(64)));
static unsigned char dstbuf[MAXN + 2 * GUARD + 128] __attribute__((aligned(64)));
static const size_t big[] = {1000, 4095, 4096, 4097, 8192, 12288, MAXN};
static const size_t soffs[] = {0, 1, 16, 33}, doffs[] = {0, 3, 16, 63};
static unsigned seed = 1;
static long checks;

static size_t size_at(size_t i) { return i <= 300 ? i : big[i - 301]; }
static unsigned char fives[sizeof dstbuf];
/* dst's buffer is 0x5a; the bytes outside [d, d + n) must stay so (memcmp first: fast). */
static int check(const char *name, size_t n, size_t so, size_t dof, const unsigned char *d, void *ret,
                 const unsigned char *want) {
  ++checks;
  if (ret != d) { printf("%s n=%zu src+%zu dst+%zu: returned %p, not dst\n", name, n, so, dof, ret); return 1; }
  const size_t before = (size_t)(d - dstbuf), after = sizeof dstbuf - before - n;
  if (!memcmp(dstbuf, fives, before) && !memcmp(d, want, n) && !memcmp(d + n, fives, after)) return 0;
  for (size_t k = 0; k < sizeof dstbuf; ++k) {
    const unsigned char *p = dstbuf + k;
    int inside = p >= d && p < d + n;
    unsigned char w = inside ? want[p - d] : 0x5a;
    if (*p != w) {
      printf("%s n=%zu src+%zu dst+%zu: byte %td is 0x%02x, expected 0x%02x\n", name, n, so, dof, p - d, *p, w);
      return 1;
    }
  }
  return 1;
}
int main(void) {
  static unsigned char want[MAXN];
  memset(fives, 0x5a, sizeof fives);
  for (size_t i = 0; i < 301 + sizeof big / sizeof *big; ++i) {
    size_t n = size_at(i);
    for (size_t a = 0; a < 4; ++a)
      for (size_t b = 0; b < 4; ++b) {
        unsigned char *s = srcbuf + soffs[a], *d = dstbuf + GUARD + doffs[b];
        for (size_t f = 0; f < sizeof copies / sizeof *copies; ++f) {
          for (size_t k = 0; k < n; ++k) s[k] = want[k] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
          memset(dstbuf, 0x5a, sizeof dstbuf);
          if (check(copies[f].name, n, soffs[a], doffs[b], d, copies[f].f(d, s, n), want)) return 1;
        }
        for (size_t f = 0; f < sizeof clears / sizeof *clears; ++f)
          for (int c = 0; c < 3; ++c) {
            int byte = c == 0 ? 0 : c == 1 ? 0xaa : 0x17;
            memset(want, byte, n);
            memset(dstbuf, 0x5a, sizeof dstbuf);
            if (check(clears[f].name, n, 0, doffs[b], d, clears[f].f(d, byte, n), want)) return 1;
          }
      }
  }
  printf("ok %ld checks\n", checks);
  return 0;
}
)";
}

/// Emits the copy kernels of `names` with the copy dispatch and the clears with the
/// clear dispatch in `format` (and `syntax`), links both with the harness and runs it;
/// "ok N checks" on success.
std::string emit_build_and_run(const std::string& dir, const std::string& copies, const std::string& clears,
                          const std::string& format, const std::string& syntax) {
  const std::string ext = format == "c" ? ".c" : ".s";
  const std::string copy = dir + "/copy-" + syntax + ext, clear = dir + "/clear-" + syntax + ext,
                    exe = dir + "/t-" + format + "-" + syntax;
  auto a = shell(kKex + " emit " + copies + " --format " + format + " --syntax " + syntax +
                 " --dispatch '16:memcpy,64:copy/gpr,256:rep_movsb,4095:copy/sse/unroll:64/nt,linux/copy_page'"
                 " --op copy -o " + copy);
  REQUIRE_MESSAGE(a.status == 0, a.text);
  auto b = shell(kKex + " emit " + clears + " --format " + format + " --syntax " + syntax +
                 " --dispatch '128:rep_stosb,1K:clear/gpr/unroll:64/fill:0xaa,4K:clear/sse/unroll:128/bwd,memset'"
                 " --name kex_memset -o " + clear);
  REQUIRE_MESSAGE(b.status == 0, b.text);
  auto cc = shell("cc -O2 -Wall -Wextra -Werror -o " + exe + " " + dir + "/harness.c " + copy + " " + clear);
  REQUIRE_MESSAGE(cc.status == 0, cc.text);
  return shell(exe).text;
}

}  // namespace

TEST_CASE("kex emit: gas and C kernels and dispatches linked into a C program equal memcpy/memset" *
          doctest::test_suite("emit")) {
  if (!emit_tool("as") || !emit_tool("cc")) {
    MESSAGE("as or cc not installed: emitted sources not assembled");
    return;
  }
  const auto kernels = emit_runnable_kernels();
  REQUIRE(kernels.size() >= 10);
  TmpDir d;
  spit(d / "harness.c", emit_harness(kernels));
  std::string copies, clears;
  long n_copy = 1, n_clear = 1;  // the dispatches
  for (const auto& k : kernels) {
    const bool copy = source_plan(k, {}, "test").op == Op::copy;
    (copy ? copies : clears) += " '" + k + "'";
    ++(copy ? n_copy : n_clear);
  }
  // 308 sizes x 16 offset pairs x (each copy once, each clear with 3 bytes)
  const std::string want = "ok " + std::to_string(308 * 16 * (n_copy + 3 * n_clear)) + " checks\n";
  for (const auto& [format, syntax] : std::vector<std::pair<std::string, std::string>>{
           {"gas", "intel"}, {"gas", "att"}, {"c", "intel"}}) {
    CAPTURE(format);
    CAPTURE(syntax);
    CHECK(emit_build_and_run(d.path, copies, clears, format, syntax) == want);
  }
}

TEST_CASE("kex emit --format c: a wrapper checks the CPU on its first call, so AVX-512 code is safe anywhere" *
          doctest::test_suite("emit")) {
  const auto text = shell(kKex + " emit copy/avx512/unroll:256 copy/gpr --format c");
  REQUIRE_MESSAGE(text.status == 0, text.text);
  const std::string sym = "kex_copy_avx512_unroll_256_scratch_4_t_fwd";
  CHECK(text.text.find("static int " + sym + "_usable = -1;\n") != std::string::npos);
  CHECK(text.text.find("usable = (__builtin_cpu_supports(\"avx512f\")) ? 1 : 0;") != std::string::npos);
  CHECK(text.text.find("if (!usable) return memcpy(dst, src, n);") != std::string::npos);
  CHECK(text.text.find("kex_copy_gpr_unroll_64_scratch_4_t_fwd_usable") == std::string::npos);  // x86-64 only: no check
  if (!emit_tool("as") || !emit_tool("cc")) {
    MESSAGE("cc not installed: the emitted C not linked");
    return;
  }
  // Linked and run on every CPU: without AVX-512 every call goes to libc (no SIGILL), with
  // it the code runs; the results equal memcpy's and memset's either way.
  const std::vector<std::string> kernels = {"copy/avx512/unroll:256", "copy/gpr", "copy/sse/unroll:64/nt",
                                            "rep_movsb", "linux/copy_page", "clear/avx512/unroll:256/nt",
                                            "clear/gpr/unroll:64/fill:0xaa", "clear/sse/unroll:128/bwd", "rep_stosb"};
  TmpDir d;
  spit(d / "harness.c", emit_harness(kernels));
  const std::string copies = " 'copy/avx512/unroll:256' 'copy/gpr' 'copy/sse/unroll:64/nt' rep_movsb linux/copy_page",
                    clears = " 'clear/avx512/unroll:256/nt' 'clear/gpr/unroll:64/fill:0xaa' 'clear/sse/unroll:128/bwd' rep_stosb";
  CHECK(emit_build_and_run(d.path, copies, clears, "c", "intel") == "ok " + std::to_string(308 * 16 * (6 + 3 * 5)) + " checks\n");
}

/// A C program that calls kex_memcpy at every size 0..100 beside its own memcpy (which the
/// wrapper's libc fallback reaches, counted): prints "ok", whether libc was called and
/// whether the CPU has AVX-512F, BW and VL.
const char* kCpuCheckMain = R"(#include <stdio.h>
static int libc_calls;
void *memcpy(void *d, const void *s, unsigned long n) {
  unsigned char *a = d;
  const unsigned char *b = s;
  ++libc_calls;
  while (n--) *a++ = *b++;
  return d;
}
void *kex_memcpy(void *, const void *, unsigned long);
int main(void) {
  unsigned char src[101], dst[101];
  int ok = 1;
  for (int i = 0; i < 101; ++i) src[i] = (unsigned char)(i * 7 + 1);
  for (unsigned long n = 0; n <= 100; ++n) {
    for (int i = 0; i < 101; ++i) dst[i] = 0;
    if (kex_memcpy(dst, src, n) != dst) ok = 0;
    for (unsigned long i = 0; i < 101; ++i) if (dst[i] != (i < n ? src[i] : 0)) ok = 0;
  }
  __builtin_cpu_init();
  int has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  printf("%s libc:%d avx512bw:%d\n", ok ? "ok" : "WRONG", libc_calls > 0, has);
  return 0;
}
)";

TEST_CASE("kex emit --format gas: an indirect function asks CPUID and XGETBV when bound and goes to libc without the features" *
          doctest::test_suite("emit")) {
  const std::string name = "copy/avx512/unroll:64/scratch:1/t/fwd/overlap/small:mask";
  const auto text = shell(kKex + " emit --format gas --dispatch '" + name + "'");
  REQUIRE_MESSAGE(text.status == 0, text.text);
  const std::string sym = ".Lkex_copy_avx512_unroll_64_scratch_1_t_fwd_overlap_small_mask";
  const std::string wrapper = sym.substr(2);  // the symbol itself: .L dropped
  for (const std::string& line : std::vector<std::string>{"\tendbr64\n", "\tbt ebx, 16\n", "\tbt ebx, 30\n", "\tbt ebx, 31\n", "\tbt ecx, 27\n",
                                  "\txgetbv\n", "\tand eax, 0xe6\n", "\t.type " + wrapper + ", %gnu_indirect_function\n",
                                  "\tlea rax, [rip + " + sym + "_nocheck]\n\tpop rbx\n\tret\n",
                                  wrapper + "_nocheck:\n" + sym + "_nocheck:\n\tendbr64\n\tmov rax, rdi\n\tjmp " + wrapper + "_kernel\n",
                                  "\t.pushsection .text.unlikely,\"ax\",@progbits\n"})
    CHECK_MESSAGE(text.text.find(line) != std::string::npos, line);
  CHECK(text.text.find("usable") == std::string::npos);  // no byte: nothing writable, no load per call
  CHECK(text.text.find(".data") == std::string::npos);
  const auto gpr = shell(kKex + " emit --format gas copy/gpr");  // x86-64 alone: no check
  CHECK(gpr.text.find("cpuid") == std::string::npos);
  if (!emit_tool("as") || !emit_tool("cc")) {
    MESSAGE("as or cc not installed: the emitted gas not linked");
    return;
  }
  // Run here: with AVX-512BW the kernel moves every size, libc never called; without it libc
  // does. The resolver's answer forced to libc (a CPU without them) sends every call to libc on
  // any machine: the dispatch's own resolver, as its one row keeps rax and it jumps into the code.
  TmpDir d;
  spit(d / "main.c", kCpuCheckMain);
  spit(d / "k.s", text.text);
  std::string lacking = text.text;
  const std::string usable = "\tlea rax, [rip + .Lkex_memcpy_nocheck]\n";
  REQUIRE(lacking.find(usable) != std::string::npos);
  lacking.replace(lacking.find(usable), usable.size(), "\tlea rax, [rip + .Lkex_memcpy_libc]\n");
  spit(d / "lacking.s", lacking);
  for (const char* s : {"k", "lacking"}) {
    const std::string exe = d / s;
    const auto cc = shell("cc -O0 -fno-builtin -o " + exe + " " + (d / "main.c") + " " + (d / (std::string(s) + ".s")));
    REQUIRE_MESSAGE(cc.status == 0, cc.text);
    const auto run = shell(exe);
    REQUIRE(run.status == 0);
    const bool has = run.text.find("avx512bw:1") != std::string::npos;
    CHECK(run.text.rfind("ok libc:", 0) == 0);
    CHECK_MESSAGE(run.text.find(std::string(s) == "lacking" || !has ? "libc:1" : "libc:0") != std::string::npos, run.text);
  }
}

TEST_CASE("kex emit: bad input exits 2 with one line, and -o never overwrites without --force" *
          doctest::test_suite("emit")) {
  TmpDir d;
  auto none = shell(kKex + " emit --format c");
  CHECK(none.status == 2);
  CHECK(none.text == "kex: kex emit: name a kernel, or give --dispatch\n");
  auto bad = shell(kKex + " emit copy/sse/unroll:63 --format c");
  CHECK(bad.status == 2);
  CHECK(bad.text.rfind("kex: kex emit: 'copy/sse/unroll:63': unroll 63 is not a positive multiple", 0) == 0);
  auto unknown = shell(kKex + " emit nosuch --format gas");
  CHECK(unknown.status == 2);
  CHECK(unknown.text.find("no preset is called 'nosuch'") != std::string::npos);
  auto libc = shell(kKex + " emit memcpy --format gas");
  CHECK(libc.text == "kex: kex emit: 'memcpy' is the C library's; it can be a --dispatch row, not an emitted kernel\n");
  auto order = shell(kKex + " emit --format c --dispatch '4K:rep_movsb,256:copy/gpr,memcpy'");
  CHECK(order.status == 2);
  CHECK(order.text == "kex: --dispatch: '256:copy/gpr': the bound 256 is not above the previous one (4096); bounds "
                      "must ascend\n");
  auto mixed = shell(kKex + " emit --format c --dispatch '256:rep_movsb,rep_stosb'");
  CHECK(mixed.text == "kex: --dispatch: 'rep_stosb' is a clear kernel; the dispatch is a copy (its first row)\n");
  // A read kernel has neither memcpy's nor memset's signature: no dispatch, whatever names the op.
  auto read = shell(kKex + " emit --format c --dispatch 'read/gpr'");
  CHECK(read.status == 2);
  CHECK(read.text == "kex: --dispatch: 'read/gpr/unroll:64/scratch:4/fwd' is a read kernel: a dispatch is of copy or "
                     "clear kernels\n");
  auto op = shell(kKex + " emit --format c --dispatch 'rep_movsb' --op clear");
  CHECK(op.text == "kex: --dispatch: 'rep_movsb' is a copy kernel; the dispatch is a clear (--op)\n");
  auto name = shell(kKex + " emit --format c --dispatch 'rep_movsb' --name 'x; system'");
  CHECK(name.text == "kex: --name: 'x; system': a C identifier of a-z, 0-9 and _ (not starting with a digit)\n");
  auto clash = shell(kKex + " emit --format c --dispatch 'rep_movsb' --name kex_rep_movsb");
  CHECK(clash.status == 2);
  CHECK(clash.text.find("would both define the symbol kex_rep_movsb") != std::string::npos);
  auto no_dispatch = shell(kKex + " emit rep_movsb --format c --op copy");
  CHECK(no_dispatch.text == "kex: --op: only with --dispatch\n");
  spit(d / "mine.c", "mine\n");
  auto over = shell(kKex + " emit rep_movsb --format c -o " + (d / "mine.c"));
  CHECK(over.status == 2);
  CHECK(slurp(d / "mine.c") == "mine\n");
  CHECK(shell(kKex + " emit rep_movsb --format c --force -o " + (d / "mine.c")).status == 0);
  CHECK(slurp(d / "mine.c").find("void *kex_rep_movsb(void *dst, const void *src, size_t n) {") != std::string::npos);
  auto res = shell(kKex + " emit rep_movsb --format c --results " + (d / "missing.json"));
  CHECK(res.status == 2);
}

TEST_CASE("kex show --format s marks the main loop for llvm-mca" * doctest::test_suite("emit")) {
  auto s = shell_stdout(kKex + " show copy/avx/unroll:128/nt --format s");
  REQUIRE(s.status == 0);
  CHECK(s.text.find("# LLVM-MCA-BEGIN kex_copy_avx_unroll_128_scratch_4_nt_fwd\n") != std::string::npos);
  CHECK(s.text.find("# LLVM-MCA-END\n") != std::string::npos);
  CHECK(s.text.find("# LLVM-MCA-BEGIN") < s.text.find("vmovntdq"));
  CHECK(s.text.find("vmovntdq") < s.text.find("# LLVM-MCA-END"));
  auto rep = shell_stdout(kKex + " show copy/string/unroll:1 --format s");
  CHECK(rep.text.find("LLVM-MCA") == std::string::npos);
  if (!emit_tool("llvm-mca")) {
    MESSAGE("llvm-mca not installed: the marked region not analysed");
    return;
  }
  TmpDir d;
  spit(d / "k.s", s.text);
  auto mca = shell("llvm-mca -mtriple=x86_64 -mcpu=x86-64-v3 -iterations=10 " + (d / "k.s"));
  REQUIRE_MESSAGE(mca.status == 0, mca.text);
  CHECK(mca.text.find("Code Region - kex_copy_avx_unroll_128_scratch_4_nt_fwd") != std::string::npos);
}

TEST_CASE("kex emit --format gas: the emitted memcpy races back as asm/ by its unchecked entry, the indirect function and a jump to libc are refused there" *
          doctest::test_suite("emit")) {
  if (!emit_tool("as")) {
    MESSAGE("as not installed: nothing loaded");
    return;
  }
  TmpDir d;
  // The avx row needs AVX: the dispatch kex_memcpy is an indirect function, which the arena's loader
  // does not take as code; kex_memcpy_nocheck (run only where the CPU has AVX) it does.
  const auto text = shell(kKex + " emit --format gas --dispatch '256:copy/sse/unroll:64/overlap/small:overlap,copy/avx/unroll:64/overlap' -o " +
                          (d / "t.s"));
  REQUIRE_MESSAGE(text.status == 0, text.text);
  REQUIRE(slurp(d / "t.s").find("\t.type kex_memcpy, %gnu_indirect_function\n") != std::string::npos);
  const std::string run = kKex + " run -q --sizes 1,7,64,300,5000 --repetitions 1 --no-plot --no-report -o ";
  if (host_features().has(Feature::avx)) {
    const auto ok = shell(run + (d / "ok.json") + " --load t=" + (d / "t.s") + ":kex_memcpy_nocheck:copy asm/t");
    CHECK_MESSAGE(ok.status == 0, ok.text);
    CHECK(slurp(d / "ok.json").find("\"asm/t\"") != std::string::npos);
    CHECK(slurp(d / "ok.json").find("\"error_occurred\": true") == std::string::npos);  // verified at every size
  }
  const auto ifunc = shell(run + (d / "i.json") + " --load t=" + (d / "t.s") + ":kex_memcpy:copy asm/t");
  CHECK(ifunc.status == 2);
  CHECK_MESSAGE(ifunc.text.find("no code symbol 'kex_memcpy'") != std::string::npos, ifunc.text);
  CHECK(ifunc.text.find("kex_memcpy_nocheck") != std::string::npos);  // named among the functions there
  // A memset's entry jumps to libc's memset for another fill byte: nothing in the arena defines it.
  REQUIRE(shell(kKex + " emit --format gas clear/sse/unroll:64 -o " + (d / "c.s")).status == 0);
  const auto clear = shell(run + (d / "c.json") + " --load c=" + (d / "c.s") + ":kex_clear_sse_unroll_64_scratch_4_t_fwd_nocheck:clear asm/c");
  CHECK(clear.status == 2);
  CHECK_MESSAGE(clear.text.find("R_X86_64_PLT32 against 'memset' at .text.unlikely+") != std::string::npos, clear.text);
}

TEST_CASE("kex emit --format gas: an entry that falls into its code starts 7 bytes before it, so no padding runs per call" *
          doctest::test_suite("emit")) {
  if (!emit_tool("as") || !emit_tool("nm")) {
    MESSAGE("as or nm not installed: nothing assembled");
    return;
  }
  TmpDir d;
  for (const char* syntax : {"intel", "att"}) {
    CAPTURE(syntax);
    const auto e = shell(kKex + " emit --format gas --syntax " + syntax + " --dispatch copy/sse/unroll:64 --force -o " + (d / "f.s"));
    REQUIRE_MESSAGE(e.status == 0, e.text);
    REQUIRE(shell("as -o " + (d / "f.o") + " " + (d / "f.s")).status == 0);
    const auto nm = shell("nm " + (d / "f.o"));
    REQUIRE(nm.status == 0);
    auto address = [&](const std::string& symbol) -> long long {
      const size_t at = nm.text.find(" T " + symbol + "\n");
      return at == std::string::npos ? -1 : std::stoll(nm.text.substr(nm.text.rfind('\n', at) + 1, 16), nullptr, 16);
    };
    const long long entry = address("kex_memcpy_nocheck"), code = address("kex_copy_sse_unroll_64_scratch_4_t_fwd_kernel");
    REQUIRE_MESSAGE((entry >= 0 && code >= 0), nm.text);
    CHECK(code % 64 == 0);
    CHECK(code - entry == 7);  // endbr64 (4 bytes) and mov rax, rdi (3), then the code itself
  }
}
