#include "src/run/buffers.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "src/core/units.hpp"
#include "src/run/topology.hpp"

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
uint32_t mod_page(int64_t x) { return static_cast<uint32_t>(((x % int64_t(kPageBytes)) + int64_t(kPageBytes)) % int64_t(kPageBytes)); }
}  // namespace

BufferPlan::BufferPlan(const std::vector<std::pair<Layout, uint64_t>>& layouts, uint32_t max_alignment,
                       bool huge_pages)
    : max_align_(max_alignment), huge_(huge_pages) {
  const uint64_t pad = std::max<uint64_t>(64, max_alignment);
  uint64_t below = 0, src_top = 0, dist_top = 0, dst_top = 0;
  for (const auto& [l, size] : layouts) {
    src_top = std::max(src_top, l.src_offset + pad + size);
    if (l.distance) {
      const int64_t d0 = int64_t(l.src_offset) + *l.distance;  // dst start relative to A (before padding)
      if (d0 < 0) below = std::max<uint64_t>(below, uint64_t(-d0));
      dist_top = std::max<int64_t>(int64_t(dist_top), d0 + int64_t(pad + size));
    } else {
      dst_top = std::max(dst_top, l.dst_offset + pad + size);
    }
  }
  a_off_ = round_up(below, k2M);
  b_off_ = a_off_ + round_up(std::max(src_top, dist_top) + kPageBytes, k2M);
  bytes_ = round_up(b_off_ + dst_top + kPageBytes, k2M);
}

Place BufferPlan::place(const Layout& l, uint32_t alignment) const {
  const uint64_t a = std::max<uint32_t>(1, alignment);
  Place p;
  const uint64_t pad_s = (a - l.src_offset % a) % a;
  const int64_t so = int64_t(l.src_offset + pad_s);
  p.src_at = a_off_ + uint64_t(so);
  int64_t rel_base;  // dst offset relative to its anchor
  if (l.distance) {
    if (*l.distance % int64_t(a)) {
      p.refusal = "this kernel needs src and dst aligned to " + std::to_string(a) + " bytes; distance " +
                  std::to_string(*l.distance) + " is not a multiple of " + std::to_string(a);
      return p;
    }
    rel_base = so + *l.distance;
    p.dst_at = uint64_t(int64_t(a_off_) + rel_base);
  } else {
    const uint64_t pad_d = (a - l.dst_offset % a) % a;
    rel_base = int64_t(l.dst_offset + pad_d);
    p.dst_at = b_off_ + uint64_t(rel_base);
  }
  p.placed.src_offset = so;
  p.placed.dst_offset = rel_base;
  p.placed.src_page_offset = mod_page(so);
  p.placed.dst_page_offset = mod_page(rel_base);
  p.placed.relative_offset = mod_page(int64_t(p.dst_at) - int64_t(p.src_at));
  p.placed.rounded_to = (pad_s || (l.distance ? false : rel_base != int64_t(l.dst_offset))) ? uint32_t(a) : 1;
  return p;
}

uint64_t BufferPlan::footprint(const Layout& l, uint64_t size) const {
  return BufferPlan({{l, size}}, max_align_, huge_).bytes();
}

