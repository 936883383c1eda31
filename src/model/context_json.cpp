// The results' context and JSON, both ways: one field table per record (a mapping
// over FieldWriter / FieldReader, json_fields.hpp), so what is written is what is
// read. Files of every kex so far are read with Keys::tolerant: a field an older
// kex did not write keeps its default, a key a newer kex wrote is kept as written.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "src/core/error.hpp"
#include "src/model/field_records.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/machine_fields.hpp"
#include "src/model/protocol_fields.hpp"
#include "src/model/result_json.hpp"
#include "src/model/ceilings_fields.hpp"
#include "src/model/explain_fields.hpp"
#include "src/model/segments_fields.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using machine_fields::kAsWritten;
using machine_fields::kMaxBytes;
using machine_fields::kMaxCpus;
using machine_fields::kMaxItems;
using machine_fields::map_ifunc;
using machine_fields::map_machine;
using machine_fields::maybe_flag;
using machine_fields::maybe_real;
using machine_fields::maybe_text;
using machine_fields::maybe_whole;

/// A seed harness's table as its seed program printed it (context.seed_tables/N/text).
constexpr size_t kMaxSeedTableBytes = size_t(1) << 20;
const TextRule kSeedTable{kMaxSeedTableBytes, nullptr, "", true};

template <class IO, class R>
void map_reading(IO& io, R& r) {
  io.real("l1_ticks_per_kib", r.l1_ticks_per_kib, 0, kInf);
  io.real("mem_ticks_per_kib", r.mem_ticks_per_kib, 0, kInf);
  io.real("at_s", r.at_s, 0, kInf);
  io.whole("after_task", r.after_task, uint64_t(0), UINT64_MAX);
  io.flag("disturbed", r.disturbed);
}

template <class IO, class B>
void map_buffer_placement(IO& io, B& b) {
  io.whole("bytes", b.bytes, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "planned_bytes", b.planned_bytes, uint64_t(0), UINT64_MAX);
  io.flag("huge_pages_advised", b.huge_pages_advised);
  io.whole("huge_page_bytes", b.huge_page_bytes, int64_t(-1), INT64_MAX);
  io.wholes("numa_nodes", b.numa_nodes, 4096, 0, kMaxCpus);
}

template <class IO, class P>
void map_incomplete(IO& io, P& p) {
  io.text("point", p.point, kAsWritten);
  io.text("message", p.message, kAsWritten);
  io.whole("signal", p.signal, 0, INT_MAX);
  io.whole("repetitions", p.repetitions, size_t(0), SIZE_MAX);
  io.whole("repetitions_asked", p.asked, 0u, UINT32_MAX);
}

template <class IO, class S>
void map_stream(IO& io, S& s) {
  io.required({"name", "footprint", "calls", "bytes"});
  io.text("name", s.name, kAsWritten);
  if (io.has("path", !s.path.empty())) io.text("path", s.path, kAsWritten);
  io.text("footprint_asked", s.footprint_asked, kAsWritten);
  io.whole("footprint", s.footprint, uint64_t(0), UINT64_MAX);
  io.whole("seed", s.seed, uint64_t(0), UINT64_MAX);
  io.whole("calls", s.calls, 0u, UINT32_MAX);
  io.whole("bytes", s.bytes, uint64_t(0), UINT64_MAX);
  io.real("mean_size", s.mean, 0, 1e30);
  io.whole("p50", s.p50, uint64_t(0), UINT64_MAX);
  io.whole("p90", s.p90, uint64_t(0), UINT64_MAX);
  io.whole("p99", s.p99, uint64_t(0), UINT64_MAX);
  io.whole("max", s.max, uint64_t(0), UINT64_MAX);
  io.whole("distinct_sizes", s.distinct, uint64_t(0), UINT64_MAX);
  io.whole("capped_calls", s.capped, uint64_t(0), UINT64_MAX);
  io.whole("overlapping_calls", s.overlapping, uint64_t(0), UINT64_MAX);
  if (io.has("fixed_weights", !s.fixed_weights.empty()))
    io.list("fixed_weights", s.fixed_weights, 0, 4096, [](auto& e, auto& w) {
      e.required({"size", "share"});
      e.whole("size", w.first, uint64_t(1), UINT64_MAX);
      e.real("share", w.second, 0, 1);
    });
  if (io.has("cdf", !s.cdf.empty()))
    io.list("cdf", s.cdf, 0, 64, [](auto& e, auto& c) {
      e.required({"size", "p"});
      e.whole("size", c.first, uint64_t(0), UINT64_MAX);
      e.real("p", c.second, 0, 1);
    });
}

