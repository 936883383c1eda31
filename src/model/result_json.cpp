#include "src/model/result_json.hpp"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdio>

#include "src/core/error.hpp"
#include "src/model/field_records.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/paired.hpp"
#include "src/model/result_fields.hpp"
#include "src/core/stats.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

using namespace result_fields;

/// A record read by its field table from an entry of any kex (Keys::tolerant).
template <class R, class Map>
R read_back(const json& j, const std::string& where, Map map, R r = R{}) {
  return record_from<R>(j, where, Keys::tolerant, map, std::move(r));
}

/// Each worker's figures: ticks per operation > 0, the fastest at most the median.
void check_threads(const Repetition& r, const std::string& where) {
  for (size_t k = 0; k < r.threads.size(); ++k) {
    const ThreadFigure& f = r.threads[k];
    const std::string at = where + "/threads/" + std::to_string(k);
    if (!(f.median_ticks > 0 && f.median_ticks < 1e30))
      throw InputError(at + "/median_ticks", std::to_string(f.median_ticks) + ": expected ticks per operation > 0");
    if (!(f.min_ticks > 0 && f.min_ticks <= f.median_ticks))
      throw InputError(at + "/min_ticks",
                       std::to_string(f.min_ticks) + ": expected ticks per operation > 0, at most the median");
  }
  if (!(r.start_spread_ticks >= 0 && r.start_spread_ticks < 1e30))
    throw InputError(where + "/start_spread_ticks", std::to_string(r.start_spread_ticks) + ": expected TSC ticks >= 0");
}

Repetition rep_from(const json& j, const std::string& where) {
  Repetition r = read_back<Repetition>(j, where, [](auto& io, auto& x) { map_repetition(io, x); });
  check_threads(r, where);
  return r;
}

/// The statistics of an entry of an earlier kex (its "stats", in ns).
struct LegacyStats {
  uint64_t calls_per_sample = 1, n = 1;
  double median_ns = 0;
  std::optional<double> min_ns, p10_ns, p90_ns, max_ns, ci_low_ns, ci_high_ns;
  double ci_rel = 0, cycles_per_tick = 0;
  std::string stop_reason, cycles_method;
};

template <class IO, class S>
void map_legacy_stats(IO& io, S& s) {
  io.required({"median_ns"});
  io.whole("calls_per_sample", s.calls_per_sample, uint64_t(0), uint64_t(UINT32_MAX));
  io.whole("n", s.n, uint64_t(0), UINT64_MAX);
  io.real("median_ns", s.median_ns, -kInf, kInf);
  for (auto [key, v] : {std::pair{"min_ns", &s.min_ns}, std::pair{"p10_ns", &s.p10_ns}, std::pair{"p90_ns", &s.p90_ns},
                        std::pair{"max_ns", &s.max_ns}, std::pair{"ci95_low_ns", &s.ci_low_ns},
                        std::pair{"ci95_high_ns", &s.ci_high_ns}})
    if (io.has(key, *v)) io.real(key, **v, -kInf, kInf);
  io.real("ci_rel_halfwidth", s.ci_rel, -kInf, kInf);
  io.text("stop_reason", s.stop_reason, kKept);
  io.real("cycles_per_tick", s.cycles_per_tick, -kInf, kInf);
  io.text("cycles_method", s.cycles_method, kKept);
}

/// An entry's time in Google Benchmark's form (real_time in time_unit).
struct LegacyTime {
  double real_time = 0;
  std::string time_unit = "ns";
};