namespace {

/// The mapping a BufferPlan of `bytes` takes (over-allocated to align the start for THP).
void* map_plan(uint64_t bytes) {
  return mmap(nullptr, bytes + k2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/// Whether a plan of `bytes` can be mapped now (mapped and unmapped at once, untouched).
bool can_map(uint64_t bytes) {
  void* p = map_plan(bytes);
  if (p == MAP_FAILED) return false;
  munmap(p, bytes + k2M);
  return true;
}

}  // namespace

Buffers::Buffers(const BufferPlan& plan) : plan_(plan) {
  map_bytes_ = plan.bytes() + k2M;
  void* p = map_plan(plan.bytes());
  if (p == MAP_FAILED) {
    const int err = errno;
    throw InputError("cannot map " + format_bytes(plan.bytes()) + " of buffers: " + std::strerror(err) +
                     limit_note(err));
  }
  map_ = static_cast<uint8_t*>(p);
  base_ = reinterpret_cast<uint8_t*>(round_up(reinterpret_cast<uintptr_t>(map_), k2M));
  madvise(base_, plan.bytes(), plan.huge_pages() ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  // Prefault every page with a pattern: first touch costs ~11 µs per 4 KiB page in a VM
  // (docs/methodology.md §2.5), and untouched pages would read the shared zero page.
  auto* w = reinterpret_cast<uint64_t*>(base_);
  for (uint64_t i = 0; i < plan.bytes() / 8; ++i) w[i] = i * 0x0701070107010701ull + 1;
}

Buffers::~Buffers() {
  if (map_) munmap(map_, map_bytes_);
}

Place Buffers::place(const Layout& l, uint32_t alignment) const {
  Place p = plan_.place(l, alignment);
  if (!p.refusal.empty()) return p;
  p.src = base_ + p.src_at;
  p.dst = base_ + p.dst_at;
  return p;
}

std::vector<int> Buffers::numa_nodes() const { return numa_nodes_of(base_, plan_.bytes()); }

int64_t Buffers::huge_page_bytes() const {
  // smaps lists each mapping as "start-end perms ..." followed by its fields.
  std::ifstream f("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(base_);
  std::string line;
  bool ours = false;
  while (std::getline(f, line)) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      ours = lo <= at && at < hi;
      continue;
    }
    if (ours && line.rfind("AnonHugePages:", 0) == 0) return int64_t(std::stoull(line.substr(14))) * 1024;
  }
  return -1;
}

void add_layout(std::vector<std::pair<Layout, uint64_t>>& layouts, const Layout& l, uint64_t size) {
  auto it = std::find_if(layouts.begin(), layouts.end(), [&](const auto& x) { return x.first == l; });
  if (it == layouts.end()) layouts.push_back({l, size});
  else it->second = std::max(it->second, size);
}

PlanBuffers::PlanBuffers(const BufferPlan& plan, const std::vector<PlanPoint>& points) : plan_(plan) {
  if (can_map(plan.bytes())) {
    buffers_ = std::make_unique<Buffers>(plan);
    return;
  }
  const int err = errno;
  why_ = std::string(std::strerror(err)) + limit_note(err);
  // The largest footprint F whose points' plan maps: footprints ascending, then a
  // binary search (a larger F only adds points, so what maps is a prefix).
  std::vector<uint64_t> fp;
  for (const PlanPoint& p : points) fp.push_back(plan.footprint(p.layout, p.size));
  std::vector<uint64_t> sizes = fp;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  auto plan_within = [&](uint64_t f) {
    std::vector<std::pair<Layout, uint64_t>> layouts;
    for (size_t i = 0; i < points.size(); ++i) {
      if (fp[i] <= f) add_layout(layouts, points[i].layout, points[i].size);
    }
    return BufferPlan(layouts, plan.max_alignment(), plan.huge_pages());
  };
  size_t lo = 0, hi = sizes.size();  // sizes[0, lo) map; sizes[hi, end) do not
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (can_map(plan_within(sizes[mid]).bytes())) lo = mid + 1;
    else hi = mid;
  }
  covered_ = 0;
  if (lo == 0) return;
  covered_ = sizes[lo - 1];
  buffers_ = std::make_unique<Buffers>(plan_within(covered_));
}

Place PlanBuffers::place(const Layout& l, uint64_t size, uint32_t alignment) const {
  const uint64_t need = plan_.footprint(l, size);
  if (!buffers_ || (covered_ != UINT64_MAX && need > covered_)) {
    Place p;
    p.refusal = "cannot map " + format_bytes(need) + " of buffers for this point (" + why_ + ")";
    return p;
  }
  return buffers_->place(l, alignment);
}

void Buffers::flush(const void* p, size_t n) {
  auto* b = static_cast<const uint8_t*>(p);
  uintptr_t start = reinterpret_cast<uintptr_t>(b) & ~uintptr_t(63);
  size_t len = n + (reinterpret_cast<uintptr_t>(b) - start);
  if (host_features().has(Feature::clflushopt)) flush_opt(reinterpret_cast<const uint8_t*>(start), len);
  else flush_plain(reinterpret_cast<const uint8_t*>(start), len);
  asm volatile("mfence" ::: "memory");
}

}  // namespace kex
