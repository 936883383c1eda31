#include "src/model/tune_json.hpp"

#include <limits>
#include <optional>
#include <type_traits>

#include "src/core/error.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/stream_mix.hpp"
#include "src/core/enum_words.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr double kTuneInf = std::numeric_limits<double>::infinity();
constexpr size_t kTuneMaxItems = size_t(1) << 24;
/// A kernel name: kex's own names are short and printable.
const TextRule kKernelName{1024};
/// A stream's distribution (a name or a path, as given) and footprint: printed escaped.
const TextRule kStreamText{4096, nullptr, "", true};

template <class IO, class R>
void map_ratio(IO& io, R& r) {
  io.real("ratio", r.ratio, 0, kTuneInf);
  io.real("low", r.low, 0, kTuneInf);
  io.real("high", r.high, 0, kTuneInf);
  io.whole("rounds", r.rounds, size_t(0), kTuneMaxItems);
}

/// A row of the table; the last one (every larger size) has no max_bytes.
template <class IO, class E>
void map_row(IO& io, E& e) {
  std::optional<uint64_t> max;
  if (e.max_bytes != kDispatchRest) max = e.max_bytes;
  if (io.has("max_bytes", max)) io.whole("max_bytes", *max, uint64_t(1), kMaxDispatchBound);
  io.text("kernel", e.kernel, kKernelName);
  if constexpr (!std::is_const_v<E>) e.max_bytes = max.value_or(kDispatchRest);
}

template <class IO, class S>
void map_switch(IO& io, S& s) {
  io.text("from", s.from, kKernelName);
  io.text("to", s.to, kKernelName);
  io.whole("low", s.low, uint64_t(0), UINT64_MAX);
  io.whole("high", s.high, uint64_t(0), UINT64_MAX);
  io.whole("boundary", s.boundary, uint64_t(0), UINT64_MAX);
}

template <class IO, class V>
void map_verdict(IO& io, V& v) {
  io.whole("size", v.size, uint64_t(1), UINT64_MAX);
  io.whole("rounds", v.rounds, size_t(0), kTuneMaxItems);
  io.texts("ranked", v.ranked, kTuneMaxItems, kKernelName);
  io.texts("ties", v.ties, kTuneMaxItems, kKernelName);
  io.text("dispatched", v.dispatched, kKernelName);
  io.object("vs_leader", [&](auto& r) { map_ratio(r, v.vs_leader); });
  io.object("vs_libc", [&](auto& r) { map_ratio(r, v.vs_libc); });
  io.object("vs_rep", [&](auto& r) { map_ratio(r, v.vs_rep); });
  if (io.has("glibc", !v.glibc.empty())) {  // --glibc's (a tune file of kex before it has none)
    io.text("glibc", v.glibc, kKernelName);
    io.object("vs_glibc", [&](auto& r) { map_ratio(r, v.vs_glibc); });
  }
}

/// One stream of a mix: its weight, the choice's time per call and ratios there.
template <class IO, class S>
void map_stream_verdict(IO& io, S& s) {
  io.text("stream", s.stream, kStreamText);
  io.real("weight", s.weight, 0, 1);
  io.real("ns_per_call", s.ns_per_call, 0, kTuneInf);
  io.text("leader", s.leader, kKernelName);
  io.object("vs_leader", [&](auto& r) { map_ratio(r, s.vs_leader); });
  io.object("vs_libc", [&](auto& r) { map_ratio(r, s.vs_libc); });
  io.object("vs_rep", [&](auto& r) { map_ratio(r, s.vs_rep); });
  if (io.has("glibc", !s.glibc.empty())) {
    io.text("glibc", s.glibc, kKernelName);
    io.object("vs_glibc", [&](auto& r) { map_ratio(r, s.vs_glibc); });
  }
}

template <class IO, class S>
void map_stage(IO& io, S& s) {
  io.whole("stage", s.stage, 1u, UINT32_MAX);
  io.whole("rounds", s.rounds, 0u, UINT32_MAX);
  io.whole("sizes", s.sizes, size_t(0), kTuneMaxItems);
  io.whole("candidates", s.candidates, size_t(0), kTuneMaxItems);
  io.real("seconds", s.seconds, 0, kTuneInf);
  io.flag("refine", s.refine);
  io.flag("compose", s.compose);
}

/// A drop: slower than the leader (leader, vs_leader), or not measured (why).
template <class IO, class D>
void map_drop(IO& io, D& d) {
  io.whole("size", d.size, uint64_t(1), UINT64_MAX);
  io.text("kernel", d.kernel, kKernelName);
  io.whole("stage", d.stage, 0u, UINT32_MAX);
  if (io.has("why", !d.why.empty())) io.text("why", d.why);
  if (io.has("leader", d.why.empty())) {
    io.text("leader", d.leader, kKernelName);
    io.object("vs_leader", [&](auto& r) { map_ratio(r, d.vs_leader); });
  }
}

bool known_tunable(const std::string& name) {
  return name == "glibc.cpu.x86_non_temporal_threshold" || name == "glibc.cpu.x86_rep_movsb_threshold" ||
         name == "glibc.cpu.x86_rep_stosb_threshold";
}
const TextRule kTunableName{64, known_tunable,
                            "glibc.cpu.x86_non_temporal_threshold, glibc.cpu.x86_rep_movsb_threshold, "
                            "glibc.cpu.x86_rep_stosb_threshold"};

