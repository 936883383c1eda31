// The built stage: which plans get code, which keep a status, and the verification
// target a plan and its code give.
#include <doctest/doctest.h>

#include <csignal>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "generators/jit.hpp"
#include "src/run/built.hpp"
#include "src/run/plans.hpp"
#include "src/run/verify.hpp"

using namespace kex;

TEST_CASE("build_plans: used runnable plans get code, the rest keep their status or their function" *
          doctest::test_suite("built")) {
  const KernelSpec spec = default_spec(Op::copy, RegClass::gpr);
  KernelPlan skipped = spec_plan(spec);
  skipped.skip = "this CPU lacks avx512f";
  KernelPlan broken = spec_plan(spec);
  broken.error = "code generation failed: no such register";
  KernelPlan throwing = spec_plan(spec);
  throwing.emit = [](Xbyak::CodeGenerator&) { throw std::runtime_error("out of labels"); };
  const std::vector<KernelPlan> plans = {spec_plan(spec), spec_plan(spec), skipped, broken, *baseline_plan("memcpy"),
                                         throwing};
  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, plans, {true, false, true, true, true, true});
  REQUIRE(b.size() == 6);
  CHECK(arena.finalized());

  REQUIRE(b[0].code != nullptr);
  REQUIRE(b[0].info);
  CHECK(b[0].status == Status{});
  CHECK((b[0].fn == b[0].as<KernelFn>()));
  CHECK(b[0].info->fnv1a == fnv1a(b[0].code, b[0].info->bytes));
  std::vector<uint8_t> src(300), dst(300, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 1);
  b[0].fn(dst.data(), src.data(), 299);
  CHECK(std::memcmp(dst.data(), src.data(), 299) == 0);
  CHECK(dst[299] == 0);

  CHECK((b[1].fn == nullptr && b[1].code == nullptr && !b[1].info));  // not used: no code, still ok
  CHECK(b[1].status == Status{});
  CHECK(b[2].status == Status{StatusKind::skipped, "this CPU lacks avx512f"});
  CHECK(b[2].code == nullptr);
  CHECK(b[3].status == Status{StatusKind::error, "code generation failed: no such register"});
  CHECK(b[3].code == nullptr);
  // libc's memcpy is entered through a stub in the arena, as glibc's variants are, and its
  // code is not kex's: nothing of it is recorded.
  REQUIRE((b[4].fn != nullptr && b[4].code != nullptr));
  CHECK(!b[4].info);
  std::fill(dst.begin(), dst.end(), 0);
  b[4].fn(dst.data(), src.data(), 257);
  CHECK(std::memcmp(dst.data(), src.data(), 257) == 0);
  CHECK(dst[257] == 0);
  CHECK(b[5].status == Status{StatusKind::error, "code generation failed: out of labels"});
  CHECK((b[5].fn == nullptr && b[5].code == nullptr));
}

TEST_CASE("emit_kernels: a stop before emitting leaves every kernel without code" * doctest::test_suite("built")) {
  const volatile std::sig_atomic_t stop = 1;
  CodeArena arena;
  const std::vector<Built> b = emit_kernels(arena, {[](Xbyak::CodeGenerator& g) { g.ret(); }}, &stop);
  REQUIRE(b.size() == 1);
  CHECK((b[0].code == nullptr && b[0].status == Status{}));
  CHECK(arena.finalized());
  CHECK(arena.count() == 0);
}

TEST_CASE("verify_target: a plan's facts and its code, a page preset's sizes up to 3 regions" *
          doctest::test_suite("built")) {
  KernelSpec clear = default_spec(Op::clear, RegClass::sse);
  clear.fill = 0x5a;
  KernelPlan plan = spec_plan(clear);
  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, {plan});
  const VerifyTarget t = verify_target(plan, b[0]);
  CHECK((t.fn == b[0].fn));
  CHECK(!t.is_copy);
  CHECK(t.fill == 0x5a);
  CHECK(t.width == 16);
  CHECK(t.unroll == plan.unroll);
  CHECK(t.alignment == plan.alignment);
  CHECK(t.size_multiple == 1);
  CHECK(t.max_size == VerifyTarget{}.max_size);
  CHECK(t.code == b[0].code);
  CHECK(t.code_size == b[0].info->bytes);
  CHECK(verify_in_process(t) == "");

  KernelPlan page = plan;
  page.region = 4096;
  const VerifyTarget p = verify_target(page, Built{});
  CHECK(p.size_multiple == 4096);
  CHECK(p.max_size == 3 * 4096);
  CHECK((p.code == nullptr && p.code_size == 0));
}
