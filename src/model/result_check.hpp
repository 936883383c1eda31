// The physical checks every measured repetition passes wherever kex reads it (a
// results file, a run's journal), so a file kex writes is one it reads again.
#pragma once
#include <string>

#include "src/model/result.hpp"

namespace kex {

/// A repetition's figures: a median > 0, the other tick statistics >= 0, all below
/// 1e15 ticks, and n and calls per sample >= 1. Throws InputError naming `where`
/// (the repetition's place, e.g. "benchmarks/NAME/reps/0") and the field otherwise.
void check_repetition(const Repetition& r, const std::string& where);

/// A TSC rate of 1e6 to 1e11 Hz; InputError naming `where` otherwise.
void check_tsc_rate(double hz, const std::string& where);

}  // namespace kex
