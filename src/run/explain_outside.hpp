// `kex explain` of a competitor that is not one of kex's specs (rep_movsb, memcpy,
// glibc/SYMBOL, lib/NAME, asm/NAME, a preset): it has no coordinates, so no neighbours;
// what applies to it is its place against the ceilings, its counters, and llvm-mca of
// its bytes where kex has them (glibc's variants and libc's pick, a shared object's
// symbol, loaded object code, each up to its first ret).
#pragma once
#include <vector>

#include "src/model/config.hpp"
#include "src/model/explain.hpp"
#include "src/run/machine.hpp"

namespace kex {

/// The competitors of `space` that are not specs (its presets, baselines and loaded
/// code), each once by the name results give it, with its op. InputError as config_plans.
std::vector<ExplainTarget> outside_targets(const Config& space);

/// The model of the core of outside target `t` (measured in `run`): llvm-mca of its code
/// up to the first ret as one block (predict_code), or why there is none (a rep string
/// instruction is its own loop; a preset's loop is not marked; no bytes of libc's pick).
/// Nothing is measured at an L1-resident size: the code has no loop of known bytes per
/// iteration.
ExplainCore outside_core(const RunDoc& run, const ExplainTarget& t, const Machine& m);

}  // namespace kex
