#include "src/run/machine.hpp"

#include <cpuid.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "src/run/counters.hpp"

namespace kex {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

double monotonic_raw_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void probe_tsc(Machine& m) {
  uint32_t a = 0, b = 0, c = 0, d = 0;
  __cpuid(0, a, b, c, d);
  if (a >= 0x15) {
    __cpuid_count(0x15, 0, a, b, c, d);
    if (a && b && c) {
      m.tsc_hz = double(c) * b / a;
      m.tsc_source = "cpuid 0x15";
      return;
    }
  }
  // Calibrate against CLOCK_MONOTONIC_RAW for 120 ms (docs/methodology.md §2.2: >= 100 ms).
  const double span = 0.120;
  double t0 = monotonic_raw_s();
  uint64_t c0 = tsc_fenced();
  double t1;
  do t1 = monotonic_raw_s(); while (t1 - t0 < span);
  uint64_t c1 = tsc_fenced();
  m.tsc_hz = double(c1 - c0) / (t1 - t0);
  m.tsc_source = "calibrated against CLOCK_MONOTONIC_RAW (120 ms)";
}

}  // namespace

CpuinfoBlock cpuinfo_of(int cpu) {
  std::vector<std::pair<int, CpuinfoBlock>> blocks;  // processor number, its block
  std::ifstream ci("/proc/cpuinfo");
  std::string line;
  auto value = [](const std::string& l) {
    const size_t colon = l.find(':');
    if (colon == std::string::npos) return std::string();
    const size_t a = l.find_first_not_of(" \t", colon + 1);
    return a == std::string::npos ? std::string() : l.substr(a);
  };
  while (std::getline(ci, line)) {
    if (line.rfind("processor", 0) == 0) {
      blocks.push_back({std::atoi(value(line).c_str()), {}});
    } else if (!blocks.empty() && line.rfind("cpu MHz", 0) == 0) {
      blocks.back().second.mhz = std::atof(value(line).c_str());
    } else if (!blocks.empty() && line.rfind("microcode", 0) == 0) {
      blocks.back().second.microcode = value(line);
    }
  }
  if (blocks.empty()) return {};
  for (const auto& [processor, block] : blocks)
    if (processor == cpu) return block;
  return blocks.front().second;
}

namespace {

Machine probe() {
  Machine m;
  const CpuIdentity& id = cpu_identity();
  m.vendor = id.vendor;
  m.model_name = id.brand;
  m.family = id.family;
  m.model = id.model;
  m.stepping = id.stepping;
  m.hypervisor = id.hypervisor;
  m.hypervisor_signature = id.hypervisor_signature;
  m.feature_set = host_features();
  m.fsgsbase_enabled = (getauxval(AT_HWCAP2) & 2) != 0;
  // Caches of the CPU a run pins to (today caches were read from cpu0 whatever
  // the run pinned); after pinning, the mask is that CPU.
  m.cache_cpu = default_pin_cpu();
  if (m.cache_cpu < 0) m.cache_cpu = sched_getcpu();
  m.cache_levels = caches_of(m.cache_cpu);
  m.caches = {m.cache_levels.l1d(), m.cache_levels.l2(), m.cache_levels.llc(), m.cache_levels.source};
  m.numa_nodes = numa_node_count();
  m.numa_node = numa_node_of_cpu(m.cache_cpu);
  const CpuinfoBlock info = cpuinfo_of(m.cache_cpu);
  m.cpuinfo_mhz = info.mhz;
  m.microcode = info.microcode;
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel = std::string(u.sysname) + " " + u.release;
    m.kernel_version = u.version;
  }
  m.thp = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  m.num_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const PmuStatus& pmu = pmu_status();
  m.pmu_available = pmu.available;
  if (!pmu.available) m.pmu_error = pmu.error_name + " (" + strerror(pmu.error) + ")";
  const CpuScaling sc = cpu_scaling();
  m.cpu_scaling_enabled = sc.enabled;
  m.scaling_governors = sc.governors;
  probe_tsc(m);
  return m;
}

}  // namespace

const Machine& machine() {
  static const Machine m = probe();
  return m;
}

