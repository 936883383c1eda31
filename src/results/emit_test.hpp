// `kex emit --test-program FILE`: a C program that checks an emitted memcpy/memset (the
// dispatch, or each kernel's wrapper without one) against the C library's contract at every
// size 0..4097 and a sample of larger ones, every src and dst offset 0..63, with guard bytes
// around dst; it stops at the first wrong byte or return value with one line and exit status 1.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/results/emit_kernels.hpp"

namespace kex {

/// The functions the test program checks, with their ops: the dispatch's symbol when there
/// is one, else every wrapper (libc rows define none).
std::vector<std::pair<std::string, Op>> tested_functions(const std::vector<SourceKernel>& kernels,
                                                         const std::optional<SourceDispatch>& dispatch);

/// The C source of the test program for the functions an emitted file defines: the
/// dispatch's symbol when there is one, else every wrapper (libc rows define none). It
/// names functions by their symbols only ([a-z0-9_], kernel_symbol), never by a name from
/// a file. Copies are checked with every (src, dst) offset pair in 0..63 up to 4097 bytes;
/// clears with every dst offset and c = 0, each clear kernel's fill byte and 0x17. Run with
/// one argument, a symbol, it checks only that function (exit status 2 when it has none).
std::string test_program(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch);

}  // namespace kex
