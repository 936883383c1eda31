// An independent reference for `kex ceilings`: plain C loops, no kex code, one core.
// read: XOR of every 8-byte word (the result kept); write: 8-byte stores of a pattern;
// nt_write: 16-byte non-temporal stores (_mm_stream_si128), sfence at the end. Per size,
// the three kinds run in turn in each round (the order rotates); a round's figure is a
// batch of calls of at least 0.5 ms; printed: the median, p10/p90 and best GB/s (1e9 B/s,
// bytes counted once) over rounds (on a shared machine the best is the figure least hit
// by other tenants).
// Build: gcc -O2 -o ceilings_ref benchmarks/ceilings_ref.c
// Usage: ceilings_ref CPU ROUNDS SIZE...   (sizes in bytes, e.g. the levels kex ceilings probes)
#define _GNU_SOURCE
#include <emmintrin.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static void read_words(uint64_t* p, size_t n) {
  uint64_t x = 0;
  for (size_t i = 0; i < n / 8; i++) x ^= p[i];
  sink = x;
}

// Without this GCC turns the loop into a call of memset, which is not a plain loop.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void write_words(uint64_t* p, size_t n) {
  for (size_t i = 0; i < n / 8; i++) p[i] = 0x0101010101010101ull;
}

static void nt_write(uint64_t* p, size_t n) {
  const __m128i v = _mm_set1_epi8(1);
  for (size_t i = 0; i < n / 16; i++) _mm_stream_si128((__m128i*)p + i, v);
  _mm_sfence();
}

typedef void (*kind_fn)(uint64_t*, size_t);

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/// GB/s of one batch of calls of `f` over n bytes lasting at least 0.5 ms.
static double batch(kind_fn f, uint64_t* p, size_t n) {
  f(p, n);  // warm
  long calls = 0;
  const double t0 = now();
  double t;
  do {
    f(p, n);
    ++calls;
    t = now() - t0;
  } while (t < 0.0005);
  return (double)n * calls / t / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: ceilings_ref CPU ROUNDS SIZE...\n");
    return 2;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(atoi(argv[1]), &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
  const int rounds = atoi(argv[2]);
  const char* names[] = {"read", "write", "nt_write"};
  const kind_fn fns[] = {read_words, write_words, nt_write};
  for (int a = 3; a < argc; a++) {
    const size_t n = (size_t)atoll(argv[a]) / 64 * 64;
    uint64_t* p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    memset(p, 1, n);
    double* g = calloc(3 * (size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++)
      for (int k0 = 0; k0 < 3; k0++) {
        const int k = (k0 + r) % 3;
        g[k * rounds + r] = batch(fns[k], p, n);
      }
    for (int k = 0; k < 3; k++) {
      double* v = g + k * rounds;
      qsort(v, rounds, sizeof(double), cmp);
      printf("%10zu %-8s %7.1f GB/s (p10 %.1f p90 %.1f best %.1f)\n", n, names[k], v[rounds / 2], v[rounds / 10],
             v[rounds * 9 / 10], v[rounds - 1]);
    }
    free(g);
    free(p);
  }
  return 0;
}
