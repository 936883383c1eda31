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
  });
}

}  // namespace kex::explain_fields
