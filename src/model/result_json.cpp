#include "src/model/result_json.hpp"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdio>

#include "src/core/error.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/paired.hpp"
#include "src/core/stats.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string hex64(uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

/// Typed field access with the JSON path in every error.
struct In {
  const json& j;
  std::string where;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(where + "/" + key, what);
  }
  bool has(const char* key) const { return j.is_object() && j.contains(key) && !j[key].is_null(); }
  const json& at(const char* key) const {
    if (!has(key)) fail(key, "missing");
    return j[key];
  }
  std::string str(const char* key) const { return text(at(key), key); }
  /// `v` (the value of `key`, or an item of it) as a string of at most kMaxFreeTextBytes.
  std::string text(const json& v, const char* key) const {
    if (!v.is_string()) fail(key, shown_value(v) + ": expected a string");
    if (v.get_ref<const std::string&>().size() > kMaxFreeTextBytes)
      fail(key, shown_value(v) + ": longer than " + std::to_string(kMaxFreeTextBytes) + " bytes");
    return v.get<std::string>();
  }
  std::string str_or(const char* key, const std::string& d) const { return has(key) ? str(key) : d; }
  double number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, v.dump() + ": expected a number");
    return v.get<double>();
  }
  double number_or(const char* key, double d) const { return has(key) ? number(key) : d; }
  uint64_t uint(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      fail(key, v.dump() + ": expected a non-negative integer");
    return v.get<uint64_t>();
  }
  uint64_t uint_or(const char* key, uint64_t d) const { return has(key) ? uint(key) : d; }
  int64_t sint(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, v.dump() + ": expected an integer");
    return v.get<int64_t>();
  }
  bool boolean_or(const char* key, bool d) const {
    if (!has(key)) return d;
    if (!j[key].is_boolean()) fail(key, j[key].dump() + ": expected true or false");
    return j[key].get<bool>();
  }
  In obj(const char* key) const {
    const json& v = at(key);
    if (!v.is_object()) fail(key, "expected an object");
    return In{v, where + "/" + key};
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const json& v = j[key];
    if (!v.is_array()) fail(key, "expected a list of strings");
    for (const auto& e : v) out.push_back(text(e, key));
    return out;
  }
};

template <class E, class Parse>
E enum_field(const In& in, const char* key, Parse parse, const char* allowed) {
  auto v = parse(in.str(key));
  if (!v) in.fail(key, "\"" + in.str(key) + "\": allowed " + allowed);
  return *v;
}

ordered_json tick_stats(const SampleStats& s) {
  return {{"n", s.n},
          {"min_ticks", s.min},
          {"p10_ticks", s.p10},
          {"median_ticks", s.median},
          {"p90_ticks", s.p90},
          {"max_ticks", s.max},
          {"ci95_low_ticks", s.ci_low},
          {"ci95_high_ticks", s.ci_high},
          {"ci_rel_halfwidth", s.ci_rel}};
}

SampleStats tick_stats_from(const In& in) {
  SampleStats s;
  s.n = in.uint("n");
  s.min = in.number("min_ticks");
  s.p10 = in.number("p10_ticks");
  s.median = in.number("median_ticks");
  s.p90 = in.number("p90_ticks");
  s.max = in.number("max_ticks");
  s.ci_low = in.number("ci95_low_ticks");
  s.ci_high = in.number("ci95_high_ticks");
  s.ci_rel = in.number("ci_rel_halfwidth");
  return s;
}

}  // namespace

ordered_json to_json(const Repetition& r) {
  ordered_json j;
  j["calls_per_sample"] = r.calls_per_sample;
  const ordered_json stats = tick_stats(r.per_call);
  for (auto it = stats.begin(); it != stats.end(); ++it) j[it.key()] = it.value();
  j["stop_reason"] = r.stop_reason;
  j["cycles_per_tick"] = r.cycles_per_tick;
  j["cycles_method"] = r.cycles_method;
  j["context_switches"] = r.context_switches;
  j["cpu_migrations"] = r.migrations;
  j["seconds"] = r.seconds;
  j["steal_s"] = r.steal_s;
  j["order"] = r.order;
  if (r.round) j["round"] = r.round;
  j["previous"] = r.previous;
  j["disturbed"] = r.disturbed;
  if (!r.counters.empty()) {
    ordered_json c = ordered_json::object();
    for (const auto& v : r.counters) c[v.name] = {{"per_op", v.per_op}, {"running", v.running}};
    j["counters"] = c;
  }
  if (!r.threads.empty()) {
    ordered_json t = ordered_json::array();
    for (const ThreadFigure& f : r.threads)
      t.push_back({{"cpu", f.cpu}, {"median_ticks", f.median_ticks}, {"min_ticks", f.min_ticks}});
    j["threads"] = t;
    j["start_spread_ticks"] = r.start_spread_ticks;
  }
  j["samples_ticks"] = r.sample_ticks;
  return j;
}

