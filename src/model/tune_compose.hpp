// The candidates a stream's tune tries around its current choice (issue 51, "a dispatch
// tuned on a stream"): one step of a coordinate descent over dispatch kernels
// (src/model/dispatch_kernel.hpp) and rep:N's threshold, beyond the config's grid.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/distribution.hpp"
#include "src/model/tune.hpp"

namespace kex {

/// The sizes at `d`'s 50th, 75th and 90th percentiles of calls, each once: the bounds a
/// composition tries.
std::vector<uint64_t> compose_bounds(const Distribution& d);

/// The loops a composition step tries beside the verdict's choice (v.dispatched): the
/// kernels ranked after it (at most 3), then those that left the race closest to its leader
/// (the smallest time over the leader's), up to 4 in all; names compose_neighbours cannot
/// use as loops (libc, references) are passed on and left out there.
std::vector<std::string> compose_lower(const TuneVerdict& v, const std::vector<RaceDrop>& drops);

/// The neighbours of `center` (a spec name, rep_movsb/rep_stosb, or a dispatch name), each a
/// canonical kernel name, none equal to `center`:
/// - a spec with rep:N: the same spec at rep:N/2, 3N/4, 3N/2 and 2N (within the width and
///   kMaxRepAbove);
/// - a spec or rep string: for each of the loops `lower` lists (specs; the center first when
///   it is one, rep:N dropped) and each bound in `bounds` at or above its width, the two-row
///   dispatch of that loop up to the bound and, above it, rep movsb (stosb) or each other loop
///   listed; a center with rep:N keeps its threshold as a third row (loop, other loop, rep);
/// - a dispatch: each bound at half and at twice its value where the rows stay ascending.
/// At `level` 1 and up only the center's thresholds move (rep:N and a dispatch's bounds),
/// by 2^(+-1/4) at 1, 2^(+-1/8) at 2, ...: a finer search once the coarser steps are tried.
/// Names that are not kernels of one op, or that validate refuses, are left out.
std::vector<std::string> compose_neighbours(const std::string& center, const std::vector<std::string>& lower,
                                            const std::vector<uint64_t>& bounds, int level = 0);

/// The finest level kex tune's composition goes to (2: thresholds within 2^(1/8), 9%).
inline constexpr int kComposeFinestLevel = 2;

}  // namespace kex