/// The run's totals: fields of the context itself, not an object of their own.
template <class IO, class T>
void map_totals(IO& io, T& t) {
  if (io.has("load_avg_end", t.load_avg_end)) io.reals("load_avg_end", *t.load_avg_end, 3, 0, kInf);
  io.whole("points_planned", t.points_planned, size_t(0), SIZE_MAX);
  io.whole("points_written", t.points_written, size_t(0), SIZE_MAX);
  io.real("elapsed_s", t.elapsed_s, 0, kInf);
}

template <class IO, class S>
void map_spread(IO& io, S& s) {
  io.real("median_ticks_per_kib", s.median, 0, kInf);
  io.real("p10_over_median", s.p10, 0, kInf);
  io.real("p90_over_median", s.p90, 0, kInf);
  io.real("max_over_median", s.max, 0, kInf);
  io.real("mad_over_median", s.mad, 0, kInf);
}

/// context.protocol.noise. The budget's used and left tasks follow from the others:
/// written for readers outside kex, not read.
template <class IO, class N>
void map_noise(IO& io, N& n) {
  io.object("sentinel_l1", [&](auto& s) { map_spread(s, n.l1); });
  io.object("sentinel_mem", [&](auto& s) { map_spread(s, n.mem); });
  io.whole("readings", n.readings, size_t(0), SIZE_MAX);
  io.whole("disturbed_readings", n.disturbed, size_t(0), SIZE_MAX);
  io.whole("tasks_measured", n.tasks_measured, size_t(0), SIZE_MAX);
  io.whole("remeasured_tasks", n.remeasured_tasks, size_t(0), SIZE_MAX);
  io.real("budget", n.budget, 0, 1);
  io.whole("budget_tasks", n.budget_tasks, size_t(0), SIZE_MAX);
  size_t used = std::min(n.remeasured_tasks, n.budget_tasks), left = n.budget_tasks - used;
  io.whole("budget_used_tasks", used, size_t(0), SIZE_MAX);
  io.whole("budget_left_tasks", left, size_t(0), SIZE_MAX);
  io.whole("points_with_cv", n.points_with_cv, size_t(0), SIZE_MAX);
  io.real("median_repetition_cv", n.median_repetition_cv, 0, kInf);
}

std::optional<bool> parse_order(std::string_view s) {
  if (s == "random over the whole sweep") return true;
  if (s == "config order") return false;
  return std::nullopt;
}

/// context.protocol: the protocol the run measured with and what its supervisor did.
template <class IO, class P>
void map_protocol_record(IO& io, P& p) {
  io.whole("repetitions", p.repetitions, 0u, UINT32_MAX);
  io.choice("pairing", p.paired, parse_pairing, pairing_text, "rounds, separate");
  if (io.has("round", p.paired))
    io.object("round", [&](auto& r) {
      r.whole("samples", p.round.samples, 0u, UINT32_MAX);
      r.whole("block", p.round.block, 0u, UINT32_MAX);
      r.real("sample_us", p.round.sample_us, 0, kInf);
      r.real("member_us", p.round.member_us, 0, kInf);
      r.real("settle_us", p.round.settle_us, 0, kInf);
    });
  io.whole("tasks_per_worker", p.tasks_per_worker, 0u, UINT32_MAX);
  io.choice("order", p.shuffle, parse_order, [](bool s) { return s ? "random over the whole sweep" : "config order"; },
            "random over the whole sweep, config order");
  io.whole("seed", p.seed, uint64_t(0), UINT64_MAX);
  io.whole("worker_cpu", p.cpu, -1, kMaxCpus);
  io.whole("workers_started", p.workers_started, size_t(0), SIZE_MAX);
  io.whole("tasks_measured", p.tasks_measured, size_t(0), SIZE_MAX);
  io.whole("remeasured_tasks", p.remeasured_tasks, size_t(0), SIZE_MAX);
  io.object("sentinel", [&](auto& s) {
    s.flag("enabled", p.sentinel.enabled);
    s.whole("every", p.sentinel.every, 0u, UINT32_MAX);
    s.real("threshold", p.sentinel.threshold, 0.001, 10);  // as a config and the command line allow
    s.real("budget", p.sentinel.budget, 0, 10);
    s.whole("memory_bytes", p.sentinel.mem_bytes, uint64_t(0), UINT64_MAX);
  });
  io.real("measuring_s", p.measuring_s, 0, kInf);
  io.real("measured_s", p.measured_s, 0, kInf);
  io.real("supervision_overhead_ms_per_task", p.overhead_ms_per_task, -kInf, kInf);
  if (io.has("noise", p.noise)) io.object("noise", [&](auto& n) { map_noise(n, *p.noise); });
  maybe_text(io, "journal", p.journal);
  if (io.has("threads", !p.threads.empty())) {
    io.choice("placement", p.placement.mode, parse_placement_mode, [](PlacementMode m) { return to_string(m); },
              "spread, compact or list");
    io.list("threads", p.threads, 1, kMaxCpus, [](auto& t, auto& w) {
      t.whole("cpu", w.cpu, -1, kMaxCpus);
      t.whole("core", w.core, -1, kMaxCpus);
      t.whole("l3", w.l3, -1, kMaxCpus);
      t.whole("numa", w.numa, -1, kMaxCpus);
    });
  }
  io.others(p.unknown);
}

