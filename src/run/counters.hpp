// Hardware and software event counters around a measured region, by name, in the
// way Google Benchmark's --benchmark_perf_counters works: names are resolved by
// libpfm4 (Debian libpfm4-dev) into perf_event_open(2) attributes, counters are
// opened on the calling thread (user mode only; hardware ones in groups, software
// ones alone), and values are scaled for multiplexing. Without a PMU (a VM: perf_event_open gives ENOENT,
// docs/methodology.md §2.4) hardware counters are reported unsupported with one
// note, software counters still work, and nothing fails.
//
//   CounterSet cs = open_counters({"cycles", "instructions", "l1d-misses"});
//   if (!cs.note().empty()) std::fprintf(stderr, "kex: %s\n", cs.note().c_str());
//   cs.start();  ...measured region...  cs.stop();
//   for (const CounterValue& v : cs.read()) if (v.ok) use(v.name, v.value / bytes);
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct perf_event_attr;  // <linux/perf_event.h>

namespace kex {

/// Whether hardware counters can be opened here: perf_event_open of
/// PERF_COUNT_HW_CPU_CYCLES on this thread, user mode, probed once.
struct PmuStatus {
  bool available = false;
  int error = 0;            ///< errno of the failed open (ENOENT when there is no PMU driver)
  std::string error_name;   ///< "ENOENT"; "" when available
  /// "" when available, else one line for the user, e.g. "no PMU: hardware counters
  /// unavailable (ENOENT); cycles are imul-chain estimates".
  std::string message;
};

/// This machine's PMU status, probed once (one perf_event_open).
const PmuStatus& pmu_status();

/// One event name resolved by libpfm4 (pfm_get_os_event_encoding; needs no PMU).
struct EventEncoding {
  bool ok = false;
  std::string event;        ///< the name given to libpfm4
  std::string fstr;         ///< libpfm4's fully qualified name, "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:..."
  uint32_t type = 0;        ///< perf_event_attr.type (PERF_TYPE_HARDWARE = 0, PERF_TYPE_RAW = 4, ...)
  uint64_t config = 0;      ///< perf_event_attr.config
  bool hardware = false;    ///< counts on the core PMU (hardware, cache or raw event)
  std::string error;        ///< libpfm4's reason when !ok ("event not found")
};

/// Resolves a libpfm4 event name ("cycles", "L2_RQSTS:MISS", "perf::PERF_COUNT_SW_PAGE_FAULTS")
/// for user-mode counting; never throws.
EventEncoding resolve_event(const std::string& event);

/// A kex counter name: a short word for an event whose libpfm4 name differs by
/// CPU. The first candidate libpfm4 resolves on this CPU is used.
struct CounterAlias {
  std::string_view name;         ///< "l2-misses"
  std::string_view description;  ///< what it counts, and on which CPUs
  std::span<const std::string_view> candidates;  ///< libpfm4 names, most specific first
};

/// Every kex counter name: cycles, instructions, l1d-misses, l2-misses,
/// llc-misses, dram-fills, l2-prefetch-misses-l3.
std::span<const CounterAlias> counter_aliases();

/// A requested counter as open_counters() left it.
struct Counter {
  std::string name;    ///< as requested: a kex name ("l2-misses") or a libpfm4 name ("L2_RQSTS:MISS")
  std::string event;   ///< the libpfm4 event it resolved to, fully qualified without the
                       ///< privilege modifiers ("perf::PERF_COUNT_HW_CPU_CYCLES"); "" when none
  bool hardware = false;
  bool ok = false;     ///< opened: read() gives real values for it
  std::string reason;  ///< why not ok: "no PMU (ENOENT)", "no libpfm4 event for this CPU (tried: ...)",
                       ///< "perf_event_open: EACCES (Permission denied)"
};

/// One counter's count over the region between start() and read().
struct CounterValue {
  std::string name;
  bool ok = false;           ///< false: not opened, or never scheduled on the PMU
  double value = 0;          ///< raw * time_enabled / time_running (multiplexing scaled); 0 when !ok
  uint64_t raw = 0;          ///< counted while scheduled
  double running = 0;        ///< time_running / time_enabled: 1 = counted all the time
};

/// Counters opened on the calling thread. Move-only; closes them when destroyed.
class CounterSet {
 public:
  CounterSet() = default;
  CounterSet(CounterSet&&) noexcept;
  CounterSet& operator=(CounterSet&&) noexcept;
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;
  ~CounterSet();

  /// One entry per requested name, in request order.
  const std::vector<Counter>& counters() const { return counters_; }
  /// True when at least one counter opened.
  bool any_ok() const;
  /// pmu_status().message when a hardware counter was asked for and there is no
  /// usable PMU: the one line to show the user; "" otherwise.
  const std::string& note() const { return note_; }

  /// Marks the start of a region: takes a snapshot of every group. Counters run
  /// from open_counters() on; a region is the difference of two snapshots, as in
  /// Google Benchmark (disabling and re-enabling a group lost its members' counts).
  /// One read(2) per group, ~2 µs here: per batch of samples, never per sample.
  void start();
  /// Marks the end: read() then gives the counts between start() and stop().
  void stop();
  /// Counts between start() and stop() (or now, if not stopped), one per
  /// requested name in request order; all zero and !ok before any start().
  std::vector<CounterValue> read() const;

 private:
  friend CounterSet open_counters(const std::vector<std::string>&, const std::string&);
  /// Opens the encoded event `attr` for `c`: a hardware counter joins the hardware group
  /// `hw_group` (or leads a new one), a software counter stays alone; c.ok or c.reason.
  void open_one(Counter& c, perf_event_attr& attr, int& hw_group);
  struct Slot { int group = -1; int index = 0; };  // group number, position in that group's read
  std::vector<Counter> counters_;
  std::vector<Slot> slots_;    // parallel to counters_
  std::vector<int> leaders_;   // fd of each group's leader
  std::vector<int> fds_;       // every open fd
  std::vector<int> members_;   // counters per group
  std::string note_;
  using Snapshot = std::vector<std::vector<uint64_t>>;  // per group: nr, time_enabled, time_running, values
  Snapshot begin_, end_;
  bool started_ = false, stopped_ = false;
  Snapshot snapshot() const;
  void close_all();
};

/// Opens `names` (kex names from counter_aliases() or libpfm4 event names) on the
/// calling thread, user mode only. A name libpfm4 knows but this machine cannot
/// count is not an error: its Counter says why. Throws InputError naming `where`
/// and the name when a name is neither a kex name nor a libpfm4 event on this CPU.
CounterSet open_counters(const std::vector<std::string>& names, const std::string& where = "--counters");

/// A count per byte copied or cleared (bytes counted once, as everywhere in kex);
/// 0 when the counter is not ok or bytes is 0.
double per_byte(const CounterValue& v, uint64_t bytes);

/// The libpfm4 PMU tables active on this machine ("perf", "amd64_fam19h_zen3", ...):
/// which model-specific event names resolve here. Listed by `kex info`.
std::vector<std::string> pfm_pmu_names();

}  // namespace kex
