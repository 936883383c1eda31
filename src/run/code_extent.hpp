// How much of a function without a size to show (`kex show glibc/NAME`, issue 34):
// glibc's internal symbols carry no size in the stripped libc, so the code is read from
// its address to its first `ret` that no earlier branch jumps past, within the
// executable segment it lies in and a cap.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "generators/disasm.hpp"

namespace kex {

/// Bytes of the executable PT_LOAD segment of a loaded object (dl_iterate_phdr) from
/// `p` to the segment's end; 0 when `p` lies in none.
size_t executable_bytes_from(const void* p);

/// The end (an offset from the start) of the first `ret` in `insns` that no earlier
/// forward branch jumps past; branches to targets at or beyond `limit` (outside what
/// was read) do not count. 0 when there is none.
size_t end_at_first_ret(const std::vector<Insn>& insns, size_t limit);

/// A function's code from `fn` for showing: its bytes (at most `cap`) and one line
/// saying how its end was found ("to its first ret no earlier branch jumps past: N
/// bytes", or that no such ret came within the cap or the segment).
struct FunctionCode {
  std::vector<uint8_t> bytes;
  std::string how;
};
FunctionCode function_code(const void* fn, size_t cap);

}  // namespace kex
