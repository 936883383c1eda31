// The parent side of `kex crossovers --validate`: libc's memcpy/memset timed in child
// processes started under the default environment and under suggested GLIBC_TUNABLES
// (glibc reads them only at start-up), the two children alternating in paired rounds
// on one CPU, so that each round's ratio sees one state of the machine
// (docs/methodology.md "Paired rounds").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/paired.hpp"
#include "src/run/libc_child.hpp"

namespace kex {

struct ValidateOptions {
  uint32_t rounds = 15;                 ///< rounds (>= 3): each runs both children back to back
  int cpu = -1;                         ///< CPU both children are pinned to; -1: default_pin_cpu()
  uint64_t seed = 1;                    ///< of the order of the children and of the sizes per round
  std::string exe = "/proc/self/exe";   ///< the kex binary the children run
};

/// The change at one size.
struct SizeChange {
  uint64_t size = 0;
  PairedRatio change;  ///< tuned time / default time over the rounds (< 1: faster with the tunables)
};

struct Validation {
  std::string tunables;     ///< what the tuned children were given
  std::string default_saw;  ///< GLIBC_TUNABLES as the default children reported it ("" = unset)
  std::string tuned_saw;    ///< as the tuned children reported it (each round must agree)
  int cpu = -1;             ///< where the children ran
  uint32_t rounds = 0;
  std::vector<SizeChange> sizes;  ///< in the job's order
};

/// Runs `opts.rounds` rounds of `job`: per round the sizes in a new random order and
/// the two children (GLIBC_TUNABLES unset, and set to `tunables`) in a random order,
/// both pinned to one CPU. Throws std::runtime_error when a child cannot start, fails
/// or answers out of protocol, or a child reports other tunables than it was given;
/// InputError at a process limit.
Validation validate_tunables(const LibcJob& job, const std::string& tunables, const ValidateOptions& opts);

}  // namespace kex
