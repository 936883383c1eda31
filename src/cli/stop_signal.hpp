// The stop counter of the commands that race kernels (kex tune, kex explain): SIGINT,
// SIGTERM and SIGHUP each add one; the first ends the race after the current measurement (what was
// measured is written), the second at once (nothing is written).
#pragma once
#include <csignal>

#include "src/run/sweep.hpp"

namespace kex {

/// The counter RunOptions::stop points at (0 until a signal arrives).
const volatile std::sig_atomic_t* race_stop_counter();

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP that count into race_stop_counter().
void catch_race_stops();

/// The run options of a race on `cpu` (-1: one picked): stopped by race_stop_counter(),
/// progress unless quiet, a seed from the time and the process id.
RunOptions race_options(int cpu);

}  // namespace kex
