// `kex emit --format gas`: kernels, their typed wrappers and a size dispatch as one
// GNU as source (Intel or AT&T syntax) that `as` assembles and any C program links.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "generators/disasm.hpp"
#include "src/results/emit_kernels.hpp"

namespace kex {

/// The .s file: `header` lines (through comment_text) as '#' comments; per kernel its
/// provenance, its code as global function SYMBOL_kernel (kex's ABI, no return value;
/// format_asm: it reassembles to exactly the emitted bytes) and the wrapper SYMBOL with
/// the C library's signature (SourceKernel); then the dispatch function, if any. Each
/// dispatch row's kernel must be among `kernels` (std::logic_error otherwise); regions
/// and alignments must be powers of two.
std::string gas_source(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch,
                       Syntax syntax, const std::vector<std::string>& header);

}  // namespace kex
