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