namespace {

Repetition rep_from(const In& in) {
  Repetition r;
  r.calls_per_sample = static_cast<uint32_t>(in.uint("calls_per_sample"));
  r.per_call = tick_stats_from(in);
  r.stop_reason = in.str_or("stop_reason", "");
  r.cycles_per_tick = in.number_or("cycles_per_tick", 0);
  r.cycles_method = in.str_or("cycles_method", "");
  r.context_switches = in.uint_or("context_switches", 0);
  r.migrations = in.uint_or("cpu_migrations", 0);
  r.seconds = in.number_or("seconds", 0);
  r.steal_s = in.number_or("steal_s", 0);
  r.order = in.uint_or("order", 0);
  r.round = in.uint_or("round", 0);
  r.previous = in.str_or("previous", "");
  r.disturbed = in.boolean_or("disturbed", false);
  if (in.has("counters")) {
    const json& c = in.j["counters"];
    if (!c.is_object()) in.fail("counters", "expected an object {name: {per_op, running}}");
    for (auto it = c.begin(); it != c.end(); ++it) {
      const In v{it.value(), in.where + "/counters/" + it.key()};
      if (!it.value().is_object()) in.fail("counters/" + it.key(), "expected an object {per_op, running}");
      r.counters.push_back({it.key(), v.number_or("per_op", 0), v.number_or("running", 1)});
    }
  }
  if (in.has("threads")) {
    const json& t = in.j["threads"];
    if (!t.is_array()) in.fail("threads", "expected a list of {cpu, median_ticks, min_ticks}");
    for (size_t k = 0; k < t.size(); ++k) {
      const In w{t[k], in.where + "/threads/" + std::to_string(k)};
      if (!t[k].is_object()) in.fail("threads/" + std::to_string(k), "expected an object {cpu, median_ticks, min_ticks}");
      const int64_t cpu = w.sint("cpu");
      if (cpu < -1 || cpu >= (int64_t(1) << 20)) w.fail("cpu", std::to_string(cpu) + ": expected an OS CPU number (or -1)");
      const ThreadFigure f{static_cast<int>(cpu), w.number("median_ticks"), w.number("min_ticks")};
      if (!(f.median_ticks > 0 && f.median_ticks < 1e30))
        w.fail("median_ticks", std::to_string(f.median_ticks) + ": expected ticks per operation > 0");
      if (!(f.min_ticks > 0 && f.min_ticks <= f.median_ticks))
        w.fail("min_ticks", std::to_string(f.min_ticks) + ": expected ticks per operation > 0, at most the median");
      r.threads.push_back(f);
    }
    r.start_spread_ticks = in.number_or("start_spread_ticks", 0);
    if (!(r.start_spread_ticks >= 0 && r.start_spread_ticks < 1e30))
      in.fail("start_spread_ticks", std::to_string(r.start_spread_ticks) + ": expected TSC ticks >= 0");
  }
  if (in.has("samples_ticks")) {
    const json& s = in.j["samples_ticks"];
    if (!s.is_array()) in.fail("samples_ticks", "expected a list of integers");
    for (const auto& v : s) {
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        in.fail("samples_ticks", v.dump() + ": expected a non-negative integer");
      r.sample_ticks.push_back(v.get<uint64_t>());
    }
  }
  return r;
}

/// An entry of an earlier kex (no "reps"): one repetition from its ns statistics.
Repetition legacy_rep(const In& e, double tsc_hz) {
  Repetition r;
  const double t = tsc_hz / 1e9;  // ticks per ns
  if (e.has("stats")) {
    In s = e.obj("stats");
    r.calls_per_sample = static_cast<uint32_t>(s.uint_or("calls_per_sample", 1));
    r.per_call.n = s.uint_or("n", 1);
    r.per_call.median = s.number("median_ns") * t;
    r.per_call.min = s.number_or("min_ns", s.number("median_ns")) * t;
    r.per_call.p10 = s.number_or("p10_ns", s.number("median_ns")) * t;
    r.per_call.p90 = s.number_or("p90_ns", s.number("median_ns")) * t;
    r.per_call.max = s.number_or("max_ns", s.number("median_ns")) * t;
    r.per_call.ci_low = s.number_or("ci95_low_ns", s.number("median_ns")) * t;
    r.per_call.ci_high = s.number_or("ci95_high_ns", s.number("median_ns")) * t;
    r.per_call.ci_rel = s.number_or("ci_rel_halfwidth", 0);
    r.stop_reason = s.str_or("stop_reason", "");
    r.cycles_per_tick = s.number_or("cycles_per_tick", 0);
    r.cycles_method = s.str_or("cycles_method", "");
  } else {
    double ns = e.number("real_time");
    const std::string unit = e.str_or("time_unit", "ns");
    ns *= unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : NAN;
    if (std::isnan(ns)) e.fail("time_unit", "\"" + unit + "\": allowed ns, us, ms, s");
    r.per_call.n = 1;
    r.per_call.min = r.per_call.p10 = r.per_call.median = r.per_call.p90 = r.per_call.max = ns * t;
    r.per_call.ci_low = r.per_call.ci_high = ns * t;
    r.stop_reason = "single pass";
  }
  if (e.has("samples_ticks"))
    for (const auto& v : e.j["samples_ticks"])
      if (v.is_number()) r.sample_ticks.push_back(v.get<uint64_t>());
  return r;
}

}  // namespace

