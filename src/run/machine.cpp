#include "src/run/machine.hpp"

#include <cpuid.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "src/core/cpu_features.hpp"

namespace kex {

namespace {

struct Regs { uint32_t a, b, c, d; };
Regs cpuid(uint32_t leaf, uint32_t sub = 0) {
  Regs r{};
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

std::string read_first_line(const char* path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

uint64_t read_size_file(const std::string& path) {
  std::string s = read_first_line(path.c_str());
  if (s.empty()) return 0;
  uint64_t v = std::stoull(s);
  if (s.back() == 'K') v <<= 10;
  else if (s.back() == 'M') v <<= 20;
  return v;
}

double monotonic_raw_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void probe_caches(Machine& m) {
  // sysfs first (works for every vendor on bare metal), then CPUID.
  for (int i = 0; i < 8; ++i) {
    std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string level = read_first_line((base + "level").c_str());
    if (level.empty()) break;
    std::string type = read_first_line((base + "type").c_str());
    uint64_t size = read_size_file(base + "size");
    if (level == "1" && type == "Data") m.caches.l1d = size;
    else if (level == "2") m.caches.l2 = size;
    else if (level == "3") m.caches.llc = size;
    m.caches.source = "sysfs";
  }
  if (m.caches.l1d) return;
  if (m.vendor == "AuthenticAMD" && cpuid(0x80000000).a >= 0x80000006) {
    m.caches.l1d = uint64_t(cpuid(0x80000005).c >> 24) << 10;
    auto r6 = cpuid(0x80000006);
    m.caches.l2 = uint64_t(r6.c >> 16) << 10;
    m.caches.llc = uint64_t(r6.d >> 18) * 512 * 1024;
    m.caches.source = "cpuid 0x80000005/6";
    return;
  }
  for (uint32_t i = 0; i < 8; ++i) {  // Intel deterministic cache parameters
    auto r = cpuid(4, i);
    uint32_t type = r.a & 31;
    if (!type) break;
    uint32_t level = (r.a >> 5) & 7;
    uint64_t size = uint64_t((r.b >> 22) + 1) * (((r.b >> 12) & 0x3ff) + 1) * ((r.b & 0xfff) + 1) * (r.c + 1);
    if (level == 1 && type == 1) m.caches.l1d = size;
    else if (level == 2) m.caches.l2 = size;
    else if (level == 3) m.caches.llc = size;
    m.caches.source = "cpuid 4";
  }
}

void probe_tsc(Machine& m) {
  auto r0 = cpuid(0);
  if (r0.a >= 0x15) {
    auto r = cpuid(0x15);
    if (r.a && r.b && r.c) {
      m.tsc_hz = double(r.c) * r.b / r.a;
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

void probe_pmu(Machine& m) {
  perf_event_attr a{};
  a.type = PERF_TYPE_HARDWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  if (fd >= 0) {
    m.pmu_available = true;
    close(fd);
  } else {
    m.pmu_error = std::string(strerrorname_np(errno)) + " (" + strerror(errno) + ")";
  }
}

Machine probe() {
  Machine m;
  auto r0 = cpuid(0);
  char vendor[13] = {};
  memcpy(vendor, &r0.b, 4);
  memcpy(vendor + 4, &r0.d, 4);
  memcpy(vendor + 8, &r0.c, 4);
  m.vendor = vendor;
  auto r1 = cpuid(1);
  int base_family = (r1.a >> 8) & 15, base_model = (r1.a >> 4) & 15;
  m.family = base_family == 15 ? base_family + ((r1.a >> 20) & 0xff) : base_family;
  m.model = (base_family == 6 || base_family == 15) ? base_model + (((r1.a >> 16) & 15) << 4) : base_model;
  m.stepping = r1.a & 15;
  if (cpuid(0x80000000).a >= 0x80000004) {
    char brand[49] = {};
    for (uint32_t i = 0; i < 3; ++i) {
      auto r = cpuid(0x80000002 + i);
      memcpy(brand + 16 * i, &r, 16);
    }
    m.model_name = brand;
    while (!m.model_name.empty() && m.model_name.back() == ' ') m.model_name.pop_back();
    while (!m.model_name.empty() && m.model_name.front() == ' ') m.model_name.erase(0, 1);
  }
  auto& f = m.features;
  const FeatureSet hf = host_features();
  f.mmx = hf.has(Feature::mmx);
  f.sse = hf.has(Feature::sse);
  f.sse2 = hf.has(Feature::sse2);
  f.avx = hf.has(Feature::avx);
  f.avx2 = hf.has(Feature::avx2);
  f.avx512f = hf.has(Feature::avx512f);
  f.erms = hf.has(Feature::erms);
  f.fsrm = hf.has(Feature::fsrm);
  f.prefetchw = hf.has(Feature::prefetchw);
  f.clflushopt = hf.has(Feature::clflushopt);
  f.rdtscp = hf.has(Feature::rdtscp);
  f.hypervisor = hf.has(Feature::hypervisor);
  f.amd3dnow = hf.has(Feature::amd3dnow);
  f.amd3dnow_prefetch = hf.has(Feature::prefetch3dnow);
  f.invariant_tsc = hf.has(Feature::invariant_tsc);
  f.fsgsbase_enabled = (getauxval(AT_HWCAP2) & 2) != 0;
  if (f.hypervisor) {
    auto h = cpuid(0x40000000);
    char hv[13] = {};
    memcpy(hv, &h.b, 4);
    memcpy(hv + 4, &h.c, 4);
    memcpy(hv + 8, &h.d, 4);
    m.hypervisor = hv[0] ? hv : "unknown";
  }
  probe_caches(m);
  {
    std::ifstream ci("/proc/cpuinfo");
    std::string line;
    while (std::getline(ci, line))
      if (line.rfind("cpu MHz", 0) == 0) {
        m.cpuinfo_mhz = std::stod(line.substr(line.find(':') + 1));
        break;
      }
  }
  utsname u{};
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  m.thp = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  m.num_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  probe_pmu(m);
  probe_tsc(m);
  return m;
}

}  // namespace

const Machine& machine() {
  static const Machine m = probe();
  return m;
}

nlohmann::ordered_json machine_json(const Machine& m) {
  const auto& f = m.features;
  nlohmann::ordered_json feats = nlohmann::ordered_json::array();
  auto add = [&](bool on, const char* n) { if (on) feats.push_back(n); };
  add(f.mmx, "mmx"); add(f.sse, "sse"); add(f.sse2, "sse2"); add(f.avx, "avx"); add(f.avx2, "avx2");
  add(f.avx512f, "avx512f"); add(f.erms, "erms"); add(f.fsrm, "fsrm"); add(f.prefetchw, "prefetchw");
  add(f.amd3dnow, "3dnow"); add(f.amd3dnow_prefetch, "3dnowprefetch"); add(f.clflushopt, "clflushopt");
  add(f.rdtscp, "rdtscp"); add(f.invariant_tsc, "invariant_tsc"); add(f.hypervisor, "hypervisor");
  add(f.fsgsbase_enabled, "fsgsbase(hwcap2)");
  nlohmann::ordered_json j;
  j["cpu_vendor"] = m.vendor;
  j["cpu_model"] = m.model_name;
  j["cpu_family"] = m.family;
  j["cpu_model_number"] = m.model;
  j["cpu_stepping"] = m.stepping;
  j["cpu_features"] = feats;
  j["num_cpus"] = m.num_cpus;
  j["mhz_per_cpu"] = static_cast<int64_t>(m.tsc_hz / 1e6 + 0.5);
  j["caches"] = {{"l1d_bytes", m.caches.l1d}, {"l2_bytes", m.caches.l2}, {"llc_bytes", m.caches.llc},
                 {"source", m.caches.source}};
  j["tsc_hz"] = m.tsc_hz;
  j["tsc_source"] = m.tsc_source;
  j["cpuinfo_mhz"] = m.cpuinfo_mhz;
  j["kernel"] = m.kernel;
  j["virtualization"] = m.hypervisor.empty() ? "none" : m.hypervisor;
  j["transparent_hugepage"] = m.thp;
  j["pmu_available"] = m.pmu_available;
  if (!m.pmu_available) j["pmu_error"] = m.pmu_error;
  return j;
}

int pin_to_one_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  int cpu = -1;
  for (int i = CPU_SETSIZE - 1; i >= 0; --i)
    if (CPU_ISSET(i, &set)) { cpu = i; break; }
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
