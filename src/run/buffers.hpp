// Measurement buffers: 2 MiB-aligned anonymous mappings, THP-advised, prefaulted.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "src/model/config.hpp"

namespace kex {

/// One mapping holding src and dst for every size of a sweep, placed per Layout:
/// src at base + src_offset; dst at a separate 2 MiB-aligned region + dst_offset,
/// or at src + distance when a distance is set. Prefaulted (written) on creation.
/// Throws InputError when the mapping cannot be made.
class Buffers {
 public:
  Buffers(uint64_t max_size, const Layout& layout);
  ~Buffers();
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  uint8_t* src() const { return src_; }
  uint8_t* dst() const { return dst_; }
  /// "THP: 64 MiB of 130 MiB in huge pages" style note from /proc/self/smaps_rollup.
  std::string huge_page_note() const;
  /// Evicts [p, p+n) from every cache level (clflushopt or clflush, then mfence).
  static void flush(const void* p, size_t n);

 private:
  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
  uint8_t* src_ = nullptr;
  uint8_t* dst_ = nullptr;
};

}  // namespace kex
