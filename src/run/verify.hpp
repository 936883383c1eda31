// Verification before timing: each kernel against memcpy/memset on guarded buffers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generators/emit.hpp"

namespace kex {

/// What verification needs to know about one kernel.
struct VerifyTarget {
  KernelFn fn = nullptr;
  bool is_copy = true;
  uint8_t fill = 0;             ///< clear: the byte every destination byte must hold
  uint32_t alignment = 1;       ///< dst and src offsets tried are multiples of this
  uint32_t width = 8;           ///< register width: sizes width-1 are tried
  uint32_t unroll = 64;         ///< sizes unroll-1, unroll, unroll+1 are tried
  uint64_t size_multiple = 1;   ///< page presets: sizes must be multiples of this (e.g. 4096)
  uint64_t max_size = 3 * 4096 + 64;  ///< largest size tried (random sizes stay below)
};

/// Sizes verification tries for a target: 0, 1, width-1, unroll-1, unroll, unroll+1,
/// 4095, 4096, 4097 and 8 seeded random sizes (all filtered to size_multiple).
std::vector<uint64_t> verify_sizes(const VerifyTarget& t);

/// Runs the kernel in this process on guard-page-protected buffers over every size
/// and several src/dst offsets; compares with memcpy/memset and checks that bytes
/// around dst are untouched. Returns "" on success, else the first mismatch
/// ("size 4097, dst+8 src+0: byte 4096 is 0x00, expected 0x5a").
/// A faulting kernel kills the process: use verify_in_child for untrusted code.
std::string verify_in_process(const VerifyTarget& t);

/// verify_in_process for each target in forked children. A child that dies by a
/// signal marks the kernel it was checking as failed ("killed by SIGSEGV while
/// verifying") and a new child continues with the next one. Result i is "" when
/// target i verified.
std::vector<std::string> verify_in_child(const std::vector<VerifyTarget>& targets);

}  // namespace kex
