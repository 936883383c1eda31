// The child side of `kex crossovers --validate`: a fresh kex process (the hidden
// `kex libc-child` mode) times libc's memcpy or memset at a few sizes and prints one
// line per size. A fresh process because glibc reads GLIBC_TUNABLES only at start-up.
// The protocol is plain text so that the parent can check every field:
//
//   kex-libc-child 1
//   tunables glibc.cpu.x86_rep_movsb_threshold=65536     ("tunables -" when unset)
//   size 65536 ticks 1234.5 calls 64 samples 31           (one line per size, in the order measured)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/spec.hpp"

namespace kex {

/// The largest size a libc child measures (its --sizes range), bytes.
inline constexpr uint64_t kMaxLibcChildSize = uint64_t(1) << 32;

/// What one child measures.
struct LibcJob {
  Op op = Op::copy;              ///< memcpy (copy) or memset (clear)
  uint8_t fill = 0;              ///< memset's byte
  std::vector<uint64_t> sizes;   ///< bytes, in the order measured (each >= 1)
  double budget_ms = 20;         ///< sampling time per size (after a warm-up of >= 3 calls)
};

/// A child's figure at one size: the median TSC ticks per call over its samples.
struct LibcTiming {
  uint64_t size = 0;
  double ticks = 0;       ///< median TSC ticks per call
  uint64_t calls = 0;     ///< calls per sample
  uint32_t samples = 0;   ///< samples taken (>= 5)
  bool operator==(const LibcTiming&) const = default;
};

/// A child's whole answer: the GLIBC_TUNABLES it started with ("" = unset) and its timings.
struct LibcReport {
  std::string tunables;
  std::vector<LibcTiming> timings;
  bool operator==(const LibcReport&) const = default;
};

/// The arguments after the executable for a child doing `job`:
/// {"libc-child", "--op", "copy", "--fill", "0", "--sizes", "4096,65536", "--budget-ms", "20"}.
std::vector<std::string> libc_child_args(const LibcJob& job);

/// Times `job` in this process: buffers of the largest size (source filled, both
/// prefaulted), then per size a warm-up of at least 3 calls, calls per sample so a
/// sample lasts about 20 µs (at least one call), and samples until the budget is spent
/// (at least 5). Ticks from the fenced TSC; the budget from CLOCK_MONOTONIC.
LibcReport run_libc_job(const LibcJob& job);

/// The protocol text of a report (see the top of this file).
std::string format_libc_report(const LibcReport& r);

/// Reads a child's text strictly: the header, the tunables line, then exactly one
/// line per size of `job` in its order, each with every field a finite positive
/// number. Throws std::runtime_error("libc child: line N: ...") otherwise.
LibcReport parse_libc_report(const std::string& text, const LibcJob& job);

}  // namespace kex
