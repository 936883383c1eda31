// The model of the core in `kex explain`: llvm-mca's predicted core cycles per main-loop
// iteration against the core cycles per iteration measured at an L1-resident size, and
// the call "core-bound" or "not core-bound" (docs/methodology.md "A model of the core").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/explain_section.hpp"
#include "src/model/result.hpp"

namespace kex {

/// Measured within this factor of llvm-mca's prediction (from 1 / it to it), a loop is
/// called core-bound; below 1 / it, faster than the model (a model of an older core).
inline constexpr double kCoreBoundRatio = 1.25;

/// The size an L1-resident measurement of a loop moving `bytes_per_iteration` uses: 4 KiB,
/// or 4 iterations when that is more; 0 when its buffers (a copy's source and destination,
/// a clear's destination) would fill more than half of an L1d of `l1d` bytes (0: unknown,
/// taken as 32 KiB).
uint64_t core_size(uint64_t bytes_per_iteration, Op op, uint64_t l1d);

/// Core cycles per main-loop iteration of a measured result: the median operation's
/// estimated core cycles (entry_figures) over size / bytes_per_iteration iterations; 0 when
/// `r` was not measured or the size holds no full iteration.
double measured_cycles_per_iteration(const Result& r, uint64_t bytes_per_iteration);

/// The measured figure over the predicted one; 0 when either is missing.
double core_ratio(const ExplainCore& c);

/// One line: "core-bound: measured 1.03x llvm-mca's 8.1 core cycles per 256-byte
/// iteration (znver3; 4096 B warm, imul-chain estimate)", "not core-bound: measured 3.20x ...",
/// "faster than the model: measured 0.61x ..." or "no model of the core: <missing>"; for
/// code kex did not write (no bytes per iteration), llvm-mca's figure alone: "llvm-mca: 41.2
/// core cycles per pass (block reciprocal throughput 12.0; znver3); its 512 bytes up to the
/// first ret as one block ...". Names as they are: the caller escapes them. Names as they are: the caller escapes them.
std::string core_text(const ExplainCore& c);

/// The counters of a measured result, per byte (entry_figures' counters_per_byte).
std::vector<ExplainCounter> explain_counters(const Result& r);

}  // namespace kex
