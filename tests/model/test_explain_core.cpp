// The model of the core in kex explain: the L1-resident size a loop is measured at, the
// core cycles per iteration of a measured point, and the call against llvm-mca's
// prediction at the documented threshold (kCoreBoundRatio, docs/methodology.md).
#include <doctest/doctest.h>

#include "src/model/explain_core.hpp"

using namespace kex;

namespace {

ExplainCore core(double predicted, double measured) {
  return {"copy/avx/unroll:256/scratch:4/t/fwd", "znver3", "", "", predicted, 8.0, 256, 4096, measured,
          "imul-chain estimate"};
}

}  // namespace

TEST_CASE("explain core: the L1-resident size is 4 KiB or 4 iterations, within half the L1d" *
          doctest::test_suite("model")) {
  CHECK(core_size(256, Op::copy, 49152) == 4096);
  CHECK(core_size(2048, Op::copy, 49152) == 8192);
  CHECK(core_size(4096, Op::copy, 49152) == 0);  // 2 x 16 KiB > 24 KiB
  CHECK(core_size(4096, Op::clear, 49152) == 16384);
  CHECK(core_size(64, Op::copy, 0) == 4096);  // unknown L1d: 32 KiB
  CHECK(core_size(64, Op::copy, 8192) == 0);
}

TEST_CASE("explain core: core cycles per iteration of a measured point" * doctest::test_suite("model")) {
  Result r;
  r.point = {"copy/avx/unroll:256/scratch:4/t/fwd", {}};
  r.point.at.size = 4096;
  r.tsc_hz = 1e9;  // 1 tick = 1 ns
  for (int k = 0; k < 3; ++k) {
    Repetition rep;
    rep.per_call.n = 11;
    rep.per_call.median = 200;  // ticks per operation
    rep.cycles_per_tick = 1.5;
    rep.cycles_method = "imul-chain estimate";
    r.reps.push_back(rep);
  }
  // 200 ticks x 1.5 cycles per tick = 300 core cycles over 16 iterations of 256 bytes.
  CHECK(measured_cycles_per_iteration(r, 256) == doctest::Approx(300.0 / 16));
  CHECK(measured_cycles_per_iteration(r, 8192) == 0);
  r.status.kind = StatusKind::skipped;
  CHECK(measured_cycles_per_iteration(r, 256) == 0);
}

TEST_CASE("explain core: core-bound within 1.25x of the prediction either way, the nearest model named" *
          doctest::test_suite("model")) {
  CHECK(core_text(core(8.0, 8.24)) ==
        "core-bound: measured 1.03x llvm-mca's 8.0 core cycles per 256-byte iteration (znver3; 4096 B warm, "
        "imul-chain estimate)");
  CHECK(core_text(core(8.0, 10.0)) ==
        "core-bound: measured 1.25x llvm-mca's 8.0 core cycles per 256-byte iteration (znver3; 4096 B warm, "
        "imul-chain estimate)");
  ExplainCore slow = core(4.0, 12.8);
  slow.note = "LLVM 14 has no Zen 5 model: znver3 used";
  CHECK(core_text(slow) ==
        "not core-bound: measured 3.20x llvm-mca's 4.0 core cycles per 256-byte iteration (znver3; 4096 B warm, "
        "imul-chain estimate); LLVM 14 has no Zen 5 model: znver3 used");
  CHECK(core_text(core(8.0, 6.5)) ==
        "core-bound: measured 0.81x llvm-mca's 8.0 core cycles per 256-byte iteration (znver3; 4096 B warm, "
        "imul-chain estimate)");
  CHECK(core_text(core(8.0, 4.9)).starts_with("faster than the model: measured 0.61x llvm-mca's 8.0 "));
  ExplainCore none = core(0, 0);
  none.missing = "llvm-mca not found on PATH (Debian package llvm)";
  CHECK(core_text(none) == "no model of the core: llvm-mca not found on PATH (Debian package llvm)");
  CHECK(core_ratio(core(8.0, 0)) == 0);
}
