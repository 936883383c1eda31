// glibc tunables that kex's measurements suggest (GLIBC_TUNABLES, which glibc reads at
// start-up) and what libc measured with them: pure data. `kex crossovers` and `kex tune`
// suggest them (src/results/crossover.hpp), src/run/libc_validate.hpp measures them in
// child processes in paired rounds, src/results/validation.hpp judges and prints them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/paired.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// One suggested glibc tunable, from a decided crossover (or a tune's dispatch switch).
struct Tunable {
  std::string name;               ///< "glibc.cpu.x86_rep_movsb_threshold"
  uint64_t value = 0;             ///< bytes: from - 1, as glibc takes the path for sizes above it (raised to
                                  ///< glibc's minimum where it has one)
  Op op = Op::copy;               ///< what it changes: memcpy (copy) or memset (clear)
  uint64_t from = 0;              ///< the first size of the crossover, bytes
  uint64_t to = 0;                ///< the last size of the winning run, bytes
  std::optional<uint64_t> below;  ///< the last size before it where the path did not win
  std::optional<uint64_t> above;  ///< the first size after the winning run (none: it wins up to the largest)
  std::optional<uint64_t> refines;  ///< the value this one replaces, which libc measured slower (refined_tunable)
};

/// The change at one size.
struct SizeChange {
  uint64_t size = 0;
  PairedRatio change;  ///< tuned time / default time over the rounds (< 1: faster with the tunables)
};

/// What libc measured in child processes without and with some tunables.
struct Validation {
  std::string tunables;     ///< what the tuned children were given
  std::string default_saw;  ///< GLIBC_TUNABLES as the default children reported it ("" = unset)
  std::string tuned_saw;    ///< as the tuned children reported it (each round must agree)
  int cpu = -1;             ///< where the children ran
  uint32_t rounds = 0;      ///< rounds run (fewer than asked after a stop or at a deadline)
  std::vector<SizeChange> sizes;  ///< in the job's order
};

}  // namespace kex
