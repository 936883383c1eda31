// The text of `kex crossovers`: each comparison with the interval of sizes its
// threshold lies in, and the GLIBC_TUNABLES the decided crossovers suggest.
#pragma once
#include <string>

#include "src/results/crossover.hpp"

namespace kex {

/// The human report: per comparison its crossovers ("wins from 4 MiB up: threshold in
/// (1 MiB, 4 MiB]"), or "no crossover: differences within noise" when the sizes where
/// the curves differ measurably do not make one; then a `GLIBC_TUNABLES=...` line with
/// the reasoning, or why none is suggested.
std::string format_crossovers(const Crossovers&);

/// "(1 MiB, 4 MiB]": the sizes a threshold at `from` lies in, after `below` (none: "at or below
/// 4 MiB (the smallest size compared)").
std::string threshold_interval(std::optional<double> below, double from);

/// One suggested tunable explained, a line: "    x86_rep_movsb_threshold=262143: memcpy uses
/// rep movsb above this size, ...; the crossover lies in (128 KiB, 256 KiB]; rep won up to 1 MiB".
std::string explain(const Tunable& t);

}  // namespace kex
