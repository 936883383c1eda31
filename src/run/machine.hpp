// What kex sees of this machine: CPU identity and features, caches, TSC rate,
// PMU availability, kernel, virtualisation, THP (docs/methodology.md §0, §2.8).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kex {

/// CPU features that gate kernels (CPUID, with XCR0 checked for AVX state).
struct CpuFeatures {
  bool mmx = false, sse = false, sse2 = false, avx = false, avx2 = false, avx512f = false;
  bool erms = false, fsrm = false, prefetchw = false, amd3dnow = false, amd3dnow_prefetch = false;
  bool clflushopt = false, rdtscp = false, invariant_tsc = false, hypervisor = false;
  bool fsgsbase_enabled = false;  ///< AT_HWCAP2 FSGSBASE: the kernel lets user space use wr{fs,gs}base
};

/// Data cache sizes in bytes (0 when unknown).
struct CacheSizes {
  uint64_t l1d = 0, l2 = 0, llc = 0;
  std::string source;  ///< "sysfs", "cpuid 0x80000005/6", "cpuid 4"
};

struct Machine {
  std::string vendor, model_name;
  int family = 0, model = 0, stepping = 0;
  CpuFeatures features;
  CacheSizes caches;
  double tsc_hz = 0;          ///< TSC ticks per second
  std::string tsc_source;     ///< "cpuid 0x15", "calibrated vs CLOCK_MONOTONIC_RAW (N ms)"
  double cpuinfo_mhz = 0;     ///< /proc/cpuinfo "cpu MHz" (0 if absent)
  std::string kernel;         ///< uname -r
  std::string hypervisor;     ///< CPUID hypervisor vendor string, "" on bare metal
  std::string thp;            ///< transparent_hugepage/enabled, e.g. "always [madvise] never"
  bool pmu_available = false; ///< perf_event_open(PERF_COUNT_HW_CPU_CYCLES) works
  std::string pmu_error;      ///< errno text when it does not
  int num_cpus = 0;
};

/// Probes once (TSC calibration takes >= 100 ms the first time) and caches the result.
const Machine& machine();

/// The machine as the results' `context` fields.
nlohmann::ordered_json machine_json(const Machine&);

/// Serialised TSC reads: `lfence; rdtsc; lfence` (docs/methodology.md §2.1).
inline uint64_t tsc_fenced() {
  uint32_t lo, hi;
  asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
  return (uint64_t(hi) << 32) | lo;
}

/// Pins the calling thread to one CPU (the highest-numbered one allowed, so CPU 0
/// keeps interrupts). Returns the CPU, or -1 if pinning failed.
int pin_to_one_cpu();

/// Pins the calling thread to `cpu`; false when it is not allowed or pinning failed.
bool pin_thread_to(int cpu);

/// Estimated core cycles per TSC tick: a dependent `imul` chain (3-cycle latency
/// on every x86-64 core since Nehalem/Zen) timed with the TSC. ~10 µs.
double core_cycles_per_tick();

}  // namespace kex
