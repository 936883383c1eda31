// `kex emit --format c`: kernels as machine code in C arrays placed in an executable
// section, with typed wrappers and a size dispatch, for any C or C++ program.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "generators/disasm.hpp"
#include "src/results/emit_kernels.hpp"

namespace kex {

/// The .c file: `header` lines (through comment_text) in a block comment; per kernel
/// its provenance, its code as `static const unsigned char SYMBOL_code[]` in section
/// .text.kex (linkers place .text.* input sections in the executable .text), one
/// instruction a line with its disassembly (in `syntax`) as a comment, and the wrapper
/// SYMBOL with the C library's signature (SourceKernel); then the dispatch function, if
/// any. Each dispatch row's kernel must be among `kernels` (std::logic_error otherwise).
std::string c_source(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch,
                     Syntax syntax, const std::vector<std::string>& header);

}  // namespace kex