/// Google Benchmark's fields of the context (its tools read them).
template <class IO, class G>
void map_gbench(IO& io, G& g) {
  maybe_text(io, "executable", g.executable);
  maybe_whole(io, "num_cpus", g.num_cpus, 0, kMaxCpus);
  maybe_whole(io, "mhz_per_cpu", g.mhz_per_cpu, int64_t(0), int64_t(1) << 40);
  maybe_flag(io, "cpu_scaling_enabled", g.cpu_scaling_enabled);
  maybe_text(io, "cpu_scaling_warning", g.cpu_scaling_warning);
  if (io.has("caches", g.caches))
    io.list("caches", *g.caches, 0, 64, [](auto& e, auto& c) {
      e.text("type", c.type, kAsWritten);
      e.whole("level", c.level, 0, 16);
      e.whole("size", c.size, uint64_t(0), kMaxBytes);
      e.whole("num_sharing", c.num_sharing, 0, kMaxCpus);
    });
  if (io.has("load_avg", g.load_avg)) io.reals("load_avg", *g.load_avg, 16, 0, kInf);
  maybe_text(io, "library_build_type", g.library_build_type);
}

template <class IO, class B>
void map_build(IO& io, B& b) {
  maybe_text(io, "kex_version", b.kex_version);
  maybe_text(io, "kex_git_commit", b.git_commit);
  if (io.has("libraries", b.libraries)) io.named_texts("libraries", *b.libraries, 64, kAsWritten);
}

template <class IO, class T>
void map_timer(IO& io, T& t) {
  io.text("source", t.source, kAsWritten);
  io.whole("overhead_ticks", t.overhead_ticks, uint64_t(0), UINT64_MAX);
  io.text("units", t.units, kAsWritten);
}

/// Whether the record has min_time_per_point_s: what the writer writes, what the reader
/// found (a file before it has none, and is written back without it).
template <class IO>
bool min_time_there(IO& io, const PolicyRecord& p) {
  return io.has("min_time_per_point_s", p.min_time_recorded);
}
template <class IO>
bool min_time_there(IO& io, PolicyRecord& p) {
  return p.min_time_recorded = io.has("min_time_per_point_s", p.min_time_recorded);
}

template <class IO, class P>
void map_policy(IO& io, P& p) {
  io.text("source", p.source, kAsWritten);
  io.real("precision", p.policy.precision, 0, kInf);
  io.real("max_time_per_point_s", p.policy.max_time_per_point, 0, kInf);
  if (min_time_there(io, p)) io.real("min_time_per_point_s", p.policy.min_time_per_point, 0, kInf);
  io.whole("min_samples", p.policy.min_samples, 0u, UINT32_MAX);
  io.whole("max_samples", p.policy.max_samples, 0u, UINT32_MAX);
  io.real("sample_us", p.policy.sample_us, 0, kInf);
  io.text("warmup", p.warmup, kAsWritten);
  io.text("statistic", p.statistic, kAsWritten);
  io.text("cold", p.cold, kAsWritten);
  io.text("bytes_counted", p.bytes_counted, kAsWritten);
  io.text("gbps", p.gbps, kAsWritten);
  io.others(p.unknown);
}

template <class IO, class K>
void map_counter(IO& io, K& k) {
  io.text("name", k.name, kAsWritten);
  io.text("event", k.event, kAsWritten);
  io.flag("hardware", k.hardware);
  io.flag("ok", k.ok);
  io.text("reason", k.reason, kAsWritten);
}

template <class IO, class F>
void map_merged_from(IO& io, F& f) {
  io.text("file", f.file, kAsWritten);
  io.text("host_name", f.host_name, kAsWritten);
  io.text("date", f.date, kAsWritten);
  io.object("shard", [&](auto& s) {
    s.whole("index", f.shard_index, size_t(0), size_t(999999));
    s.whole("count", f.shard_count, size_t(1), size_t(1000000));
  });
  if (io.has("run_id", !f.run_id.empty())) io.text("run_id", f.run_id, kAsWritten);
}

