#include "src/run/topology.hpp"

#include <cpuid.h>
#include <hwloc.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"

namespace kex {

namespace {

int type_rank(const std::string& t) { return t == "Data" ? 0 : t == "Instruction" ? 1 : 2; }

void sort_levels(std::vector<CacheLevel>& v) {
  std::sort(v.begin(), v.end(), [](const CacheLevel& a, const CacheLevel& b) {
    return a.level != b.level ? a.level < b.level : type_rank(a.type) < type_rank(b.type);
  });
}

// ---- hwloc ----------------------------------------------------------------

/// One loaded hwloc topology, destroyed at exit.
struct Topology {
  hwloc_topology_t t = nullptr;
  explicit Topology(bool with_x86) {
    if (hwloc_topology_init(&t) != 0) {
      t = nullptr;
      return;
    }
    // Caches are hardware facts: keep CPUs outside our cgroup so sharing sets
    // match sysfs; keep instruction caches (hwloc drops them by default).
    hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    // The x86 backend moves the calling thread to every CPU in turn to run CPUID
    // there, so it waits on busy CPUs (4-38 ms here,
    // benchmarks/results/2026-12-01-zen3-probes-and-counters.md); the
    // Linux backend reads sysfs in 3-4 ms.
    if (!with_x86) hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      t = nullptr;
    }
  }
  ~Topology() {
    if (t) hwloc_topology_destroy(t);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

hwloc_topology_t topology(bool with_x86) {
  static std::once_flag once[2];
  static std::unique_ptr<Topology> topo[2];
  std::call_once(once[with_x86], [&] { topo[with_x86] = std::make_unique<Topology>(with_x86); });
  return topo[with_x86]->t;
}

std::vector<int> bitmap_cpus(hwloc_const_bitmap_t set) {
  std::vector<int> v;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) v.push_back(i);
  return v;
}

std::vector<CacheLevel> hwloc_levels(hwloc_topology_t t, int cpu) {
  std::vector<CacheLevel> v;
  if (!t || cpu < 0) return v;
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t, static_cast<unsigned>(cpu));
  if (!pu) return v;
  for (hwloc_obj_t o = pu->parent; o; o = o->parent) {
    if (!hwloc_obj_type_is_cache(o->type)) continue;
    const auto& c = o->attr->cache;
    CacheLevel l;
    l.level = static_cast<int>(c.depth);
    l.type = c.type == HWLOC_OBJ_CACHE_DATA ? "Data" : c.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "Instruction" : "Unified";
    l.size = c.size;
    l.line_size = static_cast<int>(c.linesize);
    l.ways = c.associativity;
    l.cpus = bitmap_cpus(o->cpuset);
    l.num_sharing = static_cast<int>(l.cpus.size());
    v.push_back(l);
  }
  sort_levels(v);
  return v;
}

// ---- sysfs ----------------------------------------------------------------

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

int to_int(const std::string& s) {
  try {
    return s.empty() ? 0 : std::stoi(s);
  } catch (const std::exception&) {
    return 0;
  }
}

/// "32K", "1024K", "32M" or plain bytes.
uint64_t size_text(const std::string& s) {
  if (s.empty()) return 0;
  uint64_t v = 0;
  try {
    v = std::stoull(s);
  } catch (const std::exception&) {
    return 0;
  }
  if (s.back() == 'K') v <<= 10;
  else if (s.back() == 'M') v <<= 20;
  else if (s.back() == 'G') v <<= 30;
  return v;
}

// ---- CPUID ----------------------------------------------------------------

struct Regs { uint32_t a = 0, b = 0, c = 0, d = 0; };
Regs cpuid(uint32_t leaf, uint32_t sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

/// Leaf 4 (Intel) and 0x8000001D (AMD) share one layout.
std::vector<CacheLevel> deterministic_levels(uint32_t leaf) {
  std::vector<CacheLevel> v;
  for (uint32_t i = 0; i < 16; ++i) {
    const Regs r = cpuid(leaf, i);
    const uint32_t type = r.a & 31;
    if (type == 0 || type > 3) break;
    CacheLevel l;
    l.level = static_cast<int>((r.a >> 5) & 7);
    l.type = type == 1 ? "Data" : type == 2 ? "Instruction" : "Unified";
    l.line_size = static_cast<int>((r.b & 0xfff) + 1);
    const uint32_t partitions = ((r.b >> 12) & 0x3ff) + 1, ways = ((r.b >> 22) & 0x3ff) + 1, sets = r.c + 1;
    l.size = uint64_t(ways) * partitions * uint64_t(l.line_size) * sets;
    l.ways = (r.a >> 9 & 1) ? -1 : static_cast<int>(ways);
    l.num_sharing = static_cast<int>(((r.a >> 14) & 0xfff) + 1);
    v.push_back(l);
  }
  return v;
}

/// AMD's encoded L2/L3 associativity (CPUID 0x80000006); 0 when unknown or "see 0x8000001D".
int amd_assoc(uint32_t code) {
  switch (code) {
    case 1: return 1;
    case 2: return 2;
    case 4: return 4;
    case 6: return 8;
    case 8: return 16;
    case 0xa: return 32;
    case 0xb: return 48;
    case 0xc: return 64;
    case 0xd: return 96;
    case 0xe: return 128;
    case 0xf: return -1;
    default: return 0;
  }
}

std::vector<CacheLevel> amd_legacy_levels() {
  std::vector<CacheLevel> v;
  const Regs r5 = cpuid(0x80000005), r6 = cpuid(0x80000006);
  auto l1 = [&](uint32_t reg, const char* type) {
    if (!(reg >> 24)) return;
    const uint32_t assoc = (reg >> 16) & 0xff;
    v.push_back({1, type, uint64_t(reg >> 24) << 10, static_cast<int>(reg & 0xff),
                 assoc == 0xff ? -1 : static_cast<int>(assoc), 0, {}});
  };
  l1(r5.c, "Data");
  l1(r5.d, "Instruction");
  if (r6.c >> 16)
    v.push_back({2, "Unified", uint64_t(r6.c >> 16) << 10, static_cast<int>(r6.c & 0xff), amd_assoc((r6.c >> 12) & 15), 0, {}});
  if (r6.d >> 18)
    v.push_back({3, "Unified", uint64_t(r6.d >> 18) * 512 * 1024, static_cast<int>(r6.d & 0xff),
                 amd_assoc((r6.d >> 12) & 15), 0, {}});
  return v;
}

/// Runs `f` on OS CPU `cpu` when the affinity mask allows it (restoring the mask
/// afterwards); returns false when it ran on the calling CPU instead.
template <class F>
bool on_cpu(int cpu, F&& f) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool can = cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof saved, &saved) == 0 && CPU_ISSET(cpu, &saved);
  if (can && sched_getcpu() != cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
      f();
      sched_setaffinity(0, sizeof saved, &saved);
      return true;
    }
  }
  f();
  return can && sched_getcpu() == cpu;
}

}  // namespace

