// Verification must catch wrong and faulting kernels, and say which.
#include <doctest/doctest.h>

#include "generators/jit.hpp"
#include "src/run/verify.hpp"

using namespace kex;

TEST_CASE("verification reports a kernel that writes past dst, and one that faults" * doctest::test_suite("verify")) {
  CodeArena arena;
  KernelSpec good = default_spec(Op::copy, RegClass::sse);
  size_t ok = arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, good); });
  // Copies correctly, then writes one extra byte after the end.
  size_t overrun = arena.add([&](Xbyak::CodeGenerator& g) {
    g.mov(g.rcx, g.rdx);
    g.mov(g.r8, g.rdi);
    g.rep();
    g.movsb();
    g.mov(g.byte[g.r8 + g.rdx], 0x77);
    g.ret();
  });
  // Reads address 0.
  size_t fault = arena.add([&](Xbyak::CodeGenerator& g) {
    g.xor_(g.eax, g.eax);
    g.mov(g.rax, g.qword[g.rax]);
    g.ret();
  });
  // Copies correctly, then writes its source's first byte.
  size_t clobber = arena.add([&](Xbyak::CodeGenerator& g) {
    Xbyak::Label done;
    g.mov(g.rcx, g.rdx);
    g.mov(g.r8, g.rsi);
    g.rep();
    g.movsb();
    g.test(g.rdx, g.rdx);
    g.jz(done);
    g.mov(g.byte[g.r8], 0x11);
    g.L(done);
    g.ret();
  });
  // Clears with the wrong byte.
  size_t wrong_fill = arena.add([&](Xbyak::CodeGenerator& g) {
    g.mov(g.rcx, g.rdx);
    g.mov(g.al, 1);
    g.rep();
    g.stosb();
    g.ret();
  });
  arena.finalize();
  auto target = [&](size_t i, bool copy) {
    VerifyTarget t;
    t.fn = arena.ref(i).as<KernelFn>();
    t.code = arena.ref(i).code;
    t.code_size = arena.ref(i).size;
    t.is_copy = copy;
    t.width = 16;
    return t;
  };
  auto res = verify_in_child({target(ok, true), target(overrun, true), target(fault, true), target(wrong_fill, false),
                              target(ok, true), target(clobber, true)});
  REQUIRE(res.size() == 6);
  CHECK(res[0] == "");
  // dst[n] is the first byte after dst's end (canary 0x5b there), as dst[-1] is the first before it.
  CHECK(res[1] == "size 0, dst+0 src+0: byte 1 after dst end is 0x77, expected 0x5b");
  // dst is right, but the source changed: kex compares with the source as it was before the call.
  CHECK_MESSAGE(res[5].rfind("size 1, dst+0 src+0: the source was written: byte 0 of src is 0x11, expected 0x", 0) == 0,
                res[5]);
  // xor eax, eax (2 bytes), then the load that faults: the death names the instruction and the address.
  CHECK(res[2] == "killed by SIGSEGV at code+0x2 touching 0x0 while verifying");
  CHECK(res[3].find("is 0x01, expected 0x00") != std::string::npos);
  CHECK(res[4] == "");  // a new child carries on after the crash
}

TEST_CASE("verification sizes cover the edges" * doctest::test_suite("verify")) {
  VerifyTarget t;
  t.width = 32;
  t.unroll = 128;
  auto s = verify_sizes(t);
  for (uint64_t want : {0ull, 1ull, 31ull, 127ull, 128ull, 129ull, 4095ull, 4096ull, 4097ull})
    CHECK_MESSAGE(std::find(s.begin(), s.end(), want) != s.end(), want);
  t.size_multiple = 4096;
  t.max_size = 17 * 4096;
  for (uint64_t x : verify_sizes(t)) CHECK(x % 4096 == 0);
}

TEST_CASE("verification_status: one mapping from a verdict to the status of what it verified" * doctest::test_suite("verify")) {
  Verification general{VerifyTarget{}, Verdict{}};
  CHECK(verification_status(general) == Status{});
  general.verdict = {"size 7, dst+0 src+0: byte 6 is 0x00, expected 0x5a", 0, std::nullopt};
  CHECK(verification_status(general) ==
        Status{StatusKind::error, "verification failed: size 7, dst+0 src+0: byte 6 is 0x00, expected 0x5a"});
  Verification placed = general;
  placed.target.layout = VerifyLayout{0, 64, std::nullopt, {4096}};
  placed.verdict = {"killed by SIGSEGV at code+0x3a touching 0x0 while verifying", 11, 0x3a};
  CHECK(verification_status(placed) ==
        Status{StatusKind::error,
               "verification at this placement failed: killed by SIGSEGV at code+0x3a touching 0x0 while verifying", 11,
               0x3a});
  Verification overlap = placed;
  overlap.target.layout->distance = 8;
  CHECK(verification_status(overlap).kind == StatusKind::error);  // a death stays an error
  overlap.verdict = {"size 64: byte 8 is 0x01, expected 0x00 (memmove)", 0, std::nullopt};
  CHECK(verification_status(overlap) ==
        Status{StatusKind::skipped, "refused: the kernel does not give memmove's result where src and dst overlap: "
                                    "size 64: byte 8 is 0x01, expected 0x00 (memmove)"});
}

