// Measurement buffers: 2 MiB-aligned anonymous mappings, THP-advised or not,
// prefaulted, with room for every layout of a run (offsets, distances, sizes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/point.hpp"
#include "src/model/result.hpp"

namespace kex {

/// Where one point's src and dst are, or why the kernel cannot take that layout.
struct Place {
  uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  Placement placed;
  std::string refusal;  ///< "" when src and dst are usable
};

/// One mapping (per huge-page setting) holding src and dst for every (layout,
/// size) it was made for: src at A + src_offset, dst at B + dst_offset (separate
/// buffers) or src + distance; A and B 2 MiB-aligned, A far enough up for
/// negative distances. Prefaulted (written) on creation, so no point pays for
/// first touches or reads the shared zero page. Throws InputError when the mapping
/// cannot be made.
class Buffers {
 public:
  /// `layouts` with their largest size each; `max_alignment` the largest pad an
  /// aligned kernel may need.
  Buffers(const std::vector<std::pair<Layout, uint64_t>>& layouts, uint32_t max_alignment, bool huge_pages);
  ~Buffers();
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  /// src and dst for a layout (one this mapping was made for) and a kernel that
  /// needs `alignment`: offsets are rounded up to it; a distance that is not a
  /// multiple of it is refused (the kernel would get a pointer it cannot take).
  Place place(const Layout& l, uint32_t alignment) const;

  size_t bytes() const { return bytes_; }
  /// "64 MiB of the process in transparent huge pages" from /proc/self/smaps_rollup.
  static std::string huge_page_note();
  /// Evicts [p, p+n) from every cache level (clflushopt or clflush, then mfence).
  static void flush(const void* p, size_t n);

 private:
  uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0, bytes_ = 0;
  uint8_t* a_ = nullptr;  ///< src anchor
  uint8_t* b_ = nullptr;  ///< separate dst anchor
};

}  // namespace kex