ordered_json spec_params(const KernelSpec& s) {
  ordered_json p;
  p["op"] = to_string(s.op);
  p["regs"] = to_string(s.regs);
  p["unroll"] = s.unroll;
  p["scratch"] = s.scratch;
  p["prefetch"] = to_string(s.prefetch);
  p["pf_distance"] = s.pf_distance;
  p["pf_every"] = s.pf_every;
  p["store"] = to_string(s.store);
  p["direction"] = to_string(s.direction);
  p["align"] = to_string(s.align);
  p["edges"] = to_string(s.edges);
  p["block_bytes"] = s.block.bytes;
  p["block_order"] = to_string(s.block.order);
  p["fill"] = s.fill;
  return p;
}

KernelSpec spec_from_params(const json& params, const std::string& where) {
  In in{params, where};
  KernelSpec s;
  s.op = enum_field<Op>(in, "op", parse_op, "copy, clear, read");
  s.regs = enum_field<RegClass>(in, "regs", parse_reg_class, "a register class of `kex list classes`");
  s.unroll = static_cast<uint32_t>(in.uint("unroll"));
  s.scratch = static_cast<uint32_t>(in.uint("scratch"));
  s.prefetch = enum_field<Prefetch>(in, "prefetch", parse_prefetch, "none, nta, t0, t1, t2, w, load");
  s.pf_distance = static_cast<int32_t>(in.sint("pf_distance"));
  s.pf_every = static_cast<uint32_t>(in.uint("pf_every"));
  s.store = enum_field<Store>(in, "store", parse_store, "temporal, nontemporal");
  s.direction = enum_field<Direction>(in, "direction", parse_direction, "forward, backward");
  s.align = enum_field<Align>(in, "align", parse_align, "aligned, unaligned");
  // Files of a kex before the edges axis have no "edges": their kernels moved bytes.
  if (in.has("edges")) s.edges = enum_field<Edges>(in, "edges", parse_edges, "bytes, overlap");
  s.block.bytes = static_cast<uint32_t>(in.uint_or("block_bytes", 0));
  if (in.has("block_order")) s.block.order = enum_field<Direction>(in, "block_order", parse_direction, "forward, backward");
  s.fill = static_cast<uint8_t>(in.uint_or("fill", 0));
  return s;
}

ordered_json to_json(const PresetFacts& p) {
  ordered_json j;
  j["id"] = p.id;
  j["printed"] = p.printed;
  if (!p.hahn_printed.empty() && p.hahn_printed != p.printed) j["printed_hahn"] = p.hahn_printed;
  j["aliases"] = p.aliases;
  j["family"] = p.family;
  j["origin"] = p.origin;
  j["confidence"] = to_string(p.confidence);
  j["features"] = p.features;
  j["substitutions"] = p.substitutions;
  j["notes"] = p.notes;
  j["region"] = p.region;
  j["alignment"] = p.alignment;
  return j;
}

