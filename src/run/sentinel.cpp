#include "src/run/sentinel.hpp"

#include <emmintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "src/run/machine.hpp"

namespace kex {

double DisturbanceDetector::median(const std::deque<double>& v) {
  if (v.empty()) return 0;
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

bool DisturbanceDetector::add(SentinelReading& r) {
  ++count_;
  const double b1 = median(l1_), bm = median(mem_);
  const bool slow_l1 = b1 > 0 && r.l1_ticks_per_kib > b1 * (1 + threshold_);
  const bool slow_mem = bm > 0 && r.mem_ticks_per_kib > 0 && r.mem_ticks_per_kib > bm * (1 + threshold_);
  r.disturbed = slow_l1 || slow_mem;
  if (r.disturbed) {
    ++disturbed_;
    return true;
  }
  l1_.push_back(r.l1_ticks_per_kib);
  if (r.mem_ticks_per_kib > 0) mem_.push_back(r.mem_ticks_per_kib);
  while (l1_.size() > window_) l1_.pop_front();
  while (mem_.size() > window_) mem_.pop_front();
  return false;
}

namespace {

constexpr size_t kL1Bytes = 16 << 10;

__attribute__((noinline)) void store_loop(uint8_t* p) {
  const __m128i v = _mm_set1_epi8(0x5a);
  for (size_t i = 0; i < kL1Bytes; i += 64) {
    _mm_store_si128(reinterpret_cast<__m128i*>(p + i), v);
    _mm_store_si128(reinterpret_cast<__m128i*>(p + i + 16), v);
    _mm_store_si128(reinterpret_cast<__m128i*>(p + i + 32), v);
    _mm_store_si128(reinterpret_cast<__m128i*>(p + i + 48), v);
  }
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) uint64_t read_loop(const uint8_t* p, size_t n) {
  __m128i a = _mm_setzero_si128(), b = _mm_setzero_si128();
  for (size_t i = 0; i < n; i += 64) {
    a = _mm_add_epi64(a, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i)));
    b = _mm_add_epi64(b, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 16)));
    a = _mm_add_epi64(a, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 32)));
    b = _mm_add_epi64(b, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 48)));
  }
  a = _mm_add_epi64(a, b);
  return static_cast<uint64_t>(_mm_cvtsi128_si64(a));
}

volatile uint64_t g_sentinel_sink;

}  // namespace

Sentinel::Sentinel(uint64_t mem_bytes) : mem_bytes_(mem_bytes / 64 * 64) {
  void* p = mmap(nullptr, kL1Bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("sentinel: mmap failed");
  l1_ = static_cast<uint8_t*>(p);
  if (mem_bytes_) {
    p = mmap(nullptr, mem_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("sentinel: mmap failed");
    mem_ = static_cast<uint8_t*>(p);
    madvise(mem_, mem_bytes_, MADV_HUGEPAGE);
    for (uint64_t i = 0; i < mem_bytes_; i += 8) *reinterpret_cast<uint64_t*>(mem_ + i) = i;
  }
  store_loop(l1_);
}

Sentinel::~Sentinel() {
  munmap(l1_, kL1Bytes);
  if (mem_) munmap(mem_, mem_bytes_);
}

SentinelReading Sentinel::measure() {
  SentinelReading r;
  std::vector<uint64_t> t;
  for (int s = 0; s < 15; ++s) {
    const uint64_t a = tsc_fenced();
    for (int k = 0; k < 8; ++k) store_loop(l1_);
    t.push_back(tsc_fenced() - a);
  }
  std::nth_element(t.begin(), t.begin() + 7, t.end());
  r.l1_ticks_per_kib = double(t[7]) / (8.0 * kL1Bytes / 1024);
  if (mem_) {
    uint64_t best = ~0ull;
    for (int s = 0; s < 2; ++s) {
      const uint64_t a = tsc_fenced();
      g_sentinel_sink = read_loop(mem_, mem_bytes_);
      best = std::min(best, tsc_fenced() - a);
    }
    r.mem_ticks_per_kib = double(best) / (double(mem_bytes_) / 1024);
  }
  return r;
}

}  // namespace kex
