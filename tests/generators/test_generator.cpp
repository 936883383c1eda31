// Property test: a grid over every axis gives kernels that verify byte-exact.
#include <doctest/doctest.h>

#include <cstdio>
#include <numeric>

#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/run/verify.hpp"

using namespace kex;

namespace {

std::vector<KernelSpec> grid() {
  std::vector<KernelSpec> out;
  for (auto op : {Op::copy, Op::clear})
    for (const auto& ci : reg_classes()) {
      KernelSpec base = default_spec(op, ci.cls);
      if (op == Op::clear) base.fill = 0x5a;
      if (ci.cls == RegClass::string) {
        for (uint32_t e : {1u, 2u, 4u, 8u})
          for (auto dir : {Direction::forward, Direction::backward}) {
            KernelSpec s = base;
            s.unroll = e;
            s.direction = dir;
            out.push_back(s);
          }
        continue;
      }
      for (uint32_t mult : {1u, 3u, 8u})
        for (uint32_t scratch : {1u, 2u, 8u})
          for (auto store : {Store::temporal, Store::nontemporal})
            for (auto dir : {Direction::forward, Direction::backward})
              for (auto align : {Align::unaligned, Align::aligned})
                for (int pf = 0; pf < 4; ++pf) {
                  KernelSpec s = base;
                  s.unroll = ci.width * mult * (ci.width < 16 ? 2 : 1);
                  s.scratch = std::min(scratch, ci.max_scratch);
                  s.store = store;
                  s.direction = dir;
                  s.align = align;
                  if (pf == 1) { s.prefetch = Prefetch::nta; s.pf_distance = dir == Direction::forward ? 256 : -256; }
                  if (pf == 2) { s.prefetch = Prefetch::load; s.pf_distance = dir == Direction::forward ? 32 : -96; s.pf_every = 32; }
                  if (pf == 3) {
                    if (op != Op::copy || dir != Direction::forward) continue;
                    s.block.bytes = std::lcm(s.unroll, 64u) * 2;
                  }
                  if (!validate(s).empty()) continue;
                  if (!cpu_unsupported_reason(s).empty()) continue;
                  out.push_back(s);
                  s.edges = Edges::overlap;  // the same loops with overlapping edge moves
                  out.push_back(s);
                }
    }
  return out;
}

}  // namespace

TEST_CASE("every spec in the property grid verifies byte-exact" * doctest::test_suite("generator")) {
  auto specs = grid();
  CHECK(specs.size() > 600);
  CodeArena arena;
  std::vector<size_t> idx;
  for (const auto& s : specs) idx.push_back(arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); }));
  arena.finalize();
  std::vector<VerifyTarget> targets;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    VerifyTarget t;
    t.fn = arena.ref(idx[i]).as<KernelFn>();
    t.is_copy = s.op == Op::copy;
    t.fill = s.fill;
    t.alignment = required_alignment(s);
    t.width = reg_class_info(s.regs).width;
    t.unroll = s.unroll;
    targets.push_back(t);
  }
  auto res = verify_in_child(targets);
  int bad = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!res[i].empty() && bad++ < 20) FAIL_CHECK(spec_name(specs[i]) << ": " << res[i]);
  }
  CHECK(bad == 0);
}

TEST_CASE("names round-trip for every spec in the grid" * doctest::test_suite("spec")) {
  for (const auto& s : grid()) {
    auto n = spec_name(s);
    CHECK_MESSAGE(parse_spec_name(n) == s, n);
    CHECK(spec_name(parse_spec_name(n)) == n);
  }
}

TEST_CASE("W^X: no mapping is writable and executable, before or after finalize" * doctest::test_suite("generator")) {
  auto rwx_mappings = [] {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
      char perms[8] = {};
      if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x') ++n;
    }
    fclose(f);
    return n;
  };
  CodeArena arena;
  for (int i = 0; i < 200; ++i)  // enough to make the AutoGrow buffer grow
    arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, default_spec(Op::copy, RegClass::avx)); });
  CHECK(rwx_mappings() == 0);
  arena.finalize();
  CHECK(rwx_mappings() == 0);
  auto fn = arena.ref(199).as<KernelFn>();
  std::vector<uint8_t> a(1000, 7), b(1000, 0);
  fn(b.data(), a.data(), a.size());
  CHECK(a == b);
}
