#include "src/run/result_build.hpp"

#include "src/run/machine.hpp"

namespace kex {

Status plan_status(const KernelPlan& k) {
  Status s;
  if (!k.skip.empty()) {
    s.kind = StatusKind::skipped;
    s.message = k.skip;
  } else if (!k.error.empty()) {
    s.kind = StatusKind::error;
    s.message = k.error;
  }
  return s;
}

Result make_result(const KernelPlan& k, const Coords& at, Status status, std::vector<Repetition> reps,
                   const std::optional<Placement>& placed, const std::optional<CodeInfo>& code,
                   const std::optional<SeedFigures>& seed) {
  Result r;
  r.point = {k.key, at};
  r.kind = k.kind;
  r.op = k.op;
  r.spec = k.spec;
  r.preset = k.preset;
  r.libc = k.libc;
  r.impl = k.impl;
  r.placed = placed;
  r.code = code;
  r.seed = seed;
  r.tsc_hz = machine().tsc_hz;
  if (status.kind == StatusKind::ok && reps.empty()) {
    status.kind = StatusKind::error;
    status.message = "not measured";
  }
  r.status = std::move(status);
  if (r.status.kind == StatusKind::ok) r.reps = std::move(reps);
  return r;
}

}  // namespace kex