/// An entry of an earlier kex (no "reps"): one repetition from its ns statistics, or
/// from Google Benchmark's real_time.
Repetition legacy_rep(const json& e, const std::string& where, double tsc_hz) {
  Repetition r;
  const double t = tsc_hz / 1e9;  // ticks per ns
  if (e.contains("stats") && !e["stats"].is_null()) {
    const auto s = read_back<LegacyStats>(e["stats"], where + "/stats", [](auto& io, auto& x) { map_legacy_stats(io, x); });
    const double m = s.median_ns;
    r.calls_per_sample = static_cast<uint32_t>(s.calls_per_sample);
    r.per_call = {s.n, s.min_ns.value_or(m) * t, s.p10_ns.value_or(m) * t, m * t, s.p90_ns.value_or(m) * t,
                  s.max_ns.value_or(m) * t, s.ci_low_ns.value_or(m) * t, s.ci_high_ns.value_or(m) * t, s.ci_rel};
    r.stop_reason = s.stop_reason;
    r.cycles_per_tick = s.cycles_per_tick;
    r.cycles_method = s.cycles_method;
  } else {
    const auto g = read_back<LegacyTime>(e, where, [](auto& io, auto& x) {
      io.required({"real_time"});
      io.real("real_time", x.real_time, -kInf, kInf);
      io.text("time_unit", x.time_unit, kKept);
    });
    const std::string& u = g.time_unit;
    const double ns = g.real_time * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : NAN);
    if (std::isnan(ns)) throw InputError(where + "/time_unit", "\"" + u + "\": allowed ns, us, ms, s");
    r.per_call.n = 1;
    r.per_call.min = r.per_call.p10 = r.per_call.median = r.per_call.p90 = r.per_call.max = ns * t;
    r.per_call.ci_low = r.per_call.ci_high = ns * t;
    r.stop_reason = "single pass";
  }
  if (e.contains("samples_ticks") && e["samples_ticks"].is_array())
    for (const auto& v : e["samples_ticks"])
      if (v.is_number()) r.sample_ticks.push_back(v.get<uint64_t>());
  return r;
}

/// An implementation's facts, their label checked against their source's name form.
ImplFacts impl_from(const json& j, const std::string& where) {
  const ImplFacts f = read_back<ImplFacts>(j, where, [](auto& io, auto& x) { map_impl(io, x); });
  const bool labelled = source_row(f.source).name == NameForm::label;
  if (labelled == f.label.empty() || (!f.label.empty() && !is_load_label(f.label)))
    throw InputError(where + "/label", labelled ? "expected NAME of lib/NAME: 1..64 letters, digits, _ and -"
                                                : "a " + std::string(to_string(f.source)) + " implementation has no label");
  return f;
}

/// A libc baseline's facts: params.function, or an older file's kernel name ("memset/fill:0xaa").
LibcFacts libc_from(const ParamFacts& f, const std::string& kernel, const std::string& at) {
  const auto base = parse_baseline_name(kernel);
  const std::string name = f.function.empty() && base ? base->base : f.function;
  const auto function = parse_function(name);
  if (!function) throw InputError(at + "/function", "'" + name + "': allowed: memcpy, memset");
  return LibcFacts{*function, f.fill};
}

}  // namespace

