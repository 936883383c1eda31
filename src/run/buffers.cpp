#include "src/run/buffers.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "src/core/error.hpp"
#include "src/run/machine.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {
constexpr uint64_t k2M = 2ull << 20;
uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

__attribute__((target("clflushopt"))) void flush_opt(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflushopt(p + i);
}
void flush_plain(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflush(p + i);
}
}  // namespace

Buffers::Buffers(uint64_t max_size, const Layout& l) {
  const uint64_t span = round_up(max_size + std::max(l.src_offset, l.dst_offset) + 4096, k2M);
  uint64_t src_region = 0, dst_region = span;
  if (l.distance) {
    // One region; dst = src + distance, so shift src up when distance is negative.
    int64_t d = *l.distance;
    src_region = d < 0 ? round_up(static_cast<uint64_t>(-d), k2M) : 0;
    bytes_ = round_up(src_region + span + (d > 0 ? static_cast<uint64_t>(d) : 0), k2M);
  } else {
    bytes_ = 2 * span;
  }
  // Over-allocate by 2 MiB to align the start for THP.
  void* p = mmap(nullptr, bytes_ + k2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw InputError("cannot map " + format_bytes(bytes_) + " of buffers: " + std::strerror(errno));
  base_ = static_cast<uint8_t*>(p);
  uint8_t* aligned = reinterpret_cast<uint8_t*>(round_up(reinterpret_cast<uintptr_t>(base_), k2M));
  madvise(aligned, bytes_, l.huge_pages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  src_ = aligned + src_region + l.src_offset;
  dst_ = l.distance ? src_ + *l.distance : aligned + dst_region + l.dst_offset;
  // Prefault every page: first touch costs ~11 µs per 4 KiB page in a VM (docs/methodology.md §2.5).
  for (uint64_t i = 0; i < bytes_; i += 4096) aligned[i] = static_cast<uint8_t>(i >> 12);
  for (uint64_t i = 0; i < max_size; ++i) src_[i] = static_cast<uint8_t>(i * 7 + 1);
  bytes_ += k2M;
}

Buffers::~Buffers() {
  if (base_) munmap(base_, bytes_);
}

std::string Buffers::huge_page_note() const {
  std::ifstream f("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("AnonHugePages:", 0) == 0) {
      uint64_t kb = std::stoull(line.substr(14));
      return format_bytes(kb * 1024) + " of the process in transparent huge pages";
    }
  return "unknown";
}

void Buffers::flush(const void* p, size_t n) {
  auto* b = static_cast<const uint8_t*>(p);
  uintptr_t start = reinterpret_cast<uintptr_t>(b) & ~uintptr_t(63);
  size_t len = n + (reinterpret_cast<uintptr_t>(b) - start);
  if (machine().features.clflushopt) flush_opt(reinterpret_cast<const uint8_t*>(start), len);
  else flush_plain(reinterpret_cast<const uint8_t*>(start), len);
  asm volatile("mfence" ::: "memory");
}

}  // namespace kex
