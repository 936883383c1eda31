// The parent side of `kex crossovers --validate` and of kex tune's validation: libc's memcpy/memset timed in child
// processes started under the default environment and under suggested GLIBC_TUNABLES
// (glibc reads them only at start-up), the two children alternating in paired rounds
// on one CPU, so that each round's ratio sees one state of the machine
// (docs/methodology.md "Paired rounds").
#pragma once
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/tunables.hpp"
#include "src/run/libc_child.hpp"

namespace kex {

struct ValidateOptions {
  uint32_t rounds = 15;                 ///< rounds (>= 3): each runs both children back to back
  int cpu = -1;                         ///< CPU both children are pinned to; -1: default_pin_cpu()
  uint64_t seed = 1;                    ///< of the order of the children and of the sizes per round
  std::string exe = "/proc/self/exe";   ///< the kex binary the children run
  /// Counts stops (SIGINT/SIGTERM): once raised, no further child starts and the rounds
  /// finished are returned (a child a terminal's Ctrl-C killed is not an error then).
  const volatile std::sig_atomic_t* stop = nullptr;
  /// > 0: after the first 3 rounds, no round starts that would end (at the rounds' pace so
  /// far) more than this many seconds after the start.
  double seconds = 0;
};

/// Runs `opts.rounds` rounds of `job` (fewer at a stop or past `opts.seconds`): per round
/// the sizes in a new random order and the two children (GLIBC_TUNABLES unset, and set to
/// `tunables`) in a random order, both pinned to one CPU. Throws std::runtime_error when
/// a child cannot start, fails or answers out of protocol, or a child reports other
/// tunables than it was given; InputError at a process limit.
Validation validate_tunables(const LibcJob& job, const std::string& tunables, const ValidateOptions& opts);

/// About how long validate_tunables takes for `rounds` rounds of `job`, in seconds: two
/// children a round, each starting kex and sampling each size for its budget.
double validation_estimate_s(const LibcJob& job, uint32_t rounds);

}  // namespace kex
