// The CPU check of kex emit --format gas's wrappers: on a wrapper's first call, CPUID (and
// XGETBV for the AVX and AVX-512 register state) decide once whether this CPU has the
// features its kernel needs; the answer is kept in a byte, and every call goes to libc
// when a feature is missing (emit_c.cpp does the same with __builtin_cpu_supports).
#pragma once
#include <string>
#include <vector>

#include "src/core/cpu_features.hpp"

namespace kex {

/// One line of assembly in both syntaxes: an instruction, or a label (the same text,
/// ending in ':', in both).
struct AsmLine {
  std::string intel, att;
};

/// What gas_cpu_check writes for one wrapper.
struct GasCpuCheck {
  std::vector<AsmLine> entry;   ///< at the wrapper's entry: to `probe` unless the byte says usable
  std::vector<AsmLine> probe;   ///< the probe, after the wrapper's ret: sets the byte, enters again
  std::vector<std::string> data;  ///< the byte, as raw lines (.data)
  std::string unchecked;        ///< needed features CPUID is not asked about here ("" none), for a comment
};

/// The check of `needs` for the wrapper `symbol` (its labels .L<symbol>_entry, _usable,
/// _cpu, _no and _set; `libc` the label that jumps to libc). Features every x86-64 CPU has (mmx, sse,
/// sse2) are not asked about; a set of those alone gives an empty check.
GasCpuCheck gas_cpu_check(FeatureSet needs, const std::string& symbol, const std::string& libc);

}  // namespace kex