PresetFacts preset_from_json(const json& j, const std::string& where) {
  In in{j, where};
  PresetFacts p;
  p.id = in.str("id");
  if (!is_preset_id(p.id)) in.fail("id", "'" + p.id + "': not a preset id (FAMILY/NAME, e.g. fastc/faster_copy)");
  p.printed = in.str("printed");
  p.hahn_printed = in.str_or("printed_hahn", p.printed);
  // The printed names label bars and name Asami's graph files: one line of printable ASCII.
  for (const auto& [key, text] : {std::pair{"printed", &p.printed}, std::pair{"printed_hahn", &p.hahn_printed}})
    if (text->size() > 128 || std::any_of(text->begin(), text->end(), [](char c) { return c < 0x20 || c > 0x7e; }))
      in.fail(key, "expected at most 128 printable ASCII characters (the name a seed program printed)");
  p.aliases = in.strings("aliases");
  p.family = in.str_or("family", "");
  p.origin = in.str_or("origin", "");
  p.confidence = enum_field<Confidence>(in, "confidence", parse_confidence, "high, medium, low");
  p.features = in.strings("features");
  p.substitutions = in.strings("substitutions");
  p.notes = in.str_or("notes", "");
  p.region = static_cast<uint32_t>(in.uint_or("region", 4096));
  p.alignment = static_cast<uint32_t>(in.uint_or("alignment", 1));
  return p;
}

ordered_json to_json(const ImplFacts& f) {
  ordered_json j;
  j["source"] = to_string(f.source);
  j["function"] = f.function;
  j["symbol"] = f.symbol;
  j["usable"] = f.usable;
  if (!f.reason.empty()) j["reason"] = f.reason;
  if (!f.path.empty()) j["path"] = f.path;
  if (!f.sha256.empty()) j["sha256"] = f.sha256;
  if (!f.label.empty()) j["label"] = f.label;
  if (f.pieces) j["pieces"] = f.pieces;
  return j;
}

ImplFacts impl_from_json(const json& j, const std::string& where) {
  In in{j, where};
  ImplFacts f;
  f.source = enum_field<ImplSource>(in, "source", parse_impl_source, "glibc");
  f.function = in.str("function");
  if (f.function != "memcpy" && f.function != "memmove" && f.function != "memset")
    in.fail("function", "'" + f.function + "': allowed memcpy, memmove, memset");
  f.symbol = in.str("symbol");
  if (!parse_impl_name(impl_name({ImplSource::glibc, f.symbol, 0})))  // every source's symbol is a C identifier
    in.fail("symbol", "expected a C identifier of at most 128 bytes");
  f.usable = in.boolean_or("usable", true);
  f.reason = in.str_or("reason", "");
  f.path = in.str_or("path", "");
  f.sha256 = in.str_or("sha256", "");
  f.label = in.str_or("label", "");
  f.pieces = static_cast<size_t>(in.uint_or("pieces", 0));
  if ((f.source == ImplSource::glibc) != f.label.empty() || (!f.label.empty() && !is_load_label(f.label)))
    in.fail("label", f.source == ImplSource::glibc ? "a glibc variant has no label"
                                                   : "expected NAME of lib/NAME: 1..64 letters, digits, _ and -");
  // Text shown in tables: one line of printable ASCII.
  for (const auto& [key, text] : {std::pair{"reason", &f.reason}, std::pair{"path", &f.path}})
    if (text->size() > 4096 || std::any_of(text->begin(), text->end(), [](char c) { return c < 0x20 || c > 0x7e; }))
      in.fail(key, "expected at most 4096 printable ASCII characters");
  if (!f.sha256.empty() && (f.sha256.size() != 64 || f.sha256.find_first_not_of("0123456789abcdef") != std::string::npos))
    in.fail("sha256", "expected 64 lower-case hex digits");
  return f;
}

