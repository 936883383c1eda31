#include "src/run/counters.hpp"

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <utility>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"

namespace kex {

namespace {

// kex counter names. Each candidate is a libpfm4 name that resolves only on the
// CPUs whose event table has it; the generic perf names (which resolve everywhere
// but that AMD kernels may refuse to open) come last.
constexpr std::string_view kCycles[] = {"cycles"};
constexpr std::string_view kInstructions[] = {"instructions"};
constexpr std::string_view kL1dMisses[] = {"L1-dcache-load-misses"};
constexpr std::string_view kL2Misses[] = {
    "L2_RQSTS:MISS",                                          // Intel Haswell..Skylake: every L2 miss
    "L2_RQSTS:ALL_DEMAND_MISS",                               // Intel Ice Lake, Sapphire Rapids: demand misses
    "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C", // AMD Zen 2-4: L1d reads that missed L2
};
constexpr std::string_view kLlcMisses[] = {
    "LONGEST_LAT_CACHE:MISS",  // Intel architectural event
    // AMD: L1d fills from beyond the local L3 (another CCX, or DRAM/IO)
    "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR",  // Zen 4
    "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT",               // Zen 3
    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM",      // Zen 2
    "LLC-load-misses",
};
constexpr std::string_view kDramFills[] = {
    "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR",                 // AMD Zen 4
    "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL:MEM_IO_RMT",                    // AMD Zen 3
    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM",    // AMD Zen 2
    "OFFCORE_REQUESTS:L3_MISS_DEMAND_DATA_RD",                                   // Intel Skylake+: demand reads only
};
constexpr std::string_view kL2PrefetchMissesL3[] = {
    "L2_PREFETCH_MISS_L3:L2_STREAM:L2_NEXT_LINE:L2_UP_DOWN:L2_BURST:L2_STRIDE:L1_STREAM:L1_STRIDE:L1_REGION",  // Zen 4
    "L2_PREFETCH_MISS_L3:L2_HW_PREFETCHER:L1_HW_PREFETCHER",                                                  // Zen 3
    "L2_PREFETCH_MISS_L3",                                                                                    // Zen 2
};

constexpr std::string_view kStores[] = {
    "MEM_INST_RETIRED:ALL_STORES",  // Intel Skylake+: store instructions retired
    "MEM_UOPS_RETIRED:ALL_STORES",  // Intel Haswell, Broadwell: store uops retired
    "LS_DISPATCH:STORE_DISPATCH",   // AMD Zen 2-4: store operations dispatched
};

constexpr CounterAlias kAliases[] = {
    {"cycles", "core cycles in user mode (not TSC ticks)", kCycles},
    {"instructions", "instructions retired in user mode", kInstructions},
    {"l1d-misses", "L1d load misses (perf's generic cache event)", kL1dMisses},
    {"l2-misses", "L2 misses: all (Intel Haswell-Skylake), demand (Ice Lake+), L1d reads (AMD Zen 2-4)", kL2Misses},
    {"llc-misses", "last-level misses: Intel LONGEST_LAT_CACHE.MISS; AMD L1d fills from beyond the local L3",
     kLlcMisses},
    {"dram-fills", "cache lines read from DRAM: AMD L1d fills from DRAM; Intel demand reads missing L3", kDramFills},
    {"l2-prefetch-misses-l3", "L2 hardware prefetches that missed L3, i.e. went to DRAM (AMD Zen 2-4)",
     kL2PrefetchMissesL3},
    {"stores", "store instructions: Intel retired (Haswell+), AMD dispatched to the load/store unit (Zen 2-4)",
     kStores},
};


int perf_open(perf_event_attr* attr, int group_fd) {
  for (int retry = 0; retry < 5; ++retry) {  // interrupted opens are retried, as Google Benchmark does
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, attr, 0, -1, group_fd, 0));
    if (fd >= 0 || errno != EINTR) return fd;
  }
  return -1;
}

bool pfm_ready() {
  static const bool ok = pfm_initialize() == PFM_SUCCESS;
  return ok;
}

int paranoid_level() {
  std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
  int v = 99;
  f >> v;
  return v;
}

PmuStatus probe_pmu() {
  PmuStatus s;
  perf_event_attr a{};
  a.type = PERF_TYPE_HARDWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  const int fd = perf_open(&a, -1);
  if (fd >= 0) {
    close(fd);
    s.available = true;
    return s;
  }
  s.error = errno;
  s.error_name = strerrorname_np(s.error);
  const char* what = "no PMU";
  std::string extra;
  if (s.error == EACCES || s.error == EPERM) {
    what = "PMU not permitted";
    extra = ", perf_event_paranoid is " + std::to_string(paranoid_level());
  } else if (s.error != ENOENT && s.error != ENODEV && s.error != EOPNOTSUPP) {
    what = "PMU unusable";
  }
  s.message = std::string(what) + ": hardware counters unavailable (" + s.error_name + extra +
              "); cycles are imul-chain estimates";
  return s;
}

