#include "src/model/protocol.hpp"

#include <algorithm>
#include <stdexcept>

#include "src/core/cpu_list.hpp"
#include "src/core/error.hpp"
#include "src/model/protocol_fields.hpp"

namespace kex {

const char* to_string(PlacementMode m) {
  switch (m) {
    case PlacementMode::spread: return "spread";
    case PlacementMode::compact: return "compact";
    case PlacementMode::list: return "list";
  }
  return "?";
}

std::optional<PlacementMode> parse_placement_mode(std::string_view s) {
  for (PlacementMode m : {PlacementMode::spread, PlacementMode::compact, PlacementMode::list})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

PlacementRequest parse_placement(const std::string& text, const std::string& where) {
  if (text == "spread") return {PlacementMode::spread, {}};
  if (text == "compact") return {PlacementMode::compact, {}};
  PlacementRequest r{PlacementMode::list, {}};
  const std::string allowed = "allowed: spread, compact, or a CPU list such as 0,2-3 (workers in that order)";
  if (text.empty() || text.find_first_not_of("0123456789,-") != std::string::npos)
    throw InputError(where, "'" + text + "': " + allowed);
  // In the order written: "3,1" puts worker 0 on CPU 3.
  size_t p = 0;
  while (p <= text.size()) {
    const size_t e = std::min(text.find(',', p), text.size());
    const std::vector<int> part = parse_cpu_list(text.substr(p, e - p), where);
    if (part.empty()) throw InputError(where, "'" + text + "': " + allowed);
    for (int c : part) {
      if (std::find(r.cpus.begin(), r.cpus.end(), c) != r.cpus.end())
        throw InputError(where, "'" + text + "': CPU " + std::to_string(c) + " is listed twice (one worker per CPU)");
      r.cpus.push_back(c);
    }
    p = e + 1;
  }
  return r;
}

std::string placement_text(const PlacementRequest& r) {
  if (r.mode != PlacementMode::list) return to_string(r.mode);
  std::string s;
  for (int c : r.cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

ProtocolRequest ProtocolRequest::read(const nlohmann::json& j, const std::string& source) {
  ProtocolRequest q;
  Protocol checked;  // each knob checked as the journal's header checks it
  if (j.contains("protocol")) {
    FieldReader r(j["protocol"], source + ": /protocol", Keys::partial);
    map_protocol(r, checked);
    r.finish();
    q.knobs_ = j["protocol"];
  }
  if (j.contains("repetitions")) {
    if (q.knobs_.contains("repetitions"))
      throw InputError(source + ": /repetitions", "given in /protocol too: give it once");
    FieldReader r(j, source + ": ", Keys::partial);  // the top level: its other keys are the config's
    r.whole("repetitions", checked.repetitions, 1u, 1000u);
    q.knobs_["repetitions"] = j["repetitions"];
  }
  return q;
}

void ProtocolRequest::apply(Protocol& p) const {
  FieldReader r(knobs_, "protocol", Keys::partial);  // checked by read(): cannot fail
  map_protocol(r, p);
}

bool ProtocolRequest::sets(std::string_view key) const {
  static const nlohmann::json kKnobs = [] {  // every key of map_protocol (placement: written when not the default)
    Protocol all;
    all.placement.mode = PlacementMode::compact;
    nlohmann::json j;
    FieldWriter w(j);
    map_protocol(w, all);
    return j;
  }();
  if (!kKnobs.contains(key)) throw std::logic_error("ProtocolRequest::sets: '" + std::string(key) + "' is no protocol knob");
  return knobs_.contains(key);
}

}  // namespace kex