const CacheLevel* CpuCaches::data_level(int level) const {
  for (const auto& l : levels)
    if (l.level == level && l.type != "Instruction") return &l;
  return nullptr;
}

uint64_t CpuCaches::l1d() const {
  const CacheLevel* l = data_level(1);
  return l ? l->size : 0;
}

uint64_t CpuCaches::l2() const {
  const CacheLevel* l = data_level(2);
  return l ? l->size : 0;
}

uint64_t CpuCaches::llc() const {
  for (auto it = levels.rbegin(); it != levels.rend(); ++it)
    if (it->type != "Instruction") return it->level >= 2 ? it->size : 0;
  return 0;
}

CpuCaches caches_from_hwloc(int cpu) {
  CpuCaches c;
  c.cpu = cpu;
  c.levels = hwloc_levels(topology(false), cpu);
  if (!c.levels.empty()) {
    c.source = "hwloc";
    return c;
  }
  c.levels = hwloc_levels(topology(true), cpu);
  if (!c.levels.empty()) c.source = "hwloc (x86 cpuid)";
  return c;
}

CpuCaches caches_from_sysfs(int cpu) {
  CpuCaches c;
  c.cpu = cpu;
  const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index";
  for (int i = 0; i < 32; ++i) {
    const std::string dir = base + std::to_string(i) + "/";
    const std::string level = first_line(dir + "level");
    if (level.empty()) break;
    CacheLevel l;
    l.level = to_int(level);
    l.type = first_line(dir + "type");
    l.size = size_text(first_line(dir + "size"));
    l.line_size = to_int(first_line(dir + "coherency_line_size"));
    l.ways = to_int(first_line(dir + "ways_of_associativity"));
    try {
      l.cpus = parse_cpu_list(first_line(dir + "shared_cpu_list"), dir + "shared_cpu_list");
    } catch (const InputError&) {
      l.cpus.clear();
    }
    l.num_sharing = static_cast<int>(l.cpus.size());
    c.levels.push_back(l);
  }
  sort_levels(c.levels);
  if (!c.levels.empty()) c.source = "sysfs";
  return c;
}

