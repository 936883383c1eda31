// The protocol's one field table (keys, types and the ranges the command line and
// configs allow): the journal header's "protocol" object and a config's "protocol"
// request are both read and written through map_protocol. The results' context.protocol
// keeps its own, older layout of the same Protocol (src/model/context_json.cpp).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "src/core/error.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/protocol.hpp"

namespace kex {

/// "rounds" (paired) or "separate", as configs and context.protocol.pairing spell it.
inline std::optional<bool> parse_pairing(std::string_view s) {
  if (s == "rounds") return true;
  if (s == "separate") return false;
  return std::nullopt;
}
inline const char* pairing_text(bool paired) { return paired ? "rounds" : "separate"; }

inline bool is_counter_name(const std::string& s) { return !s.empty() && s.find(',') == std::string::npos; }

inline bool is_placement(const std::string& s) {
  try {
    parse_placement(s, "placement");
    return true;
  } catch (const InputError&) {
    return false;
  }
}

/// Every knob of the protocol a run can be asked for. Not kept: thread_cpus and
/// first_order (the run chooses them).
template <class IO, class P>
void map_protocol(IO& io, P& p) {
  static const TextRule kCounter{128, is_counter_name, "an event name (kex info lists them)"};
  static const TextRule kPlacement{4096, is_placement, "spread, compact, or a CPU list such as 0,2-3"};
  io.whole("repetitions", p.repetitions, 1u, 1000u);
  io.choice("pairing", p.paired, parse_pairing, pairing_text,
            "rounds (a group's points measured together), separate");
  io.flag("shuffle", p.shuffle);
  io.whole("seed", p.seed, uint64_t(0), UINT64_MAX);
  io.whole("cpu", p.cpu, -1, 4095);
  io.flag("sentinel", p.sentinel.enabled);
  io.whole("sentinel_every", p.sentinel.every, 1u, 100000u);
  io.real("sentinel_threshold", p.sentinel.threshold, 0.001, 10);
  io.real("remeasure_budget", p.sentinel.budget, 0, 10);
  io.whole("task_timeout_s", p.task_timeout_s, 1u, 86400u);
  io.texts("counters", p.counters, 64, kCounter);
  io.whole("round_samples", p.round.samples, 2u, 1000u);
  io.whole("round_block", p.round.block, 1u, 1000u);
  io.real("round_sample_us", p.round.sample_us, 5, 10000);
  io.real("round_settle_us", p.round.settle_us, 0, 100000);
  io.whole("tasks_per_worker", p.tasks_per_worker, 0u, 1000000u);
  std::string placement = placement_text(p.placement);
  if (io.has("placement", p.placement != PlacementRequest{})) {
    io.text("placement", placement, kPlacement);
    if constexpr (!std::is_const_v<P>) p.placement = parse_placement(placement, "placement");
  }
}

}  // namespace kex