MachineInfo machine_info(const Machine& m) {
  MachineInfo i;
  i.cpu_vendor = m.vendor;
  i.cpu_model = m.model_name;
  i.family = m.family;
  i.model = m.model;
  i.stepping = m.stepping;
  i.microcode = m.microcode;
  for (const auto& row : feature_table())
    if (m.feature_set.has(row.feature)) i.features.emplace_back(row.name);
  if (m.fsgsbase_enabled) i.features.emplace_back("fsgsbase(hwcap2)");
  i.num_cpus = m.num_cpus;
  i.mhz_per_cpu = static_cast<int64_t>(m.tsc_hz / 1e6 + 0.5);
  i.l1d_bytes = m.caches.l1d;
  i.l2_bytes = m.caches.l2;
  i.llc_bytes = m.caches.llc;
  i.cache_source = m.caches.source;
  i.cache_cpu = m.cache_cpu;
  i.cache_levels.emplace();
  for (const auto& l : m.cache_levels.levels)
    i.cache_levels->push_back({l.level, l.type, l.size, l.line_size, l.ways, l.num_sharing, cpu_list_text(l.cpus)});
  i.numa_nodes = m.numa_nodes;
  i.cache_cpu_numa_node = m.numa_node;
  i.tsc_hz = m.tsc_hz;
  i.tsc_source = m.tsc_source;
  i.cpuinfo_mhz = m.cpuinfo_mhz;
  i.kernel = m.kernel;
  i.kernel_version = m.kernel_version;
  i.virtualization = m.hypervisor.empty() ? "none" : m.hypervisor;
  i.hypervisor_signature = m.hypervisor_signature;
  i.transparent_hugepage = m.thp;
  i.pmu_available = m.pmu_available;
  if (!m.pmu_available) i.pmu_error = m.pmu_error;
  i.cpu_scaling_enabled = m.cpu_scaling_enabled;
  i.scaling_governors = m.scaling_governors;
  return i;
}


int default_pin_cpu() {
  const std::vector<int> v = allowed_cpus();
  return v.empty() ? -1 : v.back();
}

int pin_to_one_cpu() {
  const int cpu = default_pin_cpu();
  if (cpu < 0) return -1;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return -1;
  return cpu;
}

bool pin_thread_to(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

int pin_to_cpu(int cpu) {
  const std::vector<int> allowed = allowed_cpus();
  if (cpu < 0 || std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
    throw InputError("--cpu", std::to_string(cpu) + " is not a CPU this process may run on (allowed: " +
                                  (allowed.empty() ? std::string("none") : cpu_list_text(allowed)) + ")");
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    throw InputError("--cpu", std::to_string(cpu) + ": sched_setaffinity failed: " + strerrorname_np(errno));
  return cpu;
}

CpuScaling cpu_scaling(const std::string& cpu_dir) {
  CpuScaling s;
  std::vector<int> cpus;
  try {
    cpus = parse_cpu_list(read_first_line(cpu_dir + "/online"), cpu_dir + "/online");
  } catch (const InputError&) {
  }
  for (int cpu : cpus) {
    // Google Benchmark reads one word with operator>> and calls anything but
    // "performance" scaling.
    std::ifstream f(cpu_dir + "/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
    std::string governor;
    if (!(f >> governor)) continue;
    s.governors.push_back("cpu" + std::to_string(cpu) + ":" + governor);
    if (governor != "performance") s.enabled = true;
  }
  return s;
}

std::vector<double> load_average() {
  std::vector<double> v(3, 0.0);
  const int n = getloadavg(v.data(), 3);
  v.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return v;
}

double core_cycles_per_tick() {
  constexpr int kChain = 4000;  // 4000 dependent imuls = 12000 core cycles
  uint64_t best = ~0ull;
  for (int rep = 0; rep < 5; ++rep) {
    uint64_t x = 3;
    uint64_t t0 = tsc_fenced();
    for (int i = 0; i < kChain / 8; ++i)
      asm volatile(
          "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
          "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0"
          : "+r"(x));
    uint64_t t1 = tsc_fenced();
    if (t1 - t0 < best) best = t1 - t0;
  }
  return best ? 3.0 * kChain / double(best) : 0;
}

}  // namespace kex
