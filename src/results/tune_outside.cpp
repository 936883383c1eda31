#include "src/results/tune_outside.hpp"

#include <cstdio>

#include "src/core/units.hpp"
#include "src/model/paired.hpp"

namespace kex {

std::vector<std::string> outside_faster(const RunDoc& doc, const TuneRecord& tune) {
  std::vector<std::string> out;
  for (const TuneVerdict& v : tune.verdicts) {
    const Result* dispatched = nullptr;
    for (const Result& x : doc.results)
      if (x.point.at.size == v.size && x.point.kernel == v.dispatched) dispatched = &x;
    if (!dispatched) continue;
    for (const Result& x : doc.results) {
      if (!x.impl || x.point.at.size != v.size || !x.ok()) continue;
      const PairedRatio p = paired_ratio(round_times(*dispatched), round_times(x));
      if (!p.slower_beyond(tune.margin)) continue;
      char line[160];
      std::snprintf(line, sizeof line, " was faster than the dispatch at %s by %.0f%% [%.0f%%, %.0f%%] over %zu rounds",
                    format_bytes(v.size).c_str(), (p.ratio - 1) * 100, (p.low - 1) * 100, (p.high - 1) * 100, p.rounds);
      out.push_back(x.point.kernel + line + " (not emittable: kex emits only its own code)");
    }
  }
  return out;
}

}  // namespace kex
