// The explain section's one field table (src/model/explain_section.hpp), for the
// model's reader and writer only (src/model/context_json.cpp).
#pragma once
#include <cstdint>
#include <limits>

#include "src/model/explain_section.hpp"
#include "src/model/json_fields.hpp"

namespace kex::explain_fields {

/// Names and reasons as kex wrote them (every writer escapes them for its medium).
inline const TextRule kExplainText{4096, nullptr, "", false};
inline constexpr size_t kMaxExplainItems = 1 << 20;
inline constexpr double kMaxRatio = 1e12;

template <class IO, class E>
void map_effect(IO& io, E& e) {
  io.text("neighbour", e.neighbour, kExplainText);
  io.text("coordinate", e.coordinate, kExplainText);
  io.text("from", e.from, kExplainText);
  io.text("to", e.to, kExplainText);
  if (io.has("refused", !e.refused.empty())) io.text("refused", e.refused, kExplainText);
  io.real("ratio", e.ratio, 0, kMaxRatio);
  io.real("low", e.low, 0, kMaxRatio);
  io.real("high", e.high, 0, kMaxRatio);
  io.whole("rounds", e.rounds, uint64_t(0), uint64_t(UINT32_MAX));
}

/// llvm-mca's prediction and the L1-resident measurement of one kernel (ExplainCore).
template <class IO, class C>
void map_core(IO& io, C& c) {
  io.text("kernel", c.kernel, kExplainText);
  if (io.has("mcpu", !c.mcpu.empty())) io.text("mcpu", c.mcpu, kExplainText);
  if (io.has("note", !c.note.empty())) io.text("note", c.note, kExplainText);
  if (io.has("missing", !c.missing.empty())) io.text("missing", c.missing, kExplainText);
  io.real("predicted_cycles", c.predicted_cycles, 0, kMaxRatio);
  io.real("block_rthroughput", c.block_rthroughput, 0, kMaxRatio);
  io.whole("bytes_per_iteration", c.bytes_per_iteration, uint64_t(0), UINT64_MAX);
  io.whole("measured_size", c.measured_size, uint64_t(0), UINT64_MAX);
  io.real("measured_cycles", c.measured_cycles, 0, kMaxRatio);
  if (io.has("cycles_method", !c.cycles_method.empty())) io.text("cycles_method", c.cycles_method, kExplainText);
}

template <class IO, class S>
void map_section(IO& io, S& s) {
  io.real("resolution", s.resolution, 0, 0.5);
  io.whole("rounds", s.rounds, uint32_t(0), uint32_t(100000));
  io.list("points", s.points, 0, kMaxExplainItems, [](auto& p, auto& x) {
    p.text("kernel", x.kernel, kExplainText);
    p.text("group", x.group, kExplainText);
    p.whole("size", x.size, uint64_t(0), UINT64_MAX);
    p.whole("rounds", x.rounds, uint64_t(0), uint64_t(UINT32_MAX));
    p.list("effects", x.effects, 0, kMaxExplainItems, [](auto& e, auto& f) { map_effect(e, f); });
    if (p.has("counters", !x.counters.empty()))
      p.list("counters", x.counters, 0, kMaxExplainItems, [](auto& c, auto& v) {
        c.text("name", v.name, kExplainText);
        c.real("per_byte", v.per_byte, 0, kMaxRatio);
      });
  });
  if (io.has("core", !s.core.empty()))
    io.list("core", s.core, 0, kMaxExplainItems, [](auto& c, auto& x) { map_core(c, x); });
  if (io.has("pmu", !s.pmu.empty())) io.text("pmu", s.pmu, kExplainText);
}

}  // namespace kex::explain_fields
