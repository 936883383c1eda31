#include "src/model/stream.hpp"

#include <algorithm>

namespace kex {

namespace {

/// splitmix64: a seeded sequence of 64-bit values, the same on every platform.
struct Draws {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  ///< uniform in [0, 1)
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }   ///< uniform in [0, n) (n small beside 2^64)
};

uint64_t draw_size(const Distribution& d, Draws& r) {
  const auto it = std::upper_bound(d.cumulative.begin(), d.cumulative.end(), r.unit());
  return d.sizes[std::min(size_t(it - d.cumulative.begin()), d.sizes.size() - 1)];
}

uint32_t draw_alignment(const Distribution& d, Draws& r) {
  if (d.alignments.empty()) return 1;
  double u = r.unit();
  for (const auto& [a, p] : d.alignments) {
    if (u < p) return a;
    u -= p;
  }
  return d.alignments.back().first;
}

/// An offset for `size` bytes in a region of `footprint`, aligned to `a` exactly (an odd
/// multiple below 64), any multiple of 64 from 64 up; 0 where the region has no room.
uint64_t draw_offset(uint64_t footprint, uint64_t size, uint64_t a, Draws& r) {
  const uint64_t room = footprint - size;  // the last start that fits
  if (a >= 64) return r.below(room / a + 1) * a;
  if (room < a) return 0;
  return a * (2 * r.below((room - a) / (2 * a) + 1) + 1);
}

}  // namespace

Stream draw_stream(const Distribution& d, const StreamDraw& how) {
  Stream s;
  Draws r{how.seed};
  const uint64_t cap = std::max<uint64_t>(how.footprint / 2, 1);
  const bool may_overlap = d.function == Function::memmove && d.overlap > 0;
  s.calls.reserve(how.calls);
  for (uint32_t i = 0; i < how.calls; ++i) {
    StreamCall c;
    c.size = draw_size(d, r);
    if (c.size > cap) {
      c.size = cap;
      ++s.capped;
    }
    c.dst_offset = draw_offset(how.footprint, c.size, draw_alignment(d, r), r);
    if (may_overlap && c.size > 1 && r.unit() < d.overlap) {
      // dst = src + delta, delta in (-size, size), both inside dst's region.
      const int64_t delta = int64_t(r.below(2 * c.size - 1)) - int64_t(c.size - 1);
      const uint64_t lo = delta < 0 ? uint64_t(-delta) : 0, hi = how.footprint - c.size - (delta > 0 ? uint64_t(delta) : 0);
      c.src_offset = lo + r.below(hi - lo + 1);
      c.dst_offset = uint64_t(int64_t(c.src_offset) + delta);
      c.overlapping = true;
      ++s.overlapping;
    } else {
      c.src_offset = draw_offset(how.footprint, c.size, draw_alignment(d, r), r);
    }
    s.bytes += c.size;
    s.calls.push_back(c);
  }
  return s;
}

std::vector<uint32_t> worker_call_order(size_t n, uint64_t seed, uint32_t worker) {
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
  if (worker == 0) return order;
  Draws r{seed ^ (uint64_t(worker) * 0xd1b54a32d192ed03ull)};
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
  return order;
}

}  // namespace kex
