// The read op: every class that reads, over its axes, stores read_fold of its source at
// dst (checked by the verifier at every size and offset it tries); a kernel whose fold
// is wrong is caught; the classes and axes a read refuses say why.
#include <doctest/doctest.h>

#include <cstring>

#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/run/verify.hpp"

using namespace kex;

namespace {

/// Reads over every class that has one: unroll 1, 3 and 8 widths, scratch 1, 2 and the
/// most a read takes, both directions and alignments, no prefetch, nta and a load prefetch.
std::vector<KernelSpec> read_grid() {
  std::vector<KernelSpec> out;
  for (const auto& ci : reg_classes()) {
    const KernelSpec base = default_spec(Op::read, ci.cls);
    if (!validate(base).empty()) continue;  // x87, string
    for (uint32_t mult : {1u, 3u, 8u})
      for (uint32_t scratch : {1u, 2u, ci.max_scratch / 2})
        for (auto dir : {Direction::forward, Direction::backward})
          for (auto align : {Align::unaligned, Align::aligned})
            for (int pf = 0; pf < 3; ++pf) {
              KernelSpec s = base;
              s.unroll = ci.width * mult * (ci.width < 16 ? 2 : 1);
              s.scratch = scratch;
              s.direction = dir;
              s.align = align;
              if (pf == 1) s.prefetch = Prefetch::nta, s.pf_distance = dir == Direction::forward ? 256 : -256;
              if (pf == 2) s.prefetch = Prefetch::load, s.pf_distance = dir == Direction::forward ? 32 : -96, s.pf_every = 32;
              if (!validate(s).empty() || !cpu_unsupported_reason(s).empty()) continue;
              out.push_back(s);
            }
  }
  return out;
}

VerifyTarget read_target(KernelFn fn, const KernelSpec& s) {
  VerifyTarget t;
  t.fn = fn;
  t.is_copy = false;
  t.is_read = true;
  t.alignment = required_alignment(s);
  t.width = reg_class_info(s.regs).width;
  t.unroll = s.unroll;
  return t;
}

/// A read whose fold is off by one bit once it has read 5 bytes or more.
void wrong_fold(void* dst, const void* src, size_t n) {
  uint64_t v = read_fold(static_cast<const uint8_t*>(src), n) ^ (n >= 5 ? 0x10 : 0);
  memcpy(dst, &v, 8);
}

/// A read that stores its fold one byte high (byte 0 keeps the canary, byte 8 is written).
void shifted(void* dst, const void* src, size_t n) {
  uint64_t v = read_fold(static_cast<const uint8_t*>(src), n);
  memcpy(static_cast<uint8_t*>(dst) + 1, &v, 8);
}

}  // namespace

TEST_CASE("read_fold: the XOR of every byte in the low byte, zero above" * doctest::test_suite("generator")) {
  const uint8_t b[] = {0x01, 0x02, 0x04, 0x80, 0xff};
  CHECK(read_fold(b, 0) == 0);
  CHECK(read_fold(b, 4) == 0x87);
  CHECK(read_fold(b, 5) == 0x78);
}

TEST_CASE("every read in the grid stores the fold of its source" * doctest::test_suite("generator")) {
  const auto specs = read_grid();
  CHECK(specs.size() > 100);
  CodeArena arena;
  std::vector<size_t> idx;
  for (const auto& s : specs) idx.push_back(arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); }));
  arena.finalize();
  std::vector<VerifyTarget> targets;
  for (size_t i = 0; i < specs.size(); ++i) targets.push_back(read_target(arena.ref(idx[i]).as<KernelFn>(), specs[i]));
  const auto res = verify_in_child(targets);
  int bad = 0;
  for (size_t i = 0; i < specs.size(); ++i)
    if (!res[i].empty() && bad++ < 20) FAIL_CHECK(spec_name(specs[i]) << ": " << res[i]);
  CHECK(bad == 0);
}

TEST_CASE("the verifier catches a read with a wrong fold, or its result in the wrong place" *
          doctest::test_suite("verify")) {
  const KernelSpec s = default_spec(Op::read, RegClass::sse);
  const std::string wrong = verify_in_process(read_target(&wrong_fold, s));
  CHECK(wrong.find(": byte 0 is 0x") != std::string::npos);
  CHECK(wrong.find("(the XOR of the source bytes)") != std::string::npos);
  const std::string moved = verify_in_process(read_target(&shifted, s));
  CHECK(moved.rfind("size 0, dst+0 src+0: byte 0 is", 0) == 0);
  // A copy kernel is no read: its dst holds the source, not the fold.
  CodeArena arena;
  const size_t k = arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, default_spec(Op::copy, RegClass::sse)); });
  arena.finalize();
  CHECK_FALSE(verify_in_child({read_target(arena.ref(k).as<KernelFn>(), s)})[0].empty());
}

TEST_CASE("read names: no store token, and what a read refuses" * doctest::test_suite("spec")) {
  CHECK(spec_name(default_spec(Op::read, RegClass::sse)) == "read/sse/unroll:64/scratch:4/fwd");
  CHECK(spec_name(default_spec(Op::read, RegClass::gpr)) == "read/gpr/unroll:64/scratch:4/fwd");
  CHECK(spec_name(default_spec(Op::read, RegClass::avx512)) == "read/avx512/unroll:256/scratch:4/fwd");
  const KernelSpec r = parse_spec_name("read/avx/unroll:256/pf:nta@512/bwd/aligned");
  CHECK(r.op == Op::read);
  CHECK(r.scratch == 4);
  CHECK(spec_name(r) == "read/avx/unroll:256/scratch:4/pf:nta@512/bwd/aligned");
  CHECK(parse_spec_name(spec_name(r)) == r);
  for (const auto& s : read_grid()) CHECK_MESSAGE(parse_spec_name(spec_name(s)) == s, spec_name(s));
  CHECK(validate(parse_spec_name("read/sse/unroll:256/scratch:9")) ==
        "scratch 9 is out of range for read/sse (1..8: a read keeps an accumulator beside each register)");
  CHECK(validate(parse_spec_name("read/sse/nt")) == "a read has no stores, so no non-temporal store");
  CHECK(validate(parse_spec_name("read/sse/overlap")) ==
        "a read takes no overlap edges (a byte loaded twice would fold twice)");
  CHECK(validate(parse_spec_name("read/x87")).find("the x87 class has no read form") == 0);
  CHECK(validate(parse_spec_name("read/string")).find("the string class has no read form") == 0);
  CHECK(validate(parse_spec_name("read/sse/fill:7")) == "fill applies to clear only");
  CHECK_THROWS_WITH(parse_spec_name("move/sse"), "unknown op 'move' (allowed: copy, clear, read)");
}
