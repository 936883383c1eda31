// Measurement buffers: 2 MiB-aligned anonymous mappings, THP-advised or not,
// prefaulted, with room for every layout of a run (offsets, distances, sizes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/model/point.hpp"
#include "src/model/result.hpp"

namespace kex {

/// Where one point's src and dst are, or why the kernel cannot take that layout.
struct Place {
  uint8_t* src = nullptr;   ///< set by Buffers::place (null from BufferPlan::place)
  uint8_t* dst = nullptr;
  uint64_t src_at = 0;      ///< offsets from the mapping's aligned start
  uint64_t dst_at = 0;
  Placement placed;
  std::string refusal;  ///< "" when src and dst are usable
};

/// Adds (l, size) to `layouts` (a layout and the largest size it holds), or widens the
/// entry of `l` to `size`: what a BufferPlan is made of.
void add_layout(std::vector<std::pair<Layout, uint64_t>>& layouts, const Layout& l, uint64_t size);

/// Where everything goes in one mapping (per huge-page setting) holding src and dst
/// for every (layout, size) it is made for: src at A + src_offset, dst at B +
/// dst_offset (separate buffers) or src + distance; A and B 2 MiB-aligned, A far
/// enough up for negative distances. Pure arithmetic: placements are known before
/// any memory is mapped (verification needs them; the measuring process maps).
class BufferPlan {
 public:
  /// `layouts` with their largest size each; `max_alignment` the largest pad an
  /// aligned kernel may need.
  BufferPlan(const std::vector<std::pair<Layout, uint64_t>>& layouts, uint32_t max_alignment, bool huge_pages);

  /// src and dst offsets (from the mapping's aligned start) for a layout this plan
  /// was made for and a kernel that needs `alignment`: offsets are rounded up to
  /// it; a distance that is not a multiple of it is refused (the kernel would get
  /// a pointer it cannot take). Only the offsets (src_at, dst_at) are set.
  Place place(const Layout& l, uint32_t alignment) const;

  uint64_t bytes() const { return bytes_; }
  bool huge_pages() const { return huge_; }
  uint32_t max_alignment() const { return max_align_; }
  /// The bytes a plan for this one point (layout and size) alone would map.
  uint64_t footprint(const Layout& l, uint64_t size) const;

 private:
  uint64_t a_off_ = 0, b_off_ = 0, bytes_ = 0;
  uint32_t max_align_ = 1;
  bool huge_ = true;
};

/// The mapping of a BufferPlan: 2 MiB-aligned, THP-advised or not, prefaulted
/// (written with a pattern) on creation, so no point pays for first touches or
/// reads the shared zero page. Throws InputError ("cannot map 2.0 GiB of buffers:
/// REASON", with the address-space limit when there is one) when it cannot be mapped.
class Buffers {
 public:
  explicit Buffers(const BufferPlan& plan);
  ~Buffers();
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  /// BufferPlan::place with real pointers into this mapping.
  Place place(const Layout& l, uint32_t alignment) const;

  /// Bytes of the mapping (plan.bytes()) and where they really are: the distinct
  /// NUMA nodes holding its pages (ascending; empty when unknown) and the bytes in
  /// transparent huge pages (AnonHugePages of /proc/self/smaps; -1 when unknown).
  uint64_t bytes() const { return plan_.bytes(); }
  std::vector<int> numa_nodes() const;
  int64_t huge_page_bytes() const;
  /// Evicts [p, p+n) from every cache level (clflushopt or clflush, then mfence).
  static void flush(const void* p, size_t n);

 private:
  BufferPlan plan_;
  uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint8_t* base_ = nullptr;
};

/// One point that uses a buffer plan: its layout and size.
struct PlanPoint {
  Layout layout;
  uint64_t size = 0;
};

/// A BufferPlan mapped as far as the address space allows (RLIMIT_AS, ulimit -v):
/// the whole plan; or, when that cannot be mapped, the plan of its points whose own
/// buffers (footprint) are at most the largest size that can be, so a 4 KiB point
/// never fails with a 2 GiB one. Points share one mapping either way, and every
/// point is placed at the same offsets modulo 2 MiB as in the whole plan.
class PlanBuffers {
 public:
  /// Maps `plan` for `points` (those that use it).
  PlanBuffers(const BufferPlan& plan, const std::vector<PlanPoint>& points);
  /// Where the point goes in the mapping, or a refusal when it is outside it:
  /// "cannot map 2.0 GiB of buffers for this point (Cannot allocate memory; the
  /// address-space limit (ulimit -v) is 1.0 GiB)".
  Place place(const Layout& l, uint64_t size, uint32_t alignment) const;
  /// The mapping (null when not even the smallest point's buffers could be mapped).
  const Buffers* mapped() const { return buffers_.get(); }
  /// The whole plan's bytes (more than the mapping's when only part of it fits).
  uint64_t planned_bytes() const { return plan_.bytes(); }

 private:
  BufferPlan plan_;
  std::unique_ptr<Buffers> buffers_;
  uint64_t covered_ = UINT64_MAX;  ///< the largest footprint in the mapping (UINT64_MAX: the whole plan)
  std::string why_;                ///< why the whole plan could not be mapped
};

}  // namespace kex