TEST_CASE("verification refuses a routine that returns src where memcpy returns dst, one that clobbers rbx, MXCSR or the x87 control word" *
          doctest::test_suite("verify")) {
  CodeArena arena;
  // rep movsb, then the result in rax.
  const auto copy_returning = [&](const Xbyak::Reg64& result) {
    return arena.add([&, result](Xbyak::CodeGenerator& g) {
      g.mov(g.rax, result);
      g.mov(g.rcx, g.rdx);
      g.rep();
      g.movsb();
      g.ret();
    });
  };
  const size_t returns_dst = copy_returning(Xbyak::util::rdi), returns_src = copy_returning(Xbyak::util::rsi);
  // A right copy that leaves rbx and r13 changed (the verifier's own loop state, in kex's old build).
  const size_t clobbers = arena.add([&](Xbyak::CodeGenerator& g) {
    g.mov(g.rcx, g.rdx);
    g.rep();
    g.movsb();
    g.mov(g.rbx, 0x1234);
    g.xor_(g.r13d, g.r13d);
    g.ret();
  });
  // A right copy that leaves the direction flag set.
  const size_t leaves_df = arena.add([&](Xbyak::CodeGenerator& g) {
    g.mov(g.rcx, g.rdx);
    g.rep();
    g.movsb();
    g.std();
    g.ret();
  });
  // A right copy that sets MXCSR's rounding to toward zero, and one that changes the x87
  // control word's precision; both leave them so.
  const size_t rounds = arena.add([&](Xbyak::CodeGenerator& g) {
    g.sub(g.rsp, 8);
    g.stmxcsr(g.dword[g.rsp]);
    g.or_(g.dword[g.rsp], 0x6000);
    g.ldmxcsr(g.dword[g.rsp]);
    g.add(g.rsp, 8);
    g.mov(g.rcx, g.rdx);
    g.rep();
    g.movsb();
    g.ret();
  });
  const size_t x87cw = arena.add([&](Xbyak::CodeGenerator& g) {
    g.sub(g.rsp, 8);
    g.fnstcw(g.word[g.rsp]);
    g.and_(g.word[g.rsp], -769);  // 0xfcff: precision single
    g.fldcw(g.word[g.rsp]);
    g.add(g.rsp, 8);
    g.mov(g.rcx, g.rdx);
    g.rep();
    g.movsb();
    g.ret();
  });
  arena.finalize();
  const auto target = [&](size_t i, const std::string& promises) {
    VerifyTarget t;
    t.fn = arena.ref(i).as<KernelFn>();
    t.code = arena.ref(i).code;
    t.code_size = arena.ref(i).size;
    t.promises = promises;
    return t;
  };
  const auto res = verify_in_child({target(returns_dst, "memcpy"), target(returns_src, "memcpy"),
                                    target(returns_src, ""), target(clobbers, ""), target(leaves_df, ""),
                                    target(rounds, ""), target(x87cw, "")});
  REQUIRE(res.size() == 7);
  CHECK(res[0] == "");
  CHECK(res[1] == "size 0, dst+0 src+0: returns src, not dst as memcpy does");
  CHECK(res[2] == "");  // kex's own kernels promise no result
  CHECK(res[3] == "size 0, dst+0 src+0: changes rbx, r13, which a function must keep (callee-saved in the SysV ABI)");
  CHECK(res[4] == "size 0, dst+0 src+0: returns with the direction flag set (the SysV ABI wants it clear)");
  CHECK(res[5] == "size 0, dst+0 src+0: changes MXCSR's control bits, which a function must keep (callee-saved in the SysV ABI)");
  CHECK(res[6] == "size 0, dst+0 src+0: changes the x87 control word, which a function must keep (callee-saved in the SysV ABI)");
}

TEST_CASE("verification catches a read 8 KiB past the source's end, and one 1 MiB past it" * doctest::test_suite("verify")) {
  CodeArena arena;
  // A right copy that, at size 0, loads the byte `past` bytes beyond the source's end: at the
  // buffer's end that is past one guard page, in whatever mapping lies beyond (kex's old guard).
  const auto reads_past = [&](int32_t past) {
    return arena.add([&, past](Xbyak::CodeGenerator& g) {
      Xbyak::Label done;
      g.test(g.rdx, g.rdx);
      g.jnz(done);
      g.mov(g.al, g.byte[g.rsi + past]);
      g.L(done);
      g.mov(g.rcx, g.rdx);
      g.rep();
      g.movsb();
      g.ret();
    });
  };
  const size_t eight_k = reads_past(8192), one_m = reads_past(1 << 20);
  arena.finalize();
  const auto target = [&](size_t i) {
    VerifyTarget t;
    t.fn = arena.ref(i).as<KernelFn>();
    t.code = arena.ref(i).code;
    t.code_size = arena.ref(i).size;
    return t;
  };
  const auto res = verify_in_child({target(eight_k), target(one_m)});
  REQUIRE(res.size() == 2);
  // test rdx, rdx (3 bytes) and jnz (2): the load at code+0x5.
  CHECK(res[0].rfind("killed by SIGSEGV at code+0x5 touching 0x", 0) == 0);
  CHECK(res[1].rfind("killed by SIGSEGV at code+0x5 touching 0x", 0) == 0);
}
