// Verification before timing: each kernel against memcpy/memset on guarded buffers.
#pragma once
#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/emit.hpp"
#include "src/model/result.hpp"

namespace kex {

class SharedObjects;

/// One exact placement a kernel will be measured at: src and dst page offsets
/// and, when the two regions overlap, their distance (the kernel must then give
/// what memmove gives).
struct VerifyLayout {
  uint32_t src_page_offset = 0;     ///< src address mod 4096
  uint32_t dst_page_offset = 0;     ///< dst address mod 4096 (separate buffers)
  std::optional<int64_t> distance;  ///< dst - src when the regions overlap (then only `sizes` are tried)
  std::vector<uint64_t> sizes;      ///< sizes tried (the measured ones, capped) besides verify_sizes()
  /// A stream's calls instead (its distinct sizes, each at the page offsets of its first
  /// call): exactly these are tried, at both buffer ends, and nothing else.
  struct Case {
    uint64_t size = 0;
    uint32_t dst_page_offset = 0, src_page_offset = 0;
  };
  std::vector<Case> cases;
};

/// What verification needs to know about one kernel.
struct VerifyTarget {
  KernelFn fn = nullptr;
  bool is_copy = true;
  bool is_read = false;         ///< read: dst[0..8) must hold read_fold(src, n) (src/model/spec.hpp)
  uint8_t fill = 0;             ///< clear: the byte every destination byte must hold
  uint32_t alignment = 1;       ///< dst and src offsets tried are multiples of this
  uint32_t width = 8;           ///< register width: sizes width-1 are tried
  uint32_t unroll = 64;         ///< sizes unroll-1, unroll, unroll+1 are tried
  uint64_t size_multiple = 1;   ///< page presets: sizes must be multiples of this (e.g. 4096)
  uint64_t max_size = 3 * 4096 + 64;  ///< largest size tried (random sizes stay below)
  std::vector<uint64_t> edges;  ///< sizes tried beside those above (a dispatch's row edges), each <= max_size
  /// "memcpy", "memmove" or "memset": the routine promises that function's result (dst);
  /// "" for kex's own kernels, which return nothing.
  std::string promises;
  const uint8_t* code = nullptr;      ///< the kernel's bytes, to place a fault (null for libc)
  size_t code_size = 0;
  std::optional<VerifyLayout> layout; ///< set: only this exact placement; unset: eight offset pairs
};

/// The outcome of verifying one target.
struct Verdict {
  std::string message;                 ///< "" when it verified; else the first mismatch or the death
  int signal = 0;                      ///< the kernel killed its verifier with this signal
  std::optional<int64_t> fault_offset; ///< the faulting instruction, relative to the kernel's first byte
  bool ok() const { return message.empty(); }
};

/// One verification: what is verified and, once verify_all ran, its verdict.
struct Verification {
  VerifyTarget target;
  Verdict verdict;
  size_t subject = 0;  ///< the caller's index of what it verifies (the seed harness: its kernel; the
                       ///< sweep's are shared by points, which keep their own)
};

/// The status a verification gives what it verified (the only verdict -> status mapping):
/// ok when it verified; an overlapping placement whose kernel ran but did not give
/// memmove's result is skipped ("refused: the kernel does not give memmove's result where
/// src and dst overlap: MESSAGE"); otherwise an error "verification failed: MESSAGE" ("verification at
/// this placement failed: MESSAGE" with a layout) with the signal and fault offset.
Status verification_status(const Verification& c);

/// Sizes verification tries for a target: 0, 1, width-1, width, width+1 (the edges of
/// overlap kernels), unroll-1, unroll, unroll+1, 2*unroll+width+1, 4095, 4096, 4097 and
/// 8 seeded random sizes (all filtered to size_multiple).
std::vector<uint64_t> verify_sizes(const VerifyTarget& t);

/// Runs the kernel in this process on buffers with a guard of PROT_NONE pages on either
/// side (as wide as a prefetch distance and an unrolled block: a load that far past an end
/// faults) over every size; compares with memcpy/memset (memmove for an overlapping layout;
/// a read's 8 bytes with read_fold of the source) and checks that bytes around dst are
/// untouched, that the callee-saved registers and the direction flag are as the SysV ABI
/// wants them, and that a routine that promises a result returns dst. Without a layout: eight src/dst offset pairs,
/// each at both buffer ends; with one: exactly its page offsets (and distance).
/// Returns "" on success, else the first mismatch
/// ("size 4097, dst+8 src+0: byte 4096 is 0x00, expected 0x5a").
/// A faulting kernel kills the process: use verify_all for untrusted code.
std::string verify_in_process(const VerifyTarget& t);

/// verify_in_process for each check's target in the sandbox (src/run/sandbox.hpp), into
/// its verdict. A kernel that kills its verifier fails with "killed by SIGSEGV at
/// code+0x3a touching 0x0 while verifying", and a new child carries on with the next
/// check. `stop` (may be null) ends the work within a second; checks not verified then
/// say "interrupted". `objects` (may be null): the run's shared objects, opened in the
/// children (the slots of their stubs filled).
void verify_all(std::vector<Verification>& checks, const volatile std::sig_atomic_t* stop = nullptr,
                SharedObjects* objects = nullptr);

/// The messages of verify_all ("" = verified), one per target.
std::vector<std::string> verify_in_child(const std::vector<VerifyTarget>& targets);

}  // namespace kex
