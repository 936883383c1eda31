#include "src/results/explain_text.hpp"

#include "src/core/terminal_text.hpp"
#include "src/model/ceilings.hpp"
#include "src/model/explain.hpp"

namespace kex {

std::string explain_text(const RunDoc& run) {
  if (!run.context.explain) return {};
  const ExplainSection& s = *run.context.explain;
  std::string out;
  for (const ExplainPoint& p : s.points) {
    out += "why " + terminal_text(p.kernel) + " at " + terminal_text(p.group) + " (" + std::to_string(p.rounds) +
           " rounds; time ratio neighbour/kernel, 95% interval):\n";
    for (const ExplainEffect& e : p.effects) out += "  " + terminal_text(effect_text(e, s.resolution)) + "\n";
    if (const auto st = point_standing(run, p)) out += "  where: " + terminal_text(standing_text(*st)) + "\n";
  }
  return out;
}

}  // namespace kex
