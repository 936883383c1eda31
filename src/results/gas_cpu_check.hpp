// The CPU check of kex emit --format gas: where a kernel needs features beyond x86-64, its
// symbol is a GNU indirect function (ELF STT_GNU_IFUNC, `.type SYMBOL, %gnu_indirect_function`)
// whose resolver asks CPUID (and XGETBV for the AVX and AVX-512 register state) once, when the
// dynamic linker (or dlsym) binds the symbol, and returns the wrapper that enters the code or the
// jump to libc. No call pays for the check afterwards: no byte to load, no branch on it
// (emit_c.cpp checks with __builtin_cpu_supports and a static int instead).
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

/// What gas_cpu_check writes for one symbol.
struct GasCpuCheck {
  /// The resolver's body after its endbr64: rbx saved (CPUID writes it), each feature's CPUID
  /// bit and the XCR0 state, then rax = the wrapper (`lea rax, [rip + FAST]`) or, on the first
  /// missing feature, the jump to libc; ret. Empty: nothing to check (an ordinary function).
  std::vector<AsmLine> resolver;
  std::string unchecked;  ///< needed features CPUID is not asked about here ("" none), for a comment
};

/// The resolver of `needs` for `symbol` (its label .L<symbol>_no), returning the address of
/// the label `fast` when the CPU has every feature and of `libc` (a jump to libc) otherwise.
/// Features every x86-64 CPU has (mmx, sse, sse2) are not asked about; a set of those alone
/// gives an empty check.
GasCpuCheck gas_cpu_check(FeatureSet needs, const std::string& symbol, const std::string& fast, const std::string& libc);

}  // namespace kex