/// A suggested tunable: its value and the sizes of the switch it comes from.
template <class IO, class T>
void map_tunable(IO& io, T& t) {
  io.text("name", t.name, kTunableName);
  io.whole("value", t.value, uint64_t(0), UINT64_MAX);
  io.choice("op", t.op, parse_libc_op, [](Op o) { return to_string(o); }, enum_word_list(kLibcOps).c_str());
  io.whole("from", t.from, uint64_t(1), UINT64_MAX);
  io.whole("to", t.to, uint64_t(1), UINT64_MAX);
  if (io.has("below", t.below)) io.whole("below", *t.below, uint64_t(1), UINT64_MAX);
  if (io.has("above", t.above)) io.whole("above", *t.above, uint64_t(1), UINT64_MAX);
  if (io.has("refines", t.refines)) io.whole("refines", *t.refines, uint64_t(0), UINT64_MAX);
}

/// What libc measured with a tunable: the children's environment and the change per size.
template <class IO, class V>
void map_measured(IO& io, V& v) {
  io.text("tunables", v.tunables);
  io.text("default_saw", v.default_saw);
  io.text("tuned_saw", v.tuned_saw);
  io.whole("cpu", v.cpu, -1, 1 << 20);
  io.whole("rounds", v.rounds, 0u, 1000000u);
  io.list("sizes", v.sizes, 0, kTuneMaxItems, [](auto& r, auto& c) {
    r.whole("size", c.size, uint64_t(1), UINT64_MAX);
    r.object("change", [&](auto& x) { map_ratio(x, c.change); });
  });
}

template <class IO, class V>
void map_validation(IO& io, V& v) {
  io.whole("rounds", v.rounds, 0u, 1000000u);
  io.real("budget_ms", v.budget_ms, 0, kTuneInf);
  io.real("margin", v.margin, 0, 1);
  io.real("seconds", v.seconds, 0, kTuneInf);
  if (io.has("not_measured", !v.not_measured.empty())) io.text("not_measured", v.not_measured);
  io.list("checks", v.checks, 0, 16, [](auto& r, auto& c) {
    r.object("tunable", [&](auto& x) { map_tunable(x, c.tunable); });
    r.object("measured", [&](auto& x) { map_measured(x, c.measured); });
  });
}

template <class IO, class T>
void map_tune(IO& io, T& t) {
  io.choice("op", t.op, parse_libc_op, [](Op o) { return to_string(o); }, enum_word_list(kLibcOps).c_str());
  if (io.has("stream", !t.stream.empty())) {
    io.text("stream", t.stream, kStreamText);
    io.text("footprint", t.footprint, kStreamText);
  }
  if (io.has("streams", !t.streams.empty()))
    io.list("streams", t.streams, 2, kMaxMixStreams, [](auto& r, auto& s) { map_stream_verdict(r, s); });
  io.real("budget_s", t.budget_s, 0, kTuneInf);
  io.real("used_s", t.used_s, 0, kTuneInf);
  io.real("margin", t.margin, 0, 1);
  io.texts("kept", t.kept, 16, kKernelName);
  io.list("dispatch", t.dispatch.entries, 0, kTuneMaxItems, [](auto& r, auto& e) { map_row(r, e); });
  io.list("switches", t.switches, 0, kTuneMaxItems, [](auto& r, auto& s) { map_switch(r, s); });
  io.list("verdicts", t.verdicts, 0, kTuneMaxItems, [](auto& r, auto& v) { map_verdict(r, v); });
  io.list("stages", t.stages, 0, kTuneMaxItems, [](auto& r, auto& s) { map_stage(r, s); });
  io.list("drops", t.drops, 0, kTuneMaxItems, [](auto& r, auto& d) { map_drop(r, d); });
  if (io.has("validation", t.validation)) io.object("validation", [&](auto& r) { map_validation(r, *t.validation); });
}

/// Rows ascending, only the last one for every larger size; each row's kernel one name
/// of what a tune races: a spec name that parses or a baseline (memcpy, rep_movsb, ...), or
/// (a stream's tune, one row) a dispatch kernel. Another name with a ',' would be read by
/// parse_dispatch as two rows.
void check_dispatch(const DispatchTable& t, const std::string& where) {
  for (size_t i = 0; i < t.entries.size(); ++i) {
    const std::string& k = t.entries[i].kernel;
    const bool one_dispatch = t.entries.size() == 1 && !kernel_name_error(KernelKind::dispatch, k);
    if (kernel_name_error(KernelKind::generated, k) && kernel_name_error(KernelKind::baseline, k) && !one_dispatch)
      throw InputError(where + "/dispatch/" + std::to_string(i) + "/kernel",
                       "'" + k + "': not one kernel name: a kernel spec name or a baseline (memcpy, memset, "
                                 "rep_movsb, rep_stosb), what kex tune races, or a dispatch kernel as the only row");
    const std::string at = where + "/dispatch/" + std::to_string(i) + "/max_bytes";
    const bool last = i + 1 == t.entries.size();
    if (last != (t.entries[i].max_bytes == kDispatchRest))
      throw InputError(at, last ? "present on the last row: it takes every larger size, without max_bytes"
                                : "missing: only the last row takes every larger size");
    if (i > 0 && !last && t.entries[i].max_bytes <= t.entries[i - 1].max_bytes)
      throw InputError(at, std::to_string(t.entries[i].max_bytes) + ": not above the row before; rows ascend");
  }
}

}  // namespace

ordered_json to_json(const TuneRecord& t) {
  ordered_json j;
  OrderedFieldWriter w(j);
  map_tune(w, t);
  return j;
}

TuneRecord tune_section_from_json(const json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("tune"))
    throw InputError(path + ": no tune section: a results file from `kex tune` is needed");
  return tune_from_json(doc.at("tune"), path + ": /tune");
}

TuneRecord tune_from_json(const json& j, const std::string& where) {
  TuneRecord t;
  FieldReader r(j, where);
  map_tune(r, t);
  r.finish();
  check_dispatch(t.dispatch, where);
  return t;
}

}  // namespace kex
