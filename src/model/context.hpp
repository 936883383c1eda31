// The run's context: the machine, the configs, the policy and how the run went.
// Serialized in one place, src/model/context_json.cpp (one field table per record).
// Every field kex writes is typed; a key of a newer kex is kept as written (`unknown`),
// so a results file survives a read and a write.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/ceilings_section.hpp"
#include "src/model/explain_section.hpp"
#include "src/model/point.hpp"
#include "src/model/policy.hpp"
#include "src/model/protocol.hpp"
#include "src/model/result.hpp"
#include "src/model/segments.hpp"

namespace kex {

/// One level of the machine's caches (context.machine.cache_levels).
struct CacheLevelRecord {
  int level = 0;
  std::string type;              ///< "Data", "Instruction" or "Unified"
  uint64_t size = 0;             ///< bytes
  int line_size = 0, ways = 0;   ///< 0: unknown; ways -1: fully associative
  int num_sharing = 0;           ///< logical CPUs sharing it; 0: unknown
  std::string shared_cpu_list;   ///< "0-3,8"; "" when the source cannot tell
  bool operator==(const CacheLevelRecord&) const = default;
};

/// The machine a run measured on (results' context.machine). The identity fields
/// are always written; an optional one is what kex probes beyond it (kex info),
/// absent in files from a kex before it and in hand-made ones.
struct MachineInfo {
  std::string cpu_vendor, cpu_model;
  int family = 0, model = 0, stepping = 0;
  std::optional<std::string> microcode;
  std::vector<std::string> features;
  int num_cpus = 0;
  std::optional<int64_t> mhz_per_cpu;
  uint64_t l1d_bytes = 0, l2_bytes = 0, llc_bytes = 0;  ///< 0 = unknown
  std::optional<std::string> cache_source;              ///< where the sizes came from (hwloc, sysfs, cpuid)
  std::optional<int> cache_cpu;                         ///< the CPU the caches describe
  std::optional<std::vector<CacheLevelRecord>> cache_levels;
  std::optional<int> numa_nodes, cache_cpu_numa_node;   ///< node -1: unknown
  double tsc_hz = 0;
  std::optional<std::string> tsc_source;
  std::optional<double> cpuinfo_mhz;
  std::optional<std::string> kernel, kernel_version;
  std::string virtualization;
  std::optional<std::string> hypervisor_signature, transparent_hugepage;
  std::optional<bool> pmu_available;
  std::optional<std::string> pmu_error;                 ///< written when the PMU is not available
  std::optional<bool> cpu_scaling_enabled;
  std::optional<std::vector<std::string>> scaling_governors;
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();  ///< keys of a newer kex, kept as written
  bool operator==(const MachineInfo&) const = default;
};

/// One sentinel figure over a run's readings; the ratios are to the median.
struct SentinelSpread {
  double median = 0;                ///< ticks per KiB
  double p10 = 0, p90 = 0, max = 0; ///< p10/median, p90/median, max/median
  double mad = 0;                   ///< median absolute deviation / median
  bool operator==(const SentinelSpread&) const = default;
};

/// The run's noise (context.protocol.noise, src/model/noise.hpp computes it).
struct Noise {
  SentinelSpread l1, mem;
  size_t readings = 0;            ///< sentinel readings (= windows)
  size_t disturbed = 0;           ///< readings flagged (= disturbed windows)
  size_t tasks_measured = 0;      ///< tasks done, re-measurements included
  size_t remeasured_tasks = 0;
  double budget = 0;              ///< the policy's fraction of the run's tasks
  size_t budget_tasks = 0;        ///< that fraction as tasks
  size_t points_with_cv = 0;      ///< points with two or more counted repetitions
  double median_repetition_cv = 0;  ///< median over those points of Aggregate.cv
  bool operator==(const Noise&) const = default;
};

/// One sentinel reading: TSC ticks per KiB of an L1-resident store loop (core
/// sharing) and of a read of a buffer larger than the L2 (memory and cache
/// bandwidth taken by others). Larger is slower. src/run/sentinel.hpp takes them.
struct SentinelReading {
  double l1_ticks_per_kib = 0;
  double mem_ticks_per_kib = 0;
  double at_s = 0;         ///< seconds since the measurement phase began
  uint64_t after_task = 0; ///< tasks done before it
  bool disturbed = false;  ///< the detector's verdict
  bool operator==(const SentinelReading&) const = default;
};

/// A reading as the context lists it (context.sentinel_readings): with the window of
/// tasks before it, and whether that window was measured again.
struct SentinelWindow {
  SentinelReading reading;
  size_t window = 0;       ///< tasks in the window
  bool requeued = false;
  bool operator==(const SentinelWindow&) const = default;
};

/// Where one buffer plan's mapping landed, as the measuring worker saw it after
/// prefaulting (the worker's frame, and context.buffers.plans).
struct BufferPlacement {
  uint64_t bytes = 0;            ///< mapped (0: none of it could be; less than planned_bytes: a part)
  std::optional<uint64_t> planned_bytes;  ///< the whole plan (absent in files from before it)
  bool huge_pages_advised = false;
  int64_t huge_page_bytes = -1;  ///< transparent huge pages backing it (/proc/self/smaps); -1: unknown
  std::vector<int> numa_nodes;   ///< nodes its pages are on (empty: unknown)
  bool operator==(const BufferPlacement&) const = default;
};

/// Where the measured memory was (context.buffers).
struct BufferRecord {
  int worker_cpu_numa_node = -1;  ///< the node of the worker's CPU; -1: unknown
  std::vector<BufferPlacement> plans;
  bool operator==(const BufferRecord&) const = default;
};

/// A point the run could not measure as asked for a reason outside its kernel: its
/// buffers could not be mapped (a memory limit), or its worker was killed from
/// outside or exited while measuring it (context.incomplete_points). The repetitions
/// it finished are in its Result.
struct IncompletePoint {
  std::string point;
  std::string message;      ///< why
  int signal = 0;           ///< the signal that killed the worker (0: none)
  size_t repetitions = 0;   ///< measured
  uint32_t asked = 0;       ///< repetitions_asked
  bool operator==(const IncompletePoint&) const = default;
};

/// A stream the run drew (context.streams): what its points' names say (stream, footprint,
/// seed, calls), where its distribution came from, what the distribution says and what
/// the draw gave (docs/DESIGN.md "A stream is an axis").
struct StreamRecord {
  std::string name;          ///< the distribution: a shipped name or a file's name
  std::string path;          ///< the file read ("" for a shipped one)
  std::string footprint_asked;  ///< "L2" or bytes, as asked
  uint64_t footprint = 0;    ///< bytes each region its calls walk
  uint64_t seed = 1;
  uint32_t calls = 0;        ///< per pass (one operation)
  uint64_t bytes = 0;        ///< of one pass (the points' size)
  double mean = 0;           ///< the distribution's bytes per call
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
  uint64_t distinct = 0;     ///< sizes the distribution has
  uint64_t capped = 0;       ///< calls drawn above footprint / 2, made footprint / 2
  uint64_t overlapping = 0;  ///< calls whose src and dst overlap (memmove's streams)
  /// The fixed sizes measured beside the stream (the same competitors, in the same run) and
  /// the share of the stream's calls each stands for (the calls nearest it in log2 of the
  /// size): what the fixed-size prediction of the stream weighs their times by.
  std::vector<std::pair<uint64_t, double>> fixed_weights;
  /// The distribution's size CDF: P(size <= s) at log-spaced sizes (DistributionFacts::cdf).
  std::vector<std::pair<uint64_t, double>> cdf;
  bool operator==(const StreamRecord&) const = default;
};

/// How a finished run ended (context.points_planned, points_written, elapsed_s and
/// load_avg_end): what kex run writes last.
struct RunTotals {
  std::optional<std::vector<double>> load_avg_end;  ///< 1, 5 and 15 minutes; absent in files from before it
  size_t points_planned = 0;  ///< this shard's points
  size_t points_written = 0;  ///< Results in the file
  double elapsed_s = 0;       ///< wall time of the whole run
  bool operator==(const RunTotals&) const = default;
};

/// A cache as Google Benchmark's context lists it (context.caches).
struct GbenchCache {
  std::string type;     ///< "Data", "Instruction" or "Unified"
  int level = 0;
  uint64_t size = 0;    ///< bytes
  int num_sharing = 0;  ///< logical CPUs sharing it; 0: unknown
  bool operator==(const GbenchCache&) const = default;
};

/// The context's fields that Google Benchmark's has too (its tools read them). kex run
/// writes each; a file of another tool, or a hand-made one, may lack any.
struct GbenchFields {
  std::optional<std::string> executable;
  std::optional<int> num_cpus;
  std::optional<int64_t> mhz_per_cpu;              ///< the TSC rate in MHz, rounded
  std::optional<bool> cpu_scaling_enabled;
  std::optional<std::string> cpu_scaling_warning;  ///< written when scaling is enabled
  std::optional<std::vector<GbenchCache>> caches;
  std::optional<std::vector<double>> load_avg;     ///< 1, 5 and 15 minutes, as the run started
  std::optional<std::string> library_build_type;   ///< "release" or "debug"
  bool operator==(const GbenchFields&) const = default;
};

/// The kex that wrote the file (context.kex_version, kex_git_commit, libraries).
struct BuildRecord {
  std::optional<std::string> kex_version, git_commit;
  /// Name and version of each library, in the order written ("xbyak", "7.07").
  std::optional<std::vector<std::pair<std::string, std::string>>> libraries;
  bool operator==(const BuildRecord&) const = default;
};

/// Which of glibc's own variants the measuring process's memcpy, memmove and memset
/// resolved to (context.ifunc): a symbol of __libc_ifunc_impl_list ("unknown" when no
/// variant's address matched; src/run/glibc_impls.hpp).
struct IfuncRecord {
  std::string memcpy_impl, memmove_impl, memset_impl;
  std::optional<std::string> missing;  ///< why glibc's list was not there (then every pick is "unknown")
  bool operator==(const IfuncRecord&) const = default;
};

/// How times were taken (context.timer).
struct TimerRecord {
  std::string source = "lfence; rdtsc; lfence";
  uint64_t overhead_ticks = 0;  ///< TSC ticks of an empty timed region
  std::string units = "real_time in ns from TSC ticks; cycles are estimated core cycles";
  bool operator==(const TimerRecord&) const = default;
};

/// One config's measuring policy, and what its figures mean (context.policy, one per config).
struct PolicyRecord {
  std::string source;
  Policy policy;                   ///< the config's, whole (its times in seconds: the keys' "_s")
  bool min_time_recorded = true;   ///< false: read from a file before min_time_per_point_s (kept absent)
  std::string warmup = ">= 3 calls and >= 2 ms";
  std::string statistic = "median of per-call ticks; 95% CI by order statistics n/2 +- 0.98 sqrt(n)";
  std::string cold = "cold samples flush src and dst (clflushopt + mfence) before one call";
  std::string bytes_counted = "once per byte copied or cleared";
  std::string gbps = "1e9 bytes per second";
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();  ///< other keys (the first kex's cache_modes)
  bool operator==(const PolicyRecord&) const = default;
};

/// A counter the run asked for (context.counters, kex run --counters).
struct CounterRecord {
  std::string name, event;  ///< kex's name; the libpfm4 event it resolved to
  bool hardware = false, ok = false;
  std::string reason;       ///< why it is not counted ("" when ok)
  bool operator==(const CounterRecord&) const = default;
};

/// Where one worker of a multi-threaded point runs (kex run --placement), as hwloc describes it.
struct ThreadPlace {
  int cpu = -1;    ///< OS CPU number it is pinned to
  int core = -1;   ///< its core (hwloc's logical index; SMT siblings share one), -1 unknown
  int l3 = -1;     ///< its last-level-cache domain (hwloc's logical index), -1 unknown
  int numa = -1;   ///< its NUMA node, -1 unknown
  bool operator==(const ThreadPlace&) const = default;
};

/// How the run measured (context.protocol): the protocol it ran with (the Protocol it
/// is; its layout in a results file is older than the protocol's field table, so it has
/// its own, src/model/context_json.cpp) and what the supervisor did. A field an older
/// kex did not write keeps its default here.
struct ProtocolRecord : Protocol {
  /// Defaults of a file without them: "pairing" absent is a kex before paired rounds.
  ProtocolRecord() { paired = false; }
  /// The record of a run measured with `p`: what results files keep of it (not the
  /// counters, which context.counters records, nor the task timeout, the worker CPUs
  /// the run chose or its first order).
  explicit ProtocolRecord(const Protocol& p) : Protocol(p) {
    counters.clear();
    task_timeout_s = Protocol{}.task_timeout_s;
    thread_cpus.clear();
    first_order = 0;
  }
  size_t workers_started = 0, tasks_measured = 0, remeasured_tasks = 0;
  double measuring_s = 0;       ///< wall time of the measuring phase
  double measured_s = 0;        ///< the repetitions' own time
  double overhead_ms_per_task = 0;  ///< supervision_overhead_ms_per_task
  std::optional<Noise> noise;   ///< absent: a kex before it, or a merge of runs not all with one
  std::optional<std::string> journal;  ///< the journal's path ("" without one), as kex run records it
  /// Points with threads > 1: where worker k ran (threads[0]: the measuring thread, on
  /// cpu); placement.mode says how they were placed. Empty: one thread only.
  std::vector<ThreadPlace> threads;
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();  ///< keys of a newer kex, kept as written
  bool operator==(const ProtocolRecord&) const = default;
};

/// One config of the run, as written.
/// A config as its file wrote it (context.configs), compared as a JSON value.
using ConfigJson = nlohmann::ordered_json;
struct ConfigRecord {
  std::string source;  ///< file path or "built-in:default.json"
  ConfigJson config;
};

/// A seed table a harness printed (fastc/hahn), kept verbatim.
struct SeedTable {
  std::string source;
  Harness harness = Harness::fastc;
  std::string text;
};

/// A piece a merged document was made of.
struct MergedFrom {
  std::string file, host_name, date;
  size_t shard_index = 0, shard_count = 1;
  std::string run_id;  ///< the piece's RunContext::run_id ("" for files from before it)
};

/// A run's context, in the order a run writes it (Google Benchmark's fields first).
struct RunContext {
  std::string date, host_name;
  GbenchFields gbench;
  BuildRecord build;
  /// 16 hex digits drawn at random when the run starts: tells two runs apart when host,
  /// second and seed agree. "" in files written before it, and in a merge of several runs
  /// (merged_from names each one's).
  std::string run_id;
  MachineInfo machine;
  std::optional<int> pinned_cpu;          ///< the CPU kex run was pinned to (-1: none)
  std::optional<TimerRecord> timer;
  std::optional<IfuncRecord> ifunc;       ///< absent in files from before it and Google Benchmark's
  std::vector<ConfigRecord> configs;
  std::vector<PolicyRecord> policies;     ///< one per config; written when there are any
  size_t shard_index = 0, shard_count = 1;
  std::vector<size_t> merged_shards;      ///< a merge of an incomplete shard set: the indices present
  bool interrupted = false;
  std::vector<SentinelWindow> sentinel_readings;  ///< written when there are any
  std::vector<IncompletePoint> incomplete_points;  ///< written when there are any
  std::vector<StreamRecord> streams;      ///< the streams the run drew; written when there are any
  std::optional<ProtocolRecord> protocol;  ///< absent in files from before it and Google Benchmark's
  std::optional<BufferRecord> buffers;     ///< absent when no worker ran
  std::optional<RunTotals> totals;         ///< absent in a run that did not finish and in Google Benchmark's
  std::optional<std::vector<CounterRecord>> counters;  ///< kex run --counters
  std::string filter;                      ///< kex run --filter ("": none)
  size_t pooled_runs = 0;                  ///< a pool of runs (kex merge --pool): how many; 0: not a pool
  std::vector<SeedTable> seed_tables;
  std::optional<SegmentSection> segments;  ///< the segment-override table (src/model/segments.hpp)
  std::optional<ExplainSection> explain;   ///< kex explain's effects (src/model/explain_section.hpp)
  std::optional<Ceilings> ceilings;        ///< one core's bandwidth per cache level (src/model/ceilings_section.hpp)
  std::vector<MergedFrom> merged_from;
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();  ///< keys of a newer kex, kept as written
};

/// One run on one machine: its context and a Result per point.
struct RunDoc {
  RunContext context;
  std::vector<Result> results;
};

/// A label for a run: host name and CPU model ("alpha (AMD EPYC)").
std::string run_label(const RunContext& c);

/// What identifies the kind of machine (CPU model, family/model/stepping, cache
/// sizes; not the host, so shards spread over identical nodes share it).
std::string machine_key(const MachineInfo& m);

/// Cache sizes for figure markers: ("L1d", bytes), ("L2", ...), ("LLC", ...), known ones only.
std::vector<std::pair<std::string, double>> cache_marks(const MachineInfo& m);

}  // namespace kex
