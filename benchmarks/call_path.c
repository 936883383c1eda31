// call_path.c: a plain C loop of back-to-back libc calls, the reference kex's generated timed
// loop is checked against (issue 50: "at 256 B and 4 KiB kex's time per call for glibc's
// memcpy agrees within 10% with a plain C loop"). Each call goes through the PLT to the
// memcpy (or memset) ifunc chose, on warm buffers at 2 MiB boundaries, as kex's default
// layout places them. Every round times each size once (CALLS calls back to back), sizes
// interleaved, ROUNDS rounds; it prints the median and the best of the rounds per call.
// Build: cc -O2 -fno-builtin -o call_path benchmarks/call_path.c
// Run:   ./call_path [-c CPU] [-f memcpy|memset] [-r ROUNDS] SIZE...   (benchmarks/call_path.sh runs it beside kex)
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static uint64_t tsc(void) {
  unsigned aux;
  _mm_lfence();
  uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// TSC ticks per second over 200 ms of CLOCK_MONOTONIC_RAW.
static double tsc_hz(void) {
  const double s0 = now_s();
  const uint64_t t0 = tsc();
  while (now_s() - s0 < 0.2) {
  }
  return (double)(tsc() - t0) / (now_s() - s0);
}

static uint8_t* region(size_t bytes) {
  const size_t align = 2u << 20;
  uint8_t* p = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) exit(2);
  p = (uint8_t*)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
  memset(p, 1, bytes);
  return p;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int cpu = -1, rounds = 201, opt;
  const char* fn = "memcpy";
  while ((opt = getopt(argc, argv, "c:f:r:")) != -1) {
    if (opt == 'c') cpu = atoi(optarg);
    else if (opt == 'f') fn = optarg;
    else if (opt == 'r') rounds = atoi(optarg);
    else return 2;
  }
  const int n = argc - optind;
  if (n < 1 || rounds < 1 || (strcmp(fn, "memcpy") && strcmp(fn, "memset"))) {
    fprintf(stderr, "usage: call_path [-c CPU] [-f memcpy|memset] [-r ROUNDS] SIZE...\n");
    return 2;
  }
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  size_t* size = calloc(n, sizeof *size);
  size_t most = 0;
  for (int i = 0; i < n; ++i) {
    size[i] = strtoull(argv[optind + i], NULL, 0);
    if (size[i] > most) most = size[i];
  }
  uint8_t* src = region(most + 4096);
  uint8_t* dst = region(most + 4096);
  const double hz = tsc_hz();
  double* t = calloc((size_t)n * rounds, sizeof *t);
  const int copy = strcmp(fn, "memcpy") == 0;
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < n; ++i) {
      volatile size_t vn = size[i];
      const size_t len = vn;
      // About 20 us of calls, at least 16.
      const uint64_t calls = len < 4096 ? 2000 : len < (1u << 20) ? 64 : 16;
      const uint64_t a = tsc();
      for (uint64_t c = 0; c < calls; ++c) {
        if (copy) memcpy(dst, src, len);
        else memset(dst, 0, len);
        __asm__ volatile("" ::: "memory");
      }
      t[(size_t)i * rounds + r] = (double)(tsc() - a) / calls / hz * 1e9;
    }
  printf("# %s, plain C loop of back-to-back calls through the PLT, %d interleaved rounds, TSC %.3f GHz\n", fn,
         rounds, hz / 1e9);
  printf("%10s %12s %12s %10s\n", "size", "median_ns", "best_ns", "GB/s");
  for (int i = 0; i < n; ++i) {
    double* row = t + (size_t)i * rounds;
    qsort(row, rounds, sizeof *row, cmp);
    const double med = row[rounds / 2];
    printf("%10zu %12.3f %12.3f %10.2f\n", size[i], med, row[0], size[i] / med);
  }
  return 0;
}
