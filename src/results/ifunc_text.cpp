#include "src/results/ifunc_text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "src/core/significance.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// The family-wise error rate the claims hold over all of a function's comparisons.
constexpr double kFamilyAlpha = 0.05;

/// "4 KiB", "4 KiB dist:64 cold": where a group is, its size first.
std::string group_place(const GroupKey& k) {
  const std::string label = group_label(k);  // "copy 4096 dist:64 cold"
  const size_t size_end = label.find(' ', label.find(' ') + 1);
  return format_bytes(k.at.size) + (size_end == std::string::npos ? "" : label.substr(size_end));
}

/// Whether `r` is a glibc variant of `function` (a sibling of ifunc's pick).
bool is_variant(const Result& r, Function function) {
  return r.impl && source_row(r.impl->source).ifunc_listed && r.impl->function == function;
}

/// One-sided sign test that the per-round time ratios of the pick to a sibling lie above
/// `threshold`: P(at least k of n rounds above it) when each side is as likely (rounds
/// exactly at it left out). 1 without rounds.
double sign_test_above(const std::vector<std::pair<uint64_t, double>>& pick,
                       const std::vector<std::pair<uint64_t, double>>& sibling, double threshold) {
  std::map<uint64_t, double> of_sibling(sibling.begin(), sibling.end());
  size_t n = 0, k = 0;
  for (const auto& [round, t] : pick)
    if (auto it = of_sibling.find(round); it != of_sibling.end() && it->second > 0 && t / it->second != threshold) {
      ++n;
      k += t / it->second > threshold;
    }
  double p = 0;  // sum over i >= k of C(n, i) / 2^n, in logs
  for (size_t i = k; i <= n; ++i)
    p += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                  double(n) * std::log(2.0));
  return std::min(1.0, p);
}

/// One comparison of a function's family: ifunc's pick against one sibling in one group.
struct SiblingTest {
  const GroupAnswer* group = nullptr;
  const Result* sibling = nullptr;
  PairedRatio ratio;  ///< the pick's time / the sibling's
  double p = 1;       ///< sign test that the ratio lies above 1 + the group's resolution
};

/// Every comparison of `pick` with its siblings in the groups it raced in; `raced` counts those groups.
std::vector<SiblingTest> comparisons(const RunDoc& run, const std::vector<GroupAnswer>& answers, Function function,
                                    const std::string& pick, size_t& raced) {
  std::vector<SiblingTest> out;
  raced = 0;
  for (const GroupAnswer& g : answers) {
    const auto picked = std::find_if(g.members.begin(), g.members.end(), [&](const RankedMember& m) {
      const Result& r = run.results[m.result];
      return is_variant(r, function) && r.impl->symbol == pick;
    });
    if (picked == g.members.end()) continue;
    ++raced;
    const auto pick_times = round_times(run.results[picked->result]);
    for (const RankedMember& m : g.members) {
      const Result& r = run.results[m.result];
      if (&m == &*picked || !is_variant(r, function)) continue;
      const auto times = round_times(r);
      out.push_back({&g, &r, paired_ratio(pick_times, times), sign_test_above(pick_times, times, 1 + g.resolution)});
    }
  }
  return out;
}

/// The claims of one function: per group the sibling shown fastest over the pick after
/// Holm's adjustment over the whole family ("at 256 B Y is 1.31x faster [1.28-1.35]"),
/// then the groups whose rounds cannot decide (a sibling's interval reaches past the tie
/// margin without lying beyond it).
std::pair<std::string, std::string> claims_text(const std::vector<SiblingTest>& cs) {
  std::vector<double> p;
  for (const SiblingTest& c : cs) p.push_back(c.p);
  const std::vector<double> adjusted = holm(p);
  std::map<const GroupAnswer*, const SiblingTest*> best, undecided;  // per group, by largest ratio
  std::vector<const GroupAnswer*> order;
  for (size_t i = 0; i < cs.size(); ++i) {
    const SiblingTest& c = cs[i];
    if (std::find(order.begin(), order.end(), c.group) == order.end()) order.push_back(c.group);
    const bool shown = adjusted[i] < kFamilyAlpha && c.ratio.slower_beyond(c.group->resolution);
    auto& slot = (shown ? best : undecided)[c.group];
    if (shown || c.ratio.high > 1 + c.group->resolution)
      if (!slot || c.ratio.ratio > slot->ratio.ratio) slot = &c;
  }
  std::string faster, open;
  for (const GroupAnswer* g : order) {
    if (const auto it = best.find(g); it != best.end() && it->second) {
      const SiblingTest& c = *it->second;
      faster += fmt::format("{}at {} {} is {:.2f}x faster [{:.2f}-{:.2f}]", faster.empty() ? "" : "; ",
                            group_place(g->key), c.sibling->impl->symbol, c.ratio.ratio, c.ratio.low, c.ratio.high);
    } else if (const auto u = undecided.find(g); u != undecided.end() && u->second) {
      const PairedRatio& r = u->second->ratio;
      open += fmt::format("{}{} (up to {:.2f}-{:.2f})", open.empty() ? "" : ", ", group_place(g->key), r.low, r.high);
    }
  }
  return {faster, open};
}

}  // namespace

std::vector<std::string> ifunc_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  std::vector<std::string> out;
  if (!run.context.ifunc) return out;
  const IfuncRecord& f = *run.context.ifunc;
  for (const auto& [function, pick] : {std::pair{Function::memcpy, f.memcpy_impl},
                                       std::pair{Function::memmove, f.memmove_impl},
                                       std::pair{Function::memset, f.memset_impl}}) {
    size_t raced = 0;
    const std::vector<SiblingTest> cs = comparisons(run, answers, function, pick, raced);
    if (!raced) continue;
    const auto [faster, open] = claims_text(cs);
    std::string line = fmt::format("glibc {}: ifunc picks {}; ", to_string(function), pick);
    line += faster.empty() ? fmt::format("no variant raced beside it is shown faster ({} group{})", raced,
                                         raced == 1 ? "" : "s")
                           : faster;
    line += fmt::format(" (Holm over {} comparison{}, family-wise error {:g})", cs.size(), cs.size() == 1 ? "" : "s",
                        kFamilyAlpha);
    if (!open.empty()) line += "; none is shown faster where the rounds' spread cannot decide: " + open;
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace kex