template <class IO, class T>
void map_seed_table(IO& io, T& t) {
  io.text("source", t.source, kAsWritten);
  io.choice("harness", t.harness, parse_harness, [](Harness h) { return to_string(h); }, "fastc, hahn, xmm64, mem_cp");
  io.text("text", t.text, kSeedTable);
}

/// The context's one field table, in the order a run writes it: Google Benchmark's
/// fields first (its tools read them), then kex's.
/// What the run did: its sentinel readings, the points it could not measure as asked,
/// its protocol, where its buffers were, its totals, and the counters, filter and pool.
template <class IO, class C>
void map_run_record(IO& io, C& c) {
  if (io.has("sentinel_readings", !c.sentinel_readings.empty()))
    io.list("sentinel_readings", c.sentinel_readings, 0, kMaxItems, [](auto& e, auto& w) {
      map_reading(e, w.reading);
      e.whole("window", w.window, size_t(0), SIZE_MAX);
      e.flag("requeued", w.requeued);
    });
  if (io.has("incomplete_points", !c.incomplete_points.empty()))
    io.list("incomplete_points", c.incomplete_points, 0, kMaxItems, [](auto& e, auto& p) { map_incomplete(e, p); });
  if (io.has("streams", !c.streams.empty()))
    io.list("streams", c.streams, 0, 4096, [](auto& e, auto& s) { map_stream(e, s); });
  if (io.has("protocol", c.protocol)) io.object("protocol", [&](auto& p) { map_protocol_record(p, *c.protocol); });
  if (io.has("buffers", c.buffers))
    io.object("buffers", [&](auto& b) {
      b.whole("worker_cpu_numa_node", c.buffers->worker_cpu_numa_node, -1, kMaxCpus);
      b.list("plans", c.buffers->plans, 0, 4096, [](auto& e, auto& p) { map_buffer_placement(e, p); });
    });
  if (io.has("points_planned", c.totals)) map_totals(io, *c.totals);
  if (io.has("counters", c.counters))
    io.list("counters", *c.counters, 0, 64, [](auto& e, auto& k) { map_counter(e, k); });
  if (io.has("filter", !c.filter.empty())) io.text("filter", c.filter, kAsWritten);
  if (io.has("pooled_runs", c.pooled_runs != 0)) io.whole("pooled_runs", c.pooled_runs, size_t(0), SIZE_MAX);
}

/// The context's one field table, in the order a run writes it: Google Benchmark's
/// fields first (its tools read them), then kex's.
template <class IO, class C>
void map_context(IO& io, C& c) {
  io.text("date", c.date, kAsWritten);
  io.text("host_name", c.host_name, kAsWritten);
  map_gbench(io, c.gbench);
  int version = kResultsSchemaVersion;  // always the current one written; any read (Google Benchmark's is 1)
  io.whole("json_schema_version", version, 0, INT_MAX);
  map_build(io, c.build);
  io.object("machine", [&](auto& m) { map_machine(m, c.machine); });
  maybe_whole(io, "pinned_cpu", c.pinned_cpu, -1, kMaxCpus);
  if (io.has("timer", c.timer)) io.object("timer", [&](auto& t) { map_timer(t, *c.timer); });
  if (io.has("ifunc", c.ifunc)) io.object("ifunc", [&](auto& f) { map_ifunc(f, *c.ifunc); });
  io.list("config", c.configs, 0, kMaxItems, [](auto& e, auto& r) {
    e.text("source", r.source, kAsWritten);
    e.object_value("config", r.config);
  });
  if (io.has("policy", !c.policies.empty()))
    io.list("policy", c.policies, 0, kMaxItems, [](auto& e, auto& p) { map_policy(e, p); });
  io.object("shard", [&](auto& s) {
    s.whole("index", c.shard_index, size_t(0), size_t(999999));
    s.whole("count", c.shard_count, size_t(1), size_t(1000000));
    if (s.has("merged_indices", !c.merged_shards.empty()))
      s.wholes("merged_indices", c.merged_shards, 1000000, size_t(0), size_t(999999));
  });
  map_run_record(io, c);
  if (io.has("run_id", !c.run_id.empty())) io.text("run_id", c.run_id, kAsWritten);
  io.flag("interrupted", c.interrupted);
  if (io.has("seed_tables", !c.seed_tables.empty()))
    io.list("seed_tables", c.seed_tables, 0, kMaxItems, [](auto& e, auto& t) { map_seed_table(e, t); });
  if (io.has("segments", c.segments)) io.object("segments", [&](auto& s) { segment_fields::map_section(s, *c.segments); });
  if (io.has("explain", c.explain)) io.object("explain", [&](auto& s) { explain_fields::map_section(s, *c.explain); });
  if (io.has("ceilings", c.ceilings)) io.object("ceilings", [&](auto& s) { ceilings_fields::map_ceilings(s, *c.ceilings); });
  if (io.has("merged_from", !c.merged_from.empty()))
    io.list("merged_from", c.merged_from, 0, kMaxItems, [](auto& e, auto& f) { map_merged_from(e, f); });
  io.others(c.unknown);
}