CpuCaches caches_from_cpuid(int cpu) {
  CpuCaches c;
  c.cpu = cpu;
  const bool there = on_cpu(cpu, [&] {
    const uint32_t max = cpuid(0).a, max_ext = cpuid(0x80000000).a;
    const Regs r0 = cpuid(0);
    const bool amd = r0.c == 0x444d4163;  // "cAMD" of "AuthenticAMD"
    if (amd && max_ext >= 0x8000001d && (cpuid(0x80000001).c >> 22 & 1)) {
      c.levels = deterministic_levels(0x8000001d);
      c.source = "cpuid 0x8000001d";
    }
    if (c.levels.empty() && !amd && max >= 4) {
      c.levels = deterministic_levels(4);
      c.source = "cpuid 4";
    }
    if (c.levels.empty() && amd && max_ext >= 0x80000006) {
      c.levels = amd_legacy_levels();
      c.source = "cpuid 0x80000005/6";
    }
  });
  sort_levels(c.levels);
  if (c.levels.empty()) c.source.clear();
  else if (!there) c.source += " (read on CPU " + std::to_string(sched_getcpu()) + ")";
  return c;
}

CpuCaches caches_of(int cpu) {
  CpuCaches c = caches_from_hwloc(cpu);
  if (c.levels.empty()) c = caches_from_sysfs(cpu);
  if (c.levels.empty()) c = caches_from_cpuid(cpu);
  return c;
}

int numa_node_count() {
  hwloc_topology_t t = topology(false);
  const int n = t ? hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) : 0;
  return n > 0 ? n : 1;
}

int numa_node_of_cpu(int cpu) {
  hwloc_topology_t t = topology(false);
  if (!t || cpu < 0) return -1;
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t, static_cast<unsigned>(cpu));
  if (!pu || !pu->nodeset) return -1;
  return hwloc_bitmap_first(pu->nodeset);
}

bool bind_memory_near(int cpu) {
  if (numa_node_count() <= 1) return false;
  hwloc_topology_t t = topology(false);
  hwloc_obj_t pu = t && cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t, static_cast<unsigned>(cpu)) : nullptr;
  if (!pu || !pu->nodeset) return false;
  return hwloc_set_membind(t, pu->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) == 0;
}

ThreadPlace place_of_cpu(int cpu) {
  ThreadPlace p;
  p.cpu = cpu;
  p.numa = numa_node_of_cpu(cpu);
  hwloc_topology_t t = topology(false);
  hwloc_obj_t pu = t && cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t, static_cast<unsigned>(cpu)) : nullptr;
  if (!pu) return p;
  if (hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu)) p.core = int(core->logical_index);
  // The last level of cache above it that holds data (L3 on the machines kex runs on).
  for (hwloc_obj_t o = pu->parent; o; o = o->parent)
    if (hwloc_obj_type_is_dcache(o->type)) p.l3 = int(o->logical_index);
  return p;
}

namespace {


/// move_pages(2) with no target nodes: reports each page's node in `status`
/// (or -errno). Returns 0, or the errno of the call itself.
int query_pages(void** pages, unsigned long count, int* status) {
  const long r = syscall(SYS_move_pages, 0, count, pages, nullptr, status, 0);
  return r < 0 ? errno : 0;
}

}  // namespace

PageNode numa_node_of(const void* addr) {
  PageNode p;
  const uintptr_t page = reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(4095);
  void* pages[1] = {reinterpret_cast<void*>(page)};
  int status[1] = {0};
  if (const int e = query_pages(pages, 1, status)) {
    p.reason = e == ENOSYS ? "ENOSYS (kernel without NUMA support)" : errno_text(e);
    return p;
  }
  if (status[0] >= 0) p.node = status[0];
  else p.reason = -status[0] == ENOENT ? "ENOENT (page not faulted in)" : errno_text(-status[0]);
  return p;
}

std::vector<int> numa_nodes_of(const void* addr, size_t bytes) {
  std::vector<int> nodes;
  if (bytes == 0) return nodes;
  const uintptr_t first = reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(4095);
  const uintptr_t end = reinterpret_cast<uintptr_t>(addr) + bytes;
  constexpr size_t kBatch = 1024;
  std::vector<void*> pages;
  std::vector<int> status;
  for (uintptr_t p = first; p < end;) {
    pages.clear();
    for (; p < end && pages.size() < kBatch; p += 4096) pages.push_back(reinterpret_cast<void*>(p));
    status.assign(pages.size(), 0);
    if (query_pages(pages.data(), pages.size(), status.data())) return {};
    for (int s : status)
      if (s >= 0 && std::find(nodes.begin(), nodes.end(), s) == nodes.end()) nodes.push_back(s);
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace kex
