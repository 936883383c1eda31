// The plan of a dispatch kernel (KernelKind::dispatch, src/model/dispatch_kernel.hpp): its
// members are kex's own specs, generated together as one routine.
#pragma once
#include "src/model/plan.hpp"

namespace kex {

/// The plan of `d` (key: its canonical name): alignment the largest any member needs; the
/// register width of the first row's member and the largest unroll; edges each row's bound
/// -1, 0, +1 and every member's width and unroll +-1, so verification tries every row at its
/// edges; skip the first member's CPU reason, naming it.
KernelPlan dispatch_plan(const DispatchKernel& d);

}  // namespace kex