namespace {

/// An entry's "params": the kernel's typed parameters, then every coordinate, then where it ran.
ordered_json entry_params(const Result& r) {
  ordered_json p = r.spec ? spec_params(*r.spec) : ordered_json{{"op", to_string(r.op)}};
  if (r.preset) {
    p["preset"] = r.preset->id;
    p["fsave"] = r.preset->fsave;
  }
  if (r.libc) {
    p["impl"] = "libc";
    p["function"] = r.libc->function;
    if (r.libc->fill) p["fill"] = r.libc->fill;
  }
  if (r.impl) {
    p["impl"] = to_string(r.impl->source);
    p["function"] = r.impl->function;
    if (r.impl->fill) p["fill"] = r.impl->fill;
  }
  const Coords& c = r.point.at;
  p["src_offset"] = c.layout.src_offset;
  p["dst_offset"] = c.layout.dst_offset;
  p["distance"] = c.layout.distance ? ordered_json(*c.layout.distance) : ordered_json();
  p["huge_pages"] = c.layout.huge_pages;
  p["cache"] = to_string(c.cache);
  p["chunk"] = c.chunk;
  p["prefill"] = c.prefill ? ordered_json(*c.prefill) : ordered_json();
  p["consume"] = c.consume;
  if (c.threads != 1) p["threads"] = c.threads;
  p["harness"] = to_string(c.harness);
  if (c.pass != 1) p["pass"] = c.pass;
  if (r.placed) {
    const Placement& pl = *r.placed;
    p["src_offset_used"] = pl.src_offset;
    p["dst_offset_used"] = pl.dst_offset;
    p["src_page_offset"] = pl.src_page_offset;
    p["dst_page_offset"] = pl.dst_page_offset;
    p["relative_offset"] = pl.relative_offset;
    if (pl.rounded_to > 1) p["offsets_rounded_up_to_alignment"] = pl.rounded_to;
  }
  return p;
}

/// A skipped or failed point's fields (Google Benchmark's skipped / error_occurred).
void status_fields(const Status& st, ordered_json& e) {
  if (st.kind == StatusKind::skipped) {
    e["skipped"] = true;
    e["skip_message"] = st.message;
  } else if (st.kind == StatusKind::error) {
    e["error_occurred"] = true;
    e["error_message"] = st.message;
    if (st.signal) e["signal"] = st.signal;
    if (st.fault_offset) e["fault_offset"] = *st.fault_offset;
  }
}

/// What a seed program printed for the point and how it measured.
ordered_json seed_json(const SeedFigures& s) {
  return {{"pages", s.pages},
          {"divisor", s.divisor},
          {"printed_ticks", s.printed_ticks},
          {"mb_per_s", s.mb_per_s},
          {"mhz", s.mhz},
          {"buffer_offset", s.buffer_offset},
          {"buffer_bytes", s.buffer_bytes},
          {"src_minus_dst", s.src_minus_dst},
          {"warm_up_pass", s.warm_up_pass},
          {"sleep_before_s", s.sleep_before_s},
          {"label", s.label},
          {"note", s.note}};
}

/// A measured entry's "stats": the repetitions' statistics in ns, GB/s and per page.
ordered_json stats_json(const EntryFigures& f) {
  const Aggregate& a = f.a;
  ordered_json st;
  st["repetitions"] = a.repetitions;
  st["disturbed_repetitions"] = a.disturbed;
  st["n"] = a.samples;
  st["median_ns"] = a.median_ns;
  st["min_ns"] = a.min_ns;
  st["p10_ns"] = a.p10_ns;
  st["p90_ns"] = a.p90_ns;
  st["max_ns"] = a.max_ns;
  st["ci95_low_ns"] = a.ci_low_ns;
  st["ci95_high_ns"] = a.ci_high_ns;
  st["ci_rel_halfwidth"] = a.ci_rel;
  st["mean_ns"] = a.mean_ns;
  st["stddev_ns"] = a.stddev_ns;
  st["cv"] = a.cv;
  st["mad_ns"] = a.mad_ns;
  st["stop_reason"] = a.stop_reason;
  st["gbps"] = f.gbps;
  st["gbps_best"] = f.gbps_best;
  st["gbps_p10"] = f.gbps_p10;
  st["gbps_p90"] = f.gbps_p90;
  st["bytes_read_written"] = f.bytes_read_written;
  st["gbps_read_written"] = f.gbps_read_written;
  st["bytes_with_write_allocate"] = f.bytes_with_write_allocate;
  st["gbps_with_write_allocate"] = f.gbps_with_write_allocate;
  st["est_cycles"] = f.est_cycles;
  st["bytes_per_cycle"] = f.bytes_per_cycle;
  st["cycles_per_page"] = f.cycles_per_page;
  st["ticks_per_page"] = f.ticks_per_page;
  st["cycles_per_tick"] = a.cycles_per_tick;
  st["cycles_method"] = a.cycles_method;
  if (!f.counters_per_op.empty()) {
    ordered_json per_op = ordered_json::object(), per_byte = ordered_json::object();
    for (const auto& [name, v] : f.counters_per_op) per_op[name] = v;
    for (const auto& [name, v] : f.counters_per_byte) per_byte[name] = v;
    st["counters_per_op"] = per_op;
    st["counters_per_byte"] = per_byte;
  }
  return st;
}

}  // namespace

