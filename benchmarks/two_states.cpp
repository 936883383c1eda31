// Does this CPU run in two states, and can a short L1 probe tell which one?
//
// Pinned to one CPU, it alternates for SECONDS (default 10): a probe (the best
// of 5 trials of 16 AVX store passes over a 4 KiB L1 buffer, TSC ticks per KiB),
// glibc memcpy of 1 KiB and of 16 KiB (median of 50 samples, TSC ticks per call),
// and the probe again; then it prints the distributions, the share of time in the
// fast state (memcpy 1 KiB below 1.3x its 2nd percentile), each state's medians,
// how long a state lasts, and how well the probe before a measurement predicts it.
// A figure, not a test: benchmarks/results/2026-12-01-two-states.md gives what it printed
// on the Zen 3 VM (docs/methodology.md §6, "Two states", what was concluded).
//
// Build and run: make two_states (in build/) && build/two_states [SECONDS] [CPU]
#include <immintrin.h>
#include <sched.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

uint64_t ticks() {
  unsigned aux;
  return __rdtscp(&aux);
}

alignas(64) char l1[4096];
alignas(64) char src[16384], dst[16384];

__attribute__((noinline, target("avx"))) void store_passes(int passes) {
  const __m256 z = _mm256_setzero_ps();
  for (int k = 0; k < passes; ++k)
    for (int i = 0; i < 4096; i += 128) {
      _mm256_store_ps(reinterpret_cast<float*>(l1 + i), z);
      _mm256_store_ps(reinterpret_cast<float*>(l1 + i + 32), z);
      _mm256_store_ps(reinterpret_cast<float*>(l1 + i + 64), z);
      _mm256_store_ps(reinterpret_cast<float*>(l1 + i + 96), z);
    }
  asm volatile("" ::: "memory");
}

/// TSC ticks per KiB stored, best of 5 trials of 16 passes (64 KiB).
double probe() {
  uint64_t best = UINT64_MAX;
  for (int r = 0; r < 5; ++r) {
    const uint64_t a = ticks();
    store_passes(16);
    best = std::min(best, ticks() - a);
  }
  return double(best) / 64.0;
}

/// TSC ticks per memcpy of n bytes: the median of 50 samples.
double copy_ticks(size_t n) {
  const int calls = n <= 1024 ? 200 : 20;
  std::vector<uint64_t> s;
  for (int i = 0; i < 50; ++i) {
    const uint64_t a = ticks();
    for (int j = 0; j < calls; ++j) {
      std::memcpy(dst, src, n);
      asm volatile("" ::: "memory");
    }
    s.push_back(ticks() - a);
  }
  std::nth_element(s.begin(), s.begin() + 25, s.end());
  return double(s[25]) / calls;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

struct Row {
  double at_s, probe_before, copy_1k, copy_16k, probe_after;
};

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10;
  const int cpu = argc > 2 ? std::atoi(argv[2]) : 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::fprintf(stderr, "two_states: cannot pin to CPU %d\n", cpu);
  std::vector<Row> rows;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (elapsed() < seconds) {
    Row r;
    r.probe_before = probe();
    r.copy_1k = copy_ticks(1024);
    r.copy_16k = copy_ticks(16384);
    r.probe_after = probe();
    r.at_s = elapsed();
    rows.push_back(r);
  }
  std::vector<double> pb, c1, c16;
  for (const Row& r : rows) {
    pb.push_back(r.probe_before);
    c1.push_back(r.copy_1k);
    c16.push_back(r.copy_16k);
  }
  std::printf("%zu rounds in %.1f s on CPU %d (TSC ticks)\n", rows.size(), seconds, cpu);
  std::printf("%-22s %9s %9s %9s\n", "", "p5", "p50", "p95");
  std::printf("%-22s %9.2f %9.2f %9.2f\n", "L1 probe per KiB", quantile(pb, .05), quantile(pb, .5), quantile(pb, .95));
  std::printf("%-22s %9.2f %9.2f %9.2f\n", "memcpy 1 KiB", quantile(c1, .05), quantile(c1, .5), quantile(c1, .95));
  std::printf("%-22s %9.1f %9.1f %9.1f\n", "memcpy 16 KiB", quantile(c16, .05), quantile(c16, .5), quantile(c16, .95));
  // The fast state: memcpy 1 KiB within 1.3x of its 2nd percentile.
  const double fast_limit = 1.3 * quantile(c1, .02);
  std::vector<double> fp, sp, f1, s1, f16, s16;
  for (const Row& r : rows) {
    const bool fast = r.copy_1k < fast_limit;
    (fast ? fp : sp).push_back(r.probe_before);
    (fast ? f1 : s1).push_back(r.copy_1k);
    (fast ? f16 : s16).push_back(r.copy_16k);
  }
  std::printf("fast state: %.0f%% of rounds\n", 100.0 * double(f1.size()) / double(rows.size()));
  if (!f1.empty() && !s1.empty())
    std::printf("medians, fast / slow: probe %.2f / %.2f, memcpy 1 KiB %.2f / %.2f (%.2fx), 16 KiB %.1f / %.1f (%.2fx)\n",
                quantile(fp, .5), quantile(sp, .5), quantile(f1, .5), quantile(s1, .5),
                quantile(s1, .5) / quantile(f1, .5), quantile(f16, .5), quantile(s16, .5),
                quantile(s16, .5) / quantile(f16, .5));
  // How long a state lasts, and whether the probe before a round predicts its state.
  std::vector<double> dwell_fast, dwell_slow;
  double start = 0;
  for (size_t i = 1; i <= rows.size(); ++i) {
    const bool prev = rows[i - 1].copy_1k < fast_limit;
    if (i == rows.size() || (rows[i].copy_1k < fast_limit) != prev) {
      (prev ? dwell_fast : dwell_slow).push_back(rows[i - 1].at_s - start);
      start = rows[i - 1].at_s;
    }
  }
  if (!dwell_fast.empty() && !dwell_slow.empty())
    std::printf("state changes: %zu; median stay: fast %.1f ms, slow %.1f ms (a round is %.2f ms)\n",
                dwell_fast.size() + dwell_slow.size(), 1e3 * quantile(dwell_fast, .5), 1e3 * quantile(dwell_slow, .5),
                1e3 * seconds / double(rows.size()));
  if (!fp.empty() && !sp.empty()) {
    const double cut = (quantile(fp, .5) + quantile(sp, .5)) / 2;
    size_t right = 0;
    for (const Row& r : rows) right += (r.probe_before < cut) == (r.copy_1k < fast_limit);
    std::printf("the probe before a round (cut %.2f ticks/KiB) names its state in %.0f%% of rounds\n", cut,
                100.0 * double(right) / double(rows.size()));
  }
}
