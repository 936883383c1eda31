// A stream of calls (docs/DESIGN.md "A stream is an axis"): sizes drawn from a distribution
// (src/model/distribution.hpp) and where each call's src and dst lie, drawn once before any
// timing from a seed, so a resume or a second run rebuilds the same calls.
#pragma once
#include <cstdint>
#include <vector>

#include "src/model/distribution.hpp"
#include "src/model/point.hpp"

namespace kex {

/// How a stream is drawn: the seed, the calls in one pass and the bytes of each region the
/// offsets walk (src's and dst's; a clear's dst only).
struct StreamDraw {
  uint64_t seed = 1;
  uint32_t calls = kDefaultStreamCalls;
  uint64_t footprint = 0;
};

/// One call: its size and where src and dst start in their regions. `overlapping`: src lies
/// in dst's region, overlapping dst (memmove's streams only).
struct StreamCall {
  uint64_t size = 0;
  uint64_t src_offset = 0;
  uint64_t dst_offset = 0;
  bool overlapping = false;
  bool operator==(const StreamCall&) const = default;
};

/// A stream drawn: its calls in order, the bytes of one pass, and how many calls were
/// capped at half the footprint (a size the regions cannot hold) or overlap.
struct Stream {
  std::vector<StreamCall> calls;
  uint64_t bytes = 0;
  uint64_t capped = 0;
  uint64_t overlapping = 0;
};

/// Draws `how.calls` calls from `d` with `how.seed` (splitmix64, so every platform draws
/// the same): each size by its probability, capped at footprint / 2; each pointer aligned
/// by the distribution's alignment line (exactly: an odd multiple of the drawn power of two
/// below 64, any multiple of 64 and above), src and dst drawn independently in their own
/// regions; a memmove distribution's calls overlap with its overlap probability, dst at a
/// distance uniform in (-size, size) from src, both in dst's region. Requires footprint >= 2.
Stream draw_stream(const Distribution& d, const StreamDraw& how);

/// The order worker `worker` of a point with threads makes a pass's `n` calls in: worker
/// 0 the stream's own order, each other worker a permutation of it drawn from (`seed`,
/// `worker`) (Fisher-Yates on splitmix64): every worker makes the same calls, so the bytes
/// of an operation are size x threads exactly, each in an order of its own, so that no
/// two cores' branch predictors see one sequence. Indexes into the calls, 0..n-1.
std::vector<uint32_t> worker_call_order(size_t n, uint64_t seed, uint32_t worker);

}  // namespace kex
