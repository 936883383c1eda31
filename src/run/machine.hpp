// What kex sees of this machine: CPU identity and features, caches, TSC rate,
// PMU availability, kernel, virtualisation, THP, frequency scaling
// (docs/methodology.md §0, §2.8); pinning to a CPU; the load average.
#pragma once
#include <cstdint>
#include <string>
#include <vector>


#include "src/core/affinity.hpp"
#include "src/core/cpu_features.hpp"
#include "src/model/context.hpp"
#include "src/run/topology.hpp"

namespace kex {

/// Data cache sizes in bytes (0 when unknown) of Machine::cache_cpu.
struct CacheSizes {
  uint64_t l1d = 0, l2 = 0, llc = 0;
  std::string source;  ///< CpuCaches::source: "hwloc", "sysfs", "cpuid 0x8000001d", "cpuid 0x80000005/6", "cpuid 4"
};

/// Frequency scaling, judged as Google Benchmark judges it (its CpuScaling()):
/// enabled when any CPU's cpufreq/scaling_governor can be read
/// and is not "performance"; disabled when every readable one is "performance"
/// or none exists (a VM without cpufreq).
struct CpuScaling {
  bool enabled = false;
  /// The governor of each online CPU whose file could be read, as "cpuN:governor".
  std::vector<std::string> governors;
};

/// Reads the governors under `cpu_dir` (/sys/devices/system/cpu: its `online` list
/// and cpuN/cpufreq/scaling_governor).
CpuScaling cpu_scaling(const std::string& cpu_dir = "/sys/devices/system/cpu");

/// Google Benchmark's console warning when scaling is enabled, word for word.
inline constexpr const char* kCpuScalingWarning =
    "***WARNING*** CPU scaling is enabled, the benchmark real time measurements may be noisy and will incur extra "
    "overhead.";

/// The 1-, 5- and 15-minute load averages (getloadavg(3)), or empty when the
/// kernel gives none: Google Benchmark's context "load_avg". Record it at the
/// start and end of a run.
std::vector<double> load_average();

/// Everything machine() probes: what results' context records about this machine.
struct Machine {
  std::string vendor, model_name;       ///< CPUID vendor and brand strings
  int family = 0, model = 0, stepping = 0;  ///< display values (Xbyak's util::Cpu)
  std::string microcode;      ///< /proc/cpuinfo "microcode" of cache_cpu, e.g. "0x1000065"; "" if absent
  FeatureSet feature_set;     ///< every feature of the table present (host_features(): CPUID, with XCR0
                              ///< checked for AVX state)
  bool fsgsbase_enabled = false;  ///< AT_HWCAP2 FSGSBASE: the kernel lets user space use wr{fs,gs}base
  int cache_cpu = -1;         ///< the CPU caches describe: the one pin_to_one_cpu() chooses
  CacheSizes caches;          ///< of cache_cpu
  CpuCaches cache_levels;     ///< of cache_cpu, every level with its sharing CPUs
  int numa_nodes = 1;         ///< NUMA nodes (hwloc)
  int numa_node = -1;         ///< node of cache_cpu, -1 if unknown
  double tsc_hz = 0;          ///< TSC ticks per second
  std::string tsc_source;     ///< "cpuid 0x15", "calibrated vs CLOCK_MONOTONIC_RAW (N ms)"
  double cpuinfo_mhz = 0;     ///< /proc/cpuinfo "cpu MHz" (0 if absent)
  std::string kernel;         ///< uname -s -r: "Linux 6.1.0-18-amd64"
  std::string kernel_version; ///< uname -v: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1"
  std::string hypervisor;     ///< its name ("KVM", "Microsoft Hyper-V", "VMware", ...), "" on bare metal
  std::string hypervisor_signature;  ///< raw CPUID 0x40000000 signature ("KVMKVMKVM"), "" on bare metal
  std::string thp;            ///< transparent_hugepage/enabled, e.g. "always [madvise] never"
  bool pmu_available = false; ///< perf_event_open(PERF_COUNT_HW_CPU_CYCLES) works (pmu_status())
  std::string pmu_error;      ///< errno text when it does not
  bool cpu_scaling_enabled = false;  ///< cpu_scaling().enabled when probed
  std::vector<std::string> scaling_governors;  ///< cpu_scaling().governors when probed
  int num_cpus = 0;
};

/// One processor's block of /proc/cpuinfo: "cpu MHz" (0 if absent) and "microcode"
/// ("" if absent).
struct CpuinfoBlock {
  double mhz = 0;
  std::string microcode;
};

/// The block of `cpu`, or the first block when that CPU has none; empty without
/// /proc/cpuinfo.
CpuinfoBlock cpuinfo_of(int cpu);

/// Probes once (TSC calibration takes >= 100 ms the first time) and caches the result.
const Machine& machine();

/// The machine as results describe it (context.machine).
MachineInfo machine_info(const Machine&);

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

/// The CPU pin_to_one_cpu() would choose now: the highest allowed; -1 if none.
int default_pin_cpu();

/// Pins the calling thread to OS CPU `cpu` and returns it. Throws InputError
/// naming --cpu, the value and the allowed CPUs when `cpu` is not in the
/// affinity mask (after pinning, the mask is that one CPU).
int pin_to_cpu(int cpu);

/// Estimated core cycles per TSC tick: a dependent `imul` chain (3-cycle latency
/// on every x86-64 core since Nehalem/Zen) timed with the TSC. ~10 µs.
double core_cycles_per_tick();

}  // namespace kex