const CounterAlias* find_alias(const std::string& name) {
  for (const auto& a : kAliases)
    if (name == a.name) return &a;
  return nullptr;
}

std::string alias_list() {
  std::string s;
  for (const auto& a : kAliases) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

/// perf_event_attr for `event` (libpfm4, user mode only), or the libpfm4 error code.
int encode(const std::string& event, perf_event_attr& attr, std::string* fstr) {
  attr = perf_event_attr{};
  attr.size = sizeof attr;
  pfm_perf_encode_arg_t arg{};
  arg.attr = &attr;
  arg.size = sizeof arg;
  char* fq = nullptr;
  arg.fstr = &fq;
  const int r = pfm_get_os_event_encoding(event.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
  if (fstr) *fstr = fq ? fq : "";
  std::free(fq);
  return r;
}

/// libpfm4's fully qualified name without its trailing modifiers (":u=1:k=0:..."),
/// which only restate the privilege level (always user mode here).
std::string without_modifiers(std::string fstr) {
  for (;;) {
    const size_t colon = fstr.rfind(':');
    if (colon == std::string::npos || fstr.find('=', colon) == std::string::npos) return fstr;
    fstr.resize(colon);
  }
}

bool is_hardware(uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

}  // namespace

const PmuStatus& pmu_status() {
  static const PmuStatus s = probe_pmu();
  return s;
}

EventEncoding resolve_event(const std::string& event) {
  EventEncoding e;
  e.event = event;
  if (!pfm_ready()) {
    e.error = "libpfm4 failed to initialise";
    return e;
  }
  perf_event_attr attr;
  const int r = encode(event, attr, &e.fstr);
  if (r != PFM_SUCCESS) {
    e.error = pfm_strerror(r);
    return e;
  }
  e.ok = true;
  e.type = attr.type;
  e.config = attr.config;
  e.hardware = is_hardware(attr.type);
  return e;
}

std::span<const CounterAlias> counter_aliases() { return kAliases; }

std::vector<std::string> pfm_pmu_names() {
  std::vector<std::string> out;
  if (!pfm_ready()) return out;
  for (int p = 0; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info{};
    info.size = sizeof info;
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) == PFM_SUCCESS && info.is_present && info.name)
      out.emplace_back(info.name);
  }
  return out;
}

CounterSet::CounterSet(CounterSet&& o) noexcept { *this = std::move(o); }

CounterSet& CounterSet::operator=(CounterSet&& o) noexcept {
  if (this != &o) {
    close_all();
    counters_ = std::move(o.counters_);
    slots_ = std::move(o.slots_);
    leaders_ = std::move(o.leaders_);
    fds_ = std::move(o.fds_);
    members_ = std::move(o.members_);
    note_ = std::move(o.note_);
    begin_ = std::move(o.begin_);
    end_ = std::move(o.end_);
    started_ = o.started_;
    stopped_ = o.stopped_;
    o.fds_.clear();
    o.leaders_.clear();
  }
  return *this;
}

CounterSet::~CounterSet() { close_all(); }

void CounterSet::close_all() {
  for (int fd : fds_) close(fd);
  fds_.clear();
  leaders_.clear();
}

bool CounterSet::any_ok() const {
  for (const auto& c : counters_)
    if (c.ok) return true;
  return false;
}

CounterSet::Snapshot CounterSet::snapshot() const {
  // PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING:
  // { nr, time_enabled, time_running, value[nr] }; empty when the read fails.
  Snapshot snap(leaders_.size());
  for (size_t g = 0; g < leaders_.size(); ++g) {
    std::vector<uint64_t> buf(3 + static_cast<size_t>(members_[g]), 0);
    const ssize_t want = static_cast<ssize_t>(buf.size() * sizeof(uint64_t));
    if (::read(leaders_[g], buf.data(), static_cast<size_t>(want)) == want) snap[g] = std::move(buf);
  }
  return snap;
}

void CounterSet::start() {
  begin_ = snapshot();
  started_ = true;
  stopped_ = false;
}

void CounterSet::stop() {
  end_ = snapshot();
  stopped_ = true;
}

