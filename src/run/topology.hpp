// The machine's layout as one CPU sees it: its caches with the CPUs sharing each
// one, and NUMA nodes of CPUs and of memory. Read from hwloc (Debian libhwloc-dev),
// falling back to sysfs, then to CPUID (docs/methodology.md §0: some VMs have no
// /sys/.../cache, and CPUID may describe the host socket rather than the guest).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/core/cpu_list.hpp"
#include "src/model/context.hpp"

namespace kex {

/// One cache as one CPU sees it.
struct CacheLevel {
  int level = 0;           ///< 1, 2, 3, ...
  std::string type;        ///< "Data", "Instruction" or "Unified" (Google Benchmark's words)
  uint64_t size = 0;       ///< bytes
  int line_size = 0;       ///< bytes; 0 when unknown
  int ways = 0;            ///< associativity; 0 when unknown, -1 when fully associative
  int num_sharing = 0;     ///< logical CPUs sharing this cache; 0 when unknown
  std::vector<int> cpus;   ///< OS numbers of those CPUs, ascending, this one included;
                           ///< empty when the source cannot tell (CPUID gives a count only)
  bool operator==(const CacheLevel&) const = default;
};

/// The caches of one CPU: by level, and within a level Data, Instruction, Unified.
struct CpuCaches {
  int cpu = -1;         ///< OS CPU number they were read for
  std::string source;   ///< "hwloc", "hwloc (x86 cpuid)", "sysfs", "cpuid 0x8000001d",
                        ///< "cpuid 4", "cpuid 0x80000005/6"; "" when no source knew any
  std::vector<CacheLevel> levels;

  /// Size in bytes of the L1 data cache, the L2 and the last level (the highest
  /// level that holds data); 0 when not known.
  uint64_t l1d() const;
  uint64_t l2() const;
  uint64_t llc() const;
  /// The level `level` holding data (Data or Unified), or nullptr.
  const CacheLevel* data_level(int level) const;
};

/// The caches of OS CPU `cpu`: hwloc, else sysfs, else CPUID. CPUID is read on
/// `cpu` itself (the calling thread moves there for the read and back) when the
/// affinity mask allows, else on the calling CPU, and says so in `source`.
CpuCaches caches_of(int cpu);

/// The caches hwloc reports for `cpu`: first without its x86 (CPUID) backend,
/// which moves the calling thread to every CPU in turn; with it when that finds
/// none. Empty `levels` when hwloc knows none or no such CPU.
CpuCaches caches_from_hwloc(int cpu);

/// The caches /sys/devices/system/cpu/cpuN/cache lists; empty `levels` when the
/// directory is missing (some VMs).
CpuCaches caches_from_sysfs(int cpu);

/// The caches CPUID describes (leaf 0x8000001D or 4 with a sharing count, else AMD
/// 0x80000005/6), read on `cpu` as caches_of() does; `cpus` lists stay empty.
CpuCaches caches_from_cpuid(int cpu);

/// Number of NUMA nodes hwloc sees (>= 1).
int numa_node_count();

/// The NUMA node of OS CPU `cpu` (hwloc), or -1 when unknown.
int numa_node_of_cpu(int cpu);

/// Where OS CPU `cpu` sits (hwloc): its core, last-level-cache domain and NUMA node
/// (hwloc's logical indexes; -1 each when hwloc does not know it).
ThreadPlace place_of_cpu(int cpu);

/// Binds the calling thread's future allocations to the NUMA node of `cpu` (hwloc membind)
/// where there are several nodes; with one node, or when hwloc cannot, first touch decides.
/// True when bound.
bool bind_memory_near(int cpu);

/// Where one page of memory lives.
struct PageNode {
  int node = -1;        ///< NUMA node of the page, -1 when not known
  std::string reason;   ///< why not known: "ENOENT (page not faulted in)", "ENOSYS (kernel without NUMA)", ...
};

/// The NUMA node of the page holding `addr`, from move_pages(2) (queried, never
/// moved). A page never touched has no node yet: fault buffers in first.
PageNode numa_node_of(const void* addr);

/// The distinct NUMA nodes holding the faulted-in pages of [addr, addr + bytes),
/// ascending; empty when none is known. Checks every 4 KiB page, ~1 µs per 1000 pages.
std::vector<int> numa_nodes_of(const void* addr, size_t bytes);

}  // namespace kex