ordered_json to_json(const Result& r) {
  const std::string name = r.name();
  ordered_json e;
  e["name"] = name;
  e["run_name"] = name;
  e["run_type"] = "iteration";
  e["repetitions"] = std::max<size_t>(1, r.reps.size());
  e["repetition_index"] = 0;
  e["threads"] = r.point.at.threads;  // Google Benchmark's field: workers of the operation
  e["kernel"] = r.point.kernel;
  e["kind"] = to_string(r.kind);
  e["size"] = r.point.at.size;
  e["params"] = entry_params(r);
  if (r.preset) e["preset"] = to_json(*r.preset);
  if (r.impl) e["implementation"] = to_json(*r.impl);
  if (r.code) e["code"] = {{"bytes", r.code->bytes}, {"fnv1a", hex64(r.code->fnv1a)}};
  status_fields(r.status, e);
  if (r.seed) e["seed"] = seed_json(*r.seed);
  if (!r.ok()) return e;

  const EntryFigures f = entry_figures(r);
  e["iterations"] = f.iterations;
  e["real_time"] = f.a.median_ns;
  e["cpu_time"] = f.a.median_ns;
  e["time_unit"] = "ns";
  e["bytes_per_second"] = f.gbps * 1e9;
  e["stats"] = stats_json(f);
  ordered_json reps = ordered_json::array();
  for (const auto& rep : r.reps) reps.push_back(to_json(rep));
  e["reps"] = reps;
  return e;
}

namespace {

/// Where a point's buffers really were (params' *_page_offset keys), `layout` as named.
Placement placement_from(const In& params, const Layout& layout) {
  Placement pl;
  pl.src_offset = params.has("src_offset_used") ? params.sint("src_offset_used") : int64_t(layout.src_offset);
  pl.dst_offset = params.has("dst_offset_used") ? params.sint("dst_offset_used") : int64_t(layout.dst_offset);
  pl.src_page_offset = static_cast<uint32_t>(params.uint("src_page_offset"));
  pl.dst_page_offset = static_cast<uint32_t>(params.uint("dst_page_offset"));
  pl.relative_offset = static_cast<uint32_t>(params.uint("relative_offset"));
  pl.rounded_to = static_cast<uint32_t>(params.uint_or("offsets_rounded_up_to_alignment", 1));
  return pl;
}

/// A seed harness's own figures of an entry (its "seed" object).
SeedFigures seed_figures_from(In s) {
  SeedFigures f;
  f.pages = s.uint_or("pages", 0);
  f.divisor = s.uint_or("divisor", 0);
  f.printed_ticks = s.has("printed_ticks") ? s.sint("printed_ticks") : 0;
  f.mb_per_s = s.number_or("mb_per_s", 0);
  f.mhz = s.number_or("mhz", 0);
  f.buffer_offset = s.uint_or("buffer_offset", 0);
  f.buffer_bytes = s.uint_or("buffer_bytes", 0);
  f.src_minus_dst = s.uint_or("src_minus_dst", 0);
  f.warm_up_pass = s.boolean_or("warm_up_pass", false);
  f.sleep_before_s = s.number_or("sleep_before_s", 0);
  f.label = s.str_or("label", "");
  f.note = s.str_or("note", "");
  return f;
}

}  // namespace

