#include "src/results/explain_text.hpp"

#include <cstdio>

#include "src/core/terminal_text.hpp"
#include "src/model/ceilings.hpp"
#include "src/model/explain.hpp"
#include "src/model/explain_core.hpp"

namespace kex {

namespace {

/// "l1d-misses 0.0156, stores 0.0312": names escaped, figures as kex prints them.
std::string counters_text(const std::vector<ExplainCounter>& cs) {
  std::string out;
  for (const ExplainCounter& c : cs) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", c.per_byte);
    out += (out.empty() ? "" : ", ") + terminal_text(c.name) + " " + buf;
  }
  return out;
}

}  // namespace

std::string explain_text(const RunDoc& run) {
  if (!run.context.explain) return {};
  const ExplainSection& s = *run.context.explain;
  std::string out;
  for (const ExplainPoint& p : s.points) {
    out += "why " + terminal_text(p.kernel) + " at " + terminal_text(p.group) + " (" + std::to_string(p.rounds) +
           " rounds; time ratio neighbour/kernel, 95% interval):\n";
    for (const ExplainEffect& e : p.effects) out += "  " + terminal_text(effect_text(e, s.resolution)) + "\n";
    if (p.effects.empty()) out += "  " + terminal_text(no_coordinates_text(p.kernel)) + "\n";  // not one of kex's specs
    if (!p.counters.empty()) out += "  counters per byte: " + counters_text(p.counters) + "\n";
    if (const auto st = point_standing(run, p)) out += "  where: " + terminal_text(standing_text(*st)) + "\n";
  }
  for (const ExplainCore& c : s.core)
    out += "core of " + terminal_text(c.kernel) + ": " + terminal_text(core_text(c)) + "\n";
  if (!s.pmu.empty()) out += "counters: " + terminal_text(s.pmu) + "\n";
  return out;
}

}  // namespace kex