/// Selectors in the order kex writes them (a reader sees a file's keys sorted), others after.
void selectors_in_order(NamedSelectors& v, std::initializer_list<const char*> order) {
  auto rank = [&](const std::string& name) {
    size_t i = 0;
    for (const char* o : order) {
      if (name == o) return i;
      ++i;
    }
    return i;
  };
  std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
}

void segments_in_order(SegmentSection& s) {
  selectors_in_order(s.header.selectors, {"ds", "ss", "fs", "gs", "data", "ldt", "gdt"});
  if (s.header.entry_selectors)
    selectors_in_order(*s.header.entry_selectors, {"null", "data", "ldt", "gdt-tls", "gdt-cpunode"});
}

/// A Google Benchmark context has no kex machine: cache sizes from its list of
/// caches, the TSC rate from its mhz_per_cpu.
void gbench_machine(const GbenchFields& g, MachineInfo& m) {
  if (!m.l1d_bytes && !m.l2_bytes && !m.llc_bytes && g.caches)
    for (const GbenchCache& c : *g.caches) {
      if (c.type == "Instruction" || c.size == 0) continue;
      (c.level == 1 ? m.l1d_bytes : c.level == 2 ? m.l2_bytes : m.llc_bytes) = c.size;
    }
  if (m.tsc_hz <= 0 && g.mhz_per_cpu) m.tsc_hz = double(*g.mhz_per_cpu) * 1e6;
}

}  // namespace

ordered_json to_json(const SentinelReading& r) {
  return record_json(r, [](auto& io, auto& x) { map_reading(io, x); });
}

SentinelReading sentinel_reading_from_json(const json& j, const std::string& where) {
  return record_from<SentinelReading>(j, where, Keys::exact, [](auto& io, auto& x) { map_reading(io, x); });
}

ordered_json to_json(const IfuncRecord& f) {
  return record_json(f, [](auto& io, auto& x) { map_ifunc(io, x); });
}

ordered_json to_json(const BufferPlacement& b) {
  return record_json(b, [](auto& io, auto& x) { map_buffer_placement(io, x); });
}

BufferPlacement buffer_placement_from_json(const json& j, const std::string& where) {
  return record_from<BufferPlacement>(j, where, Keys::exact, [](auto& io, auto& x) { map_buffer_placement(io, x); });
}

ordered_json to_json(const MachineInfo& m) {
  return record_json(m, [](auto& io, auto& x) { map_machine(io, x); });
}

ordered_json to_json(const RunContext& c) {
  return record_json(c, [](auto& io, auto& x) { map_context(io, x); });
}

ordered_json to_json(const SegmentSection& s) {
  return record_json(s, [](auto& io, auto& x) { segment_fields::map_section(io, x); });
}

SegmentSection segment_section_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected an object (the segment table)");
  const auto header = j.find("header");
  if (header == j.end() || !header->is_object()) throw InputError(where + "/header", "expected an object");
  const auto selectors = header->find("selectors");
  if (selectors == header->end() || !selectors->is_object())
    throw InputError(where + "/header/selectors", "expected an object");
  if (!j.contains("cases") || !j["cases"].is_array()) throw InputError(where + "/cases", "expected a list of cases");
  SegmentSection s;
  FieldReader r(j, where, Keys::tolerant);
  segment_fields::map_section(r, s);
  segments_in_order(s);
  return s;
}

std::optional<std::string> selector_named(const NamedSelectors& v, const std::string& name) {
  for (const auto& [n, sel] : v)
    if (n == name) return sel;
  return std::nullopt;
}

RunContext context_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected an object describing the run");
  RunContext c;
  FieldReader r(j, where, Keys::tolerant);
  map_context(r, c);
  if (c.shard_index >= c.shard_count)
    throw InputError(where + "/shard/index", std::to_string(c.shard_index) + ": expected below the count, " +
                                                 std::to_string(c.shard_count));
  gbench_machine(c.gbench, c.machine);
  if (c.segments) segments_in_order(*c.segments);
  return c;
}

}  // namespace kex