namespace {

/// The entry's kind and op (params.op, or the spec's when params name one), its libc
/// facts and its outside implementation's record, into `r` (whose point is read).
void kind_from(const In& e, const In& params, Result& r) {
  r.kind = e.has("kind") ? enum_field<KernelKind>(e, "kind", parse_kernel_kind,
                                                  "generated, baseline, preset, implementation")
                         : KernelKind::generated;
  // Names reach plots, tables and file names: they must be kernel names of their kind.
  if (const auto bad = kernel_name_error(r.kind, r.point.kernel)) e.fail("name", "'" + r.point.kernel + "': " + *bad);
  if (params.has("regs")) {
    r.spec = spec_from_params(params.j, params.where);
    r.op = r.spec->op;
  } else if (params.has("op")) {
    r.op = enum_field<Op>(params, "op", parse_op, "copy, clear, read");
  } else {
    e.fail("params", "missing: an entry needs params.op");
  }
  if (params.str_or("impl", "") == "libc") {
    const uint64_t fill = params.uint_or("fill", 0);
    if (fill > 255) params.fail("fill", std::to_string(fill) + ": expected a byte, 0..255");
    r.libc = LibcFacts{params.str_or("function", r.point.kernel), uint8_t(fill)};
  }
  if (r.kind != KernelKind::implementation) return;
  // A name read from a file is data: nothing is looked up or loaded from it.
  r.impl = impl_from_json(e.at("implementation"), e.where + "/implementation");
  const auto n = parse_impl_name(r.point.kernel);
  const std::string& named = r.impl->label.empty() ? r.impl->symbol : r.impl->label;
  if (n->source != r.impl->source || n->symbol != named)
    e.fail("implementation", "names " + std::string(to_string(r.impl->source)) + "/" + named +
                                 ", not the entry's kernel " + r.point.kernel);
  r.impl->fill = n->fill;
}

/// The code's size and hash ("code": {"bytes", "fnv1a"}).
CodeInfo code_from(const In& c) {
  const std::string h = c.str("fnv1a");
  if (h.empty() || h.size() > 16 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    c.fail("fnv1a", "\"" + h + "\": expected 1 to 16 hex digits");
  return CodeInfo{c.uint("bytes"), std::stoull(h, nullptr, 16)};
}

/// Skipped, failed (with its message, signal and fault offset) or ok.
Status status_from(const In& e) {
  Status st;
  if (e.boolean_or("skipped", false)) {
    st.kind = StatusKind::skipped;
    st.message = e.str_or("skip_message", "");
  } else if (e.boolean_or("error_occurred", false)) {
    st.kind = StatusKind::error;
    st.message = e.str_or("error_message", "");
    st.signal = static_cast<int>(e.uint_or("signal", 0));
    if (e.has("fault_offset")) st.fault_offset = e.sint("fault_offset");
  }
  return st;
}

/// The repetitions ("reps"; a file of an earlier kex: one from its stats), into `r`.
void reps_from(const In& e, double tsc_hz, Result& r) {
  if (!e.has("reps")) {
    if (e.has("stats") || e.has("real_time")) r.reps.push_back(legacy_rep(e, tsc_hz));
    return;
  }
  const json& reps = e.at("reps");
  if (!reps.is_array()) e.fail("reps", "expected a list of repetitions");
  for (size_t i = 0; i < reps.size(); ++i) {
    if (!reps[i].is_object()) e.fail("reps/" + std::to_string(i), "expected an object");
    r.reps.push_back(rep_from(In{reps[i], e.where + "/reps/" + std::to_string(i)}));
    // A repetition's workers are the point's: threads:N has N of them (or none recorded).
    const size_t workers = r.reps.back().threads.size();
    if (workers && workers != r.point.at.threads)
      e.fail("reps/" + std::to_string(i) + "/threads",
             std::to_string(workers) + " workers for a point of " + std::to_string(r.point.at.threads) +
                 (r.point.at.threads == 1 ? " thread" : " threads") + " (" + r.name() + ")");
  }
}

}  // namespace

Result result_from_json(const json& entry, double tsc_hz, const std::string& where) {
  if (!entry.is_object()) throw InputError(where, "expected an object (a benchmark entry)");
  In e{entry, where};
  Result r;
  const std::string name = e.str("name");
  try {
    r.point = parse_point_name(name);
  } catch (const std::invalid_argument& x) {
    e.fail("name", x.what());
  }
  r.tsc_hz = tsc_hz;
  In params = e.has("params") ? e.obj("params") : In{json::object(), where + "/params"};
  kind_from(e, params, r);
  if (e.has("preset")) {
    r.preset = preset_from_json(e.at("preset"), where + "/preset");
    r.preset->fsave = params.boolean_or("fsave", true);
  }
  if (params.has("src_page_offset")) r.placed = placement_from(params, r.point.at.layout);
  if (e.has("code")) r.code = code_from(e.obj("code"));
  r.status = status_from(e);
  if (e.has("seed")) r.seed = seed_figures_from(e.obj("seed"));
  if (r.status.kind == StatusKind::ok) reps_from(e, tsc_hz, r);
  return r;
}

Repetition repetition_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected an object (a repetition)");
  return rep_from(In{j, where});
}

}  // namespace kex
