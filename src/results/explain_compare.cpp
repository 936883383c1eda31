#include "src/results/explain_compare.hpp"

#include <cstdio>

#include "src/core/terminal_text.hpp"
#include "src/model/explain.hpp"

namespace kex {

namespace {

/// -1: the kernel's value is faster; +1: the neighbour's; 0: not called.
int call_direction(EffectCall c) {
  return c == EffectCall::kernel_faster ? -1 : c == EffectCall::neighbour_faster ? 1 : 0;
}

std::string effect_verdict(const ExplainEffect& e, EffectCall c) {
  switch (c) {
    case EffectCall::kernel_faster: return e.from + " is faster";
    case EffectCall::neighbour_faster: return e.to + " is faster";
    case EffectCall::none: return "no effect";
    case EffectCall::unresolved: return "not shown either way";
    case EffectCall::unmeasured:
    case EffectCall::refused: return "not measured";
  }
  return "";
}

const ExplainPoint* find_explain_point(const ExplainSection& s, const ExplainPoint& p) {
  for (const ExplainPoint& q : s.points)
    if (q.kernel == p.kernel && q.group == p.group) return &q;
  return nullptr;
}

}  // namespace

std::vector<EffectPair> compare_effects(const RunDoc& a, const RunDoc& b) {
  std::vector<EffectPair> out;
  if (!a.context.explain || !b.context.explain) return out;
  const ExplainSection& sa = *a.context.explain;
  const ExplainSection& sb = *b.context.explain;
  for (const ExplainPoint& pa : sa.points) {
    const ExplainPoint* pb = find_explain_point(sb, pa);
    if (!pb) continue;
    for (const ExplainEffect& ea : pa.effects)
      for (const ExplainEffect& eb : pb->effects) {
        if (eb.neighbour != ea.neighbour) continue;
        const EffectCall ca = call_of(ea, sa.resolution), cb = call_of(eb, sb.resolution);
        const int da = call_direction(ca), db = call_direction(cb);
        EffectPair p{pa.kernel, pa.group, ea.coordinate + " " + ea.from + " -> " + ea.to, effect_verdict(ea, ca),
                     effect_verdict(eb, cb), ea.ratio, eb.ratio, CallAgreement::neither};
        p.agreement = da && db  ? (da == db ? CallAgreement::both : CallAgreement::contradicted)
                      : da      ? CallAgreement::a_only
                      : db      ? CallAgreement::b_only
                                : CallAgreement::neither;
        out.push_back(std::move(p));
        break;
      }
  }
  return out;
}

std::string format_effect_comparison(const std::vector<EffectPair>& pairs) {
  if (pairs.empty()) return {};
  static const char* const words[] = {"both", "CONTRADICTED", "A only", "B only", "neither"};
  std::string out = "\nexplain: the effects both runs measured (time ratio neighbour/kernel; called: the interval "
                    "shows it at the tie resolution)\n";
  std::string point;
  size_t counts[5] = {0, 0, 0, 0, 0};
  for (const EffectPair& p : pairs) {
    ++counts[size_t(p.agreement)];
    if (p.agreement == CallAgreement::neither) continue;
    if (const std::string here = p.kernel + " at " + p.group; here != point) {
      point = here;
      out += "why " + terminal_text(here) + ":\n";
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, " (%.2fx), B ", p.ratio_a);
    std::string line = "  " + p.change + ": A " + p.call_a + buf + p.call_b;
    std::snprintf(buf, sizeof buf, " (%.2fx): ", p.ratio_b);
    out += terminal_text(line + buf + words[size_t(p.agreement)]) + "\n";
  }
  char sum[160];
  std::snprintf(sum, sizeof sum,
                "explain: %zu effects called by both runs alike, %zu contradicted, %zu by one run only, %zu by neither\n",
                counts[0], counts[1], counts[2] + counts[3], counts[4]);
  return out + sum;
}

}  // namespace kex