std::vector<CounterValue> CounterSet::read() const {
  const Snapshot now = started_ ? (stopped_ ? end_ : snapshot()) : Snapshot{};
  std::vector<CounterValue> out;
  out.reserve(counters_.size());
  for (size_t i = 0; i < counters_.size(); ++i) {
    CounterValue v;
    v.name = counters_[i].name;
    const Slot s = slots_[i];
    const size_t g = static_cast<size_t>(s.group);
    if (counters_[i].ok && started_ && s.group >= 0 && !now[g].empty() && !begin_[g].empty()) {
      const uint64_t enabled = now[g][1] - begin_[g][1], running = now[g][2] - begin_[g][2];
      v.raw = now[g][3 + static_cast<size_t>(s.index)] - begin_[g][3 + static_cast<size_t>(s.index)];
      if (running > 0) {
        v.ok = true;
        v.running = enabled ? double(running) / double(enabled) : 1.0;
        v.value = enabled ? double(v.raw) * double(enabled) / double(running) : double(v.raw);
      }
    }
    out.push_back(v);
  }
  return out;
}

namespace {

/// Encodes counter `name` into `attr` and c.event: a kex alias by its first candidate
/// this CPU has (else c.reason), or a libpfm4 event (unknown: InputError naming `where`).
void encode_counter(Counter& c, perf_event_attr& attr, const std::string& where) {
  const std::string& name = c.name;
  if (const CounterAlias* a = find_alias(name)) {
    std::string tried;
    for (std::string_view cand : a->candidates) {
      if (encode(std::string(cand), attr, &c.event) == PFM_SUCCESS) {
        c.event = without_modifiers(c.event);
        return;
      }
      c.event.clear();
      tried += (tried.empty() ? "" : ", ") + std::string(cand);
    }
    c.reason = "no libpfm4 event for this CPU (tried: " + tried + ")";
    return;
  }
  const int r = encode(name, attr, &c.event);
  c.event = without_modifiers(c.event);
  if (r != PFM_SUCCESS)
    throw InputError(where, "unknown counter \"" + name + "\": libpfm4 says \"" + pfm_strerror(r) +
                                "\"; use a kex name (" + alias_list() +
                                ") or a libpfm4 event of this CPU (`kex info` lists its PMU tables; "
                                "libpfm4's showevtinfo or `perf list` list their events)");
}

}  // namespace

void CounterSet::open_one(Counter& c, perf_event_attr& attr, int& hw_group) {
  attr.size = sizeof attr;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.disabled = 0;  // counting from now on: regions are differences of snapshots
  // Hardware counters join the current hardware group (read together, scheduled
  // together); when the kernel refuses (a full PMU, events of different PMUs) a
  // new group starts. Software counters stay alone: grouped with task-clock or
  // cpu-clock, page-faults lost most of its counts on Linux 6.18 (measured).
  int fd = c.hardware && hw_group >= 0 ? perf_open(&attr, leaders_[static_cast<size_t>(hw_group)]) : -1;
  bool leader = false;
  if (fd < 0) {
    fd = perf_open(&attr, -1);
    leader = fd >= 0;
  }
  if (fd < 0) {
    c.reason = "perf_event_open: " + errno_text(errno);
    return;
  }
  int group = hw_group;  // joined the hardware group
  if (leader) {
    leaders_.push_back(fd);
    members_.push_back(0);
    group = static_cast<int>(leaders_.size()) - 1;
    if (c.hardware) hw_group = group;
  }
  fds_.push_back(fd);
  slots_.push_back({group, members_[static_cast<size_t>(group)]++});
  c.ok = true;
}

CounterSet open_counters(const std::vector<std::string>& names, const std::string& where) {
  CounterSet cs;
  const bool pfm = pfm_ready();
  const PmuStatus& pmu = pmu_status();
  int hw_group = -1;  // index into leaders_ of the hardware group being filled
  bool hw_without_pmu = false;
  for (const std::string& name : names) {
    if (name.empty()) throw InputError(where, "empty counter name (kex names: " + alias_list() + ")");
    Counter c;
    c.name = name;
    perf_event_attr attr{};
    if (!pfm) c.reason = "libpfm4 failed to initialise";
    else encode_counter(c, attr, where);
    if (!c.event.empty()) {
      c.hardware = is_hardware(attr.type);
      if (c.hardware && !pmu.available) {
        c.reason = "no PMU (" + pmu.error_name + ")";
        hw_without_pmu = true;
      } else {
        cs.open_one(c, attr, hw_group);
      }
    }
    if (!c.ok) cs.slots_.push_back({});
    cs.counters_.push_back(std::move(c));
  }
  if (hw_without_pmu) cs.note_ = pmu.message;
  return cs;
}

double per_byte(const CounterValue& v, uint64_t bytes) { return v.ok && bytes ? v.value / double(bytes) : 0.0; }

}  // namespace kex