namespace result_fields {

bool printable_ascii_128(const std::string& s) {
  return s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}
bool printable_ascii_4096(const std::string& s) {
  return s.size() <= 4096 && std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}
// Every source's symbol is a C identifier: the grammar of glibc's names says which.
bool is_c_identifier(const std::string& s) { return parse_impl_name(impl_name({Source::glibc, s, 0})).has_value(); }
bool is_sha256_or_empty(const std::string& s) {
  return s.empty() || (s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos);
}
bool is_preset_id_text(const std::string& s) { return is_preset_id(s); }

std::optional<uint64_t> parse_hex64(std::string_view s) {
  if (s.empty() || s.size() > 16 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return std::nullopt;
  return std::stoull(std::string(s), nullptr, 16);
}

std::string hex64(uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace result_fields

ordered_json to_json(const Repetition& r) {
  return record_json(r, [](auto& io, auto& x) { map_repetition(io, x); });
}

ordered_json spec_params(const KernelSpec& s) {
  return record_json(s, [](auto& io, auto& x) { map_spec(io, x); });
}

ordered_json to_json(const PresetFacts& p) {
  return record_json(p, [](auto& io, auto& x) { map_preset(io, x); });
}

KernelSpec spec_from_params(const json& params, const std::string& where) {
  return read_back<KernelSpec>(params, where, [](auto& io, auto& x) { map_spec(io, x); });
}

namespace {

/// `from`'s keys after `to`'s, in order (records that share one JSON object).
void append(ordered_json& to, const ordered_json& from) {
  for (auto it = from.begin(); it != from.end(); ++it) to[it.key()] = it.value();
}

/// An entry's "params": the kernel's typed parameters (or its op), what else names the
/// kernel, every coordinate but the size, then where it ran.
ordered_json entry_params(const Result& r) {
  ParamFacts f;
  if (!r.spec) f.op = r.op;
  if (r.preset) {
    f.preset = r.preset->id;
    f.fsave = r.preset->fsave;
  }
  if (r.libc) {
    f.impl = "libc";
    f.function = to_string(r.libc->function);
    f.fill = r.libc->fill;
  }
  if (r.impl) {
    f.impl = to_string(r.impl->source);
    f.function = to_string(r.impl->function);
    f.fill = r.impl->fill;
  }
  ordered_json p = r.spec ? spec_params(*r.spec) : ordered_json::object();
  append(p, record_json(f, [](auto& io, auto& x) { map_param_facts(io, x); }));
  append(p, record_json(r.point.at, [](auto& io, auto& x) { map_coords(io, x); }));
  if (r.placed) append(p, record_json(*r.placed, [](auto& io, auto& x) { map_placement(io, x); }));
  return p;
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
  if (r.impl) e["implementation"] = record_json(*r.impl, [](auto& io, auto& x) { map_impl(io, x); });
  if (r.code) e["code"] = record_json(*r.code, [](auto& io, auto& x) { map_code(io, x); });
  append(e, record_json(r.status, [](auto& io, auto& x) { map_status(io, x); }));
  if (r.seed) e["seed"] = record_json(*r.seed, [](auto& io, auto& x) { map_seed(io, x); });
  if (!r.ok()) return e;

  const EntryFigures f = entry_figures(r);
  e["iterations"] = f.iterations;
  e["real_time"] = f.a.median_ns;
  e["cpu_time"] = f.a.median_ns;
  e["time_unit"] = "ns";
  e["bytes_per_second"] = f.gbps * 1e9;
  e["stats"] = record_json(f, [](auto& io, auto& x) { map_entry_stats(io, x); });
  ordered_json reps = ordered_json::array();
  for (const auto& rep : r.reps) reps.push_back(to_json(rep));
  e["reps"] = reps;
  return e;
}

namespace {

/// A field an entry may have: its value, or nullptr when it lacks it (or has null).
const json* field(const json& j, const char* key) {
  return j.contains(key) && !j[key].is_null() ? &j[key] : nullptr;
}

/// The entry's kind, checked against its name.
KernelKind kind_of(const json& entry, const std::string& where, const Point& point) {
  struct Kind {
    KernelKind kind = KernelKind::generated;
  };
  const auto k = read_back<Kind>(entry, where, [](auto& io, auto& x) {
    io.choice("kind", x.kind, parse_kernel_kind, [](KernelKind v) { return to_string(v); },
              "generated, baseline, preset, implementation, dispatch");
  });
  // Names reach plots, tables and file names: they must be kernel names of their kind.
  if (const auto bad = kernel_name_error(k.kind, point.kernel))
    throw InputError(where + "/name", "'" + point.kernel + "': " + *bad);
  return k.kind;
}

/// The entry's spec or op, libc facts and outside implementation's record, into `r`
/// (whose point and kind are read).
void kernel_from(const json& entry, const json& params, const std::string& where, Result& r) {
  const std::string at = where + "/params";
  const auto f = read_back<ParamFacts>(params, at, [](auto& io, auto& x) { map_param_facts(io, x); });
  if (field(params, "regs")) {
    r.spec = spec_from_params(params, at);
    r.op = r.spec->op;
  } else if (f.op) {
    r.op = *f.op;
  } else {
    throw InputError(where + "/params", "missing: an entry needs params.op");
  }
  if (f.impl == "libc") r.libc = libc_from(f, r.point.kernel, at);
  if (r.kind != KernelKind::implementation) return;
  // A name read from a file is data: nothing is looked up or loaded from it.
  const json* impl = field(entry, "implementation");
  if (!impl) throw InputError(where + "/implementation", "missing");
  r.impl = impl_from(*impl, where + "/implementation");
  const auto n = parse_impl_name(r.point.kernel);
  const std::string& named = r.impl->label.empty() ? r.impl->symbol : r.impl->label;
  if (n->source != r.impl->source || n->symbol != named)
    throw InputError(where + "/implementation", "names " + std::string(to_string(r.impl->source)) + "/" + named +
                                                    ", not the entry's kernel " + r.point.kernel);
  r.impl->fill = n->fill;
}

/// The repetitions ("reps"; a file of an earlier kex: one from its stats), into `r`.
void reps_from(const json& e, const std::string& where, double tsc_hz, Result& r) {
  const json* reps = field(e, "reps");
  if (!reps) {
    if (field(e, "stats") || field(e, "real_time")) r.reps.push_back(legacy_rep(e, where, tsc_hz));
    return;
  }
  if (!reps->is_array()) throw InputError(where + "/reps", "expected a list of repetitions");
  for (size_t i = 0; i < reps->size(); ++i) {
    const std::string at = where + "/reps/" + std::to_string(i);
    r.reps.push_back(rep_from((*reps)[i], at));
    // A repetition's workers are the point's: threads:N has N of them (or none recorded).
    const size_t workers = r.reps.back().threads.size();
    if (workers && workers != r.point.at.threads)
      throw InputError(at + "/threads", std::to_string(workers) + " workers for a point of " +
                                            std::to_string(r.point.at.threads) +
                                            (r.point.at.threads == 1 ? " thread" : " threads") + " (" + r.name() + ")");
  }
}

/// The entry's name, parsed into its point.
Point point_of(const json& entry, const std::string& where) {
  struct Named {
    std::string name;
  };
  const auto n = read_back<Named>(entry, where, [](auto& io, auto& x) {
    io.required({"name"});
    io.text("name", x.name, kKept);
  });
  try {
    return parse_point_name(n.name);
  } catch (const std::invalid_argument& x) {
    throw InputError(where + "/name", x.what());
  }
}

}  // namespace

Result result_from_json(const json& entry, double tsc_hz, const std::string& where) {
  if (!entry.is_object()) throw InputError(where, "expected an object (a benchmark entry)");
  Result r;
  r.point = point_of(entry, where);
  r.tsc_hz = tsc_hz;
  const json* p = field(entry, "params");
  if (p && !p->is_object()) throw InputError(where + "/params", "expected an object");
  const json& params = p ? *p : json::object();
  r.kind = kind_of(entry, where, r.point);
  kernel_from(entry, params, where, r);
  const auto sub = [&](const char* key) { return field(entry, key); };
  if (const json* j = sub("preset")) {
    r.preset = read_back<PresetFacts>(*j, where + "/preset", [](auto& io, auto& x) { map_preset(io, x); });
    r.preset->fsave = read_back<ParamFacts>(params, where + "/params", [](auto& io, auto& x) { map_param_facts(io, x); }).fsave;
  }
  if (field(params, "src_page_offset")) {
    Placement from_layout;
    from_layout.src_offset = int64_t(r.point.at.layout.src_offset);
    from_layout.dst_offset = int64_t(r.point.at.layout.dst_offset);
    r.placed = read_back<Placement>(params, where + "/params", [](auto& io, auto& x) { map_placement(io, x); },
                                    from_layout);
  }
  if (const json* j = sub("code")) r.code = read_back<CodeInfo>(*j, where + "/code", [](auto& io, auto& x) { map_code(io, x); });
  r.status = read_back<Status>(entry, where, [](auto& io, auto& x) { map_status(io, x); });
  if (const json* j = sub("seed")) r.seed = read_back<SeedFigures>(*j, where + "/seed", [](auto& io, auto& x) { map_seed(io, x); });
  if (r.status.kind == StatusKind::ok) reps_from(entry, where, tsc_hz, r);
  return r;
}

Repetition repetition_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected an object (a repetition)");
  return rep_from(j, where);
}

}  // namespace kex
