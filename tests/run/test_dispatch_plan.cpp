// A dispatch kernel's plan and code (issue 51, "a dispatch is a kernel"): one routine whose
// compare chain sends each size to its row's member, verified at every row's edges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "generators/disasm.hpp"
#include "generators/jit.hpp"
#include "src/core/cpu_features.hpp"
#include "src/run/built.hpp"
#include "src/run/dispatch_plan.hpp"
#include "src/run/plans.hpp"
#include "src/run/verify.hpp"

using namespace kex;

namespace {

/// The first instruction's bytes of `s` emitted alone.
std::vector<uint8_t> first_insn_bytes(const KernelSpec& s) {
  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, {spec_plan(s)});
  const auto insns = disassemble(b[0].code, b[0].info->bytes);
  return insns.front().bytes;
}

bool starts_with(const uint8_t* code, const std::vector<uint8_t>& bytes) {
  return std::memcmp(code, bytes.data(), bytes.size()) == 0;
}

}  // namespace

TEST_CASE("a dispatch kernel's compare chain reaches each row's member, and it verifies at every edge" *
          doctest::test_suite("dispatch")) {
  const DispatchKernel d = parse_dispatch_kernel("dispatch:64:copy/sse/overlap/small:overlap,4096:copy/gpr/unroll:128,rep_movsb");
  const KernelPlan p = dispatch_plan(d);
  CHECK(p.key == dispatch_kernel_name(d));
  CHECK(p.kind == KernelKind::dispatch);
  CHECK(p.op == Op::copy);
  CHECK(p.alignment == 1);
  CHECK(p.skip.empty());
  for (uint64_t e : {63ull, 64ull, 65ull, 4095ull, 4096ull, 4097ull, 15ull, 16ull, 17ull, 127ull, 128ull, 129ull})
    CHECK_MESSAGE(std::find(p.edges.begin(), p.edges.end(), e) != p.edges.end(), e);

  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, {p});
  REQUIRE(b[0].status == Status{});
  const VerifyTarget t = verify_target(p, b[0]);
  const std::vector<uint64_t> sizes = verify_sizes(t);
  for (uint64_t e : {63ull, 64ull, 65ull, 4095ull, 4096ull, 4097ull})
    CHECK_MESSAGE(std::find(sizes.begin(), sizes.end(), e) != sizes.end(), e);
  CHECK(verify_in_process(t) == "");

  // cmp rdx, 64 ; jbe row 0 ; cmp rdx, 4096 ; jbe row 1 ; then the last row's member falls through.
  const auto insns = disassemble(b[0].code, b[0].info->bytes);
  REQUIRE(insns.size() > 5);
  CHECK(insns[0].mnemonic == "cmp");
  CHECK(insns[0].operands == "rdx, 0x40");
  CHECK(insns[1].mnemonic == "jbe");
  CHECK(insns[2].operands == "rdx, 0x1000");
  CHECK(insns[3].mnemonic == "jbe");
  REQUIRE(insns[1].target);
  REQUIRE(insns[3].target);
  CHECK(starts_with(b[0].code + *insns[1].target, first_insn_bytes(d.members[0])));
  CHECK(starts_with(b[0].code + *insns[3].target, first_insn_bytes(d.members[1])));
  CHECK(starts_with(b[0].code + insns[4].offset, first_insn_bytes(d.members[2])));
}

TEST_CASE("a bound above 2^31 compares through r11, and edges above 1 MiB are left to the members" *
          doctest::test_suite("dispatch")) {
  const KernelPlan p = dispatch_plan(parse_dispatch_kernel("dispatch:8G:copy/gpr,copy/sse"));
  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, {p});
  const auto insns = disassemble(b[0].code, b[0].info->bytes);
  REQUIRE(insns.size() > 3);
  CHECK(insns[0].operands == "r11, 0x200000000");
  CHECK(insns[1].operands == "rdx, r11");
  CHECK(insns[2].mnemonic == "jbe");
  CHECK(std::find(p.edges.begin(), p.edges.end(), uint64_t(8) << 30) != p.edges.end());
  const VerifyTarget t = verify_target(p, b[0]);
  CHECK(t.max_size <= kMaxVerifyEdge);
  CHECK(std::none_of(t.edges.begin(), t.edges.end(), [](uint64_t e) { return e > kMaxVerifyEdge; }));
}

TEST_CASE("a dispatch whose member this CPU cannot run is skipped, naming the member, and rep:N's edges are verified" *
          doctest::test_suite("dispatch")) {
  const DispatchKernel d = parse_dispatch_kernel("dispatch:64:copy/avx512/overlap/small:mask,rep_movsb");
  const KernelPlan p = dispatch_plan(d);
  if (missing_features(spec_needs(d.members[0])).empty()) {
    CHECK(p.skip.empty());
    CodeArena arena;
    const std::vector<Built> b = build_plans(arena, {p});
    CHECK(verify_in_process(verify_target(p, b[0])) == "");
  } else {
    CHECK(p.skip.rfind(d.table.entries[0].kernel + ": ", 0) == 0);
  }
  const KernelPlan r = spec_plan(parse_spec_name("copy/sse/overlap/rep:300"));
  CHECK(r.edges == std::vector<uint64_t>{299, 300, 301});
}
