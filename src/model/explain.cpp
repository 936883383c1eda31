#include "src/model/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/model/explain_core.hpp"
#include "src/model/group.hpp"
#include "src/model/paired.hpp"

namespace kex {

EffectCall call_of(const ExplainEffect& e, double res) {
  if (!e.refused.empty()) return EffectCall::refused;
  if (e.rounds < 3) return EffectCall::unmeasured;
  const double up = 1 + res, down = 1 / (1 + res);
  if (e.low > up) return EffectCall::kernel_faster;
  if (e.high < down) return EffectCall::neighbour_faster;
  if (e.low >= down && e.high <= up) return EffectCall::none;
  return EffectCall::unresolved;
}

namespace {

/// Sort key of an effect: its call's rank, then the size of the effect, largest first.
std::pair<int, double> effect_rank(const ExplainEffect& e, double res) {
  const double size = e.ratio > 0 ? std::fabs(std::log(e.ratio)) : 0;
  switch (call_of(e, res)) {
    case EffectCall::kernel_faster:
    case EffectCall::neighbour_faster: return {0, -size};
    case EffectCall::unresolved: return {1, -size};
    case EffectCall::none: return {2, -size};
    case EffectCall::unmeasured: return {3, 0};
    case EffectCall::refused: return {4, 0};
  }
  return {5, 0};
}

/// The neighbour's point in the kernel's group `g`, or for a clear's fill neighbour in
/// the group that differs from `g` only by the fill (raced in the same rounds).
const Result* find_point(const RunDoc& run, const std::string& kernel, GroupKey g) {
  g.fill = 0;
  for (const Result& r : run.results) {
    std::optional<GroupKey> rg = r.point.kernel == kernel ? group_of(r) : std::nullopt;
    if (rg) rg->fill = 0;
    if (rg == g) return &r;
  }
  return nullptr;
}

ExplainEffect effect_of(const RunDoc& run, const Result& kernel, const GroupKey& g, const Neighbour& n) {
  ExplainEffect e{spec_name(n.spec), n.coordinate, n.from, n.to, n.refused, 0, 0, 0, 0};
  if (!e.refused.empty()) return e;
  const Result* r = find_point(run, e.neighbour, g);
  if (!r) {
    e.refused = "not measured in this run";
    return e;
  }
  if (r->status.kind != StatusKind::ok) {
    e.refused = r->status.message.empty() ? "not measured" : r->status.message;
    return e;
  }
  const PairedRatio p = paired_ratio(round_times(*r), round_times(kernel));
  e.ratio = p.ratio, e.low = p.low, e.high = p.high, e.rounds = p.rounds;
  return e;
}

}  // namespace

ExplainSection explain_section(const RunDoc& run, const std::vector<ExplainTarget>& targets, double resolution,
                               uint32_t rounds) {
  ExplainSection s;
  s.resolution = resolution;
  s.rounds = rounds;
  for (const ExplainTarget& t : targets) {
    const std::string name = t.name();
    for (const Result& r : run.results) {
      const std::optional<GroupKey> g = group_of(r);
      if (r.point.kernel != name || !g || r.status.kind != StatusKind::ok) continue;
      ExplainPoint p{name, group_label(*g), r.point.at.size, round_times(r).size(), {}, explain_counters(r)};
      for (const Neighbour& n : t.neighbours) p.effects.push_back(effect_of(run, r, *g, n));
      std::stable_sort(p.effects.begin(), p.effects.end(), [&](const ExplainEffect& a, const ExplainEffect& b) {
        return effect_rank(a, resolution) < effect_rank(b, resolution);
      });
      s.points.push_back(std::move(p));
    }
  }
  return s;
}

std::string no_coordinates_text(const std::string& kernel) {
  std::string out = "no coordinates: " + kernel + " is not one of kex's specs, so no one-coordinate change applies";
  for (const Op op : {Op::copy, Op::clear}) {
    const KernelSpec rep = rep_string_spec(op);  // the rep baseline's own code
    std::string word = op_info(op).rep;  // "rep movsb"
    std::string baseline = word;
    std::replace(baseline.begin(), baseline.end(), ' ', '_');
    const std::string spec = spec_name(rep);
    const std::string shortname = spec.substr(0, spec.find("/unroll:1") + 9);  // copy/string/unroll:1
    if (kernel == baseline)
      out += "; " + shortname + " is " + word + " in kex's terms: kex explain " + shortname + " changes its coordinates";
  }
  return out;
}

std::string effect_text(const ExplainEffect& e, double res) {
  const std::string head = e.coordinate + " " + e.from + " -> " + e.to + ": ";
  char figures[96];
  std::snprintf(figures, sizeof figures, "%.2fx the time [%.2f-%.2f]", e.ratio, e.low, e.high);
  char within[48];
  std::snprintf(within, sizeof within, "within \u00b1%.3g%%", res * 100);
  switch (call_of(e, res)) {
    case EffectCall::refused: return head + "not run: " + e.refused;
    case EffectCall::unmeasured: return head + "not paired in 3 rounds: nothing to say";
    case EffectCall::kernel_faster: return head + figures + ": " + e.from + " is faster";
    case EffectCall::neighbour_faster: return head + figures + ": " + e.to + " is faster";
    case EffectCall::none: return head + "no effect (" + within + ")";
    case EffectCall::unresolved: return head + figures + ": not shown either way " + within;
  }
  return head;
}

}  // namespace kex
