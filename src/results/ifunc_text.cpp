#include "src/results/ifunc_text.hpp"

#include <fmt/core.h>

#include <utility>

#include "src/core/units.hpp"

namespace kex {

namespace {

/// "4 KiB", "4 KiB dist:64 cold": where a group is, its size first.
std::string group_place(const GroupKey& k) {
  const std::string label = group_label(k);  // "copy 4096 dist:64 cold"
  const size_t size_end = label.find(' ', label.find(' ') + 1);
  return format_bytes(k.at.size) + (size_end == std::string::npos ? "" : label.substr(size_end));
}

/// The members of `g` that are glibc variants of `function`: the fastest one (by rank)
/// and the one called `pick` (null when absent).
std::pair<const RankedMember*, const RankedMember*> best_and_pick(const RunDoc& run, const GroupAnswer& g,
                                                                  Function function, const std::string& pick) {
  const RankedMember *best = nullptr, *picked = nullptr;
  for (const RankedMember& m : g.members) {
    const Result& r = run.results[m.result];
    if (!r.impl || !source_row(r.impl->source).ifunc_listed || r.impl->function != function) continue;
    if (!best) best = &m;
    if (r.impl->symbol == pick) picked = &m;
  }
  return {best, picked};
}

}  // namespace

std::vector<std::string> ifunc_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  std::vector<std::string> out;
  if (!run.context.ifunc) return out;
  const IfuncRecord& f = *run.context.ifunc;
  for (const auto& [function, pick] : {std::pair{Function::memcpy, f.memcpy_impl},
                                       std::pair{Function::memmove, f.memmove_impl},
                                       std::pair{Function::memset, f.memset_impl}}) {
    std::string faster;
    size_t raced = 0;
    for (const GroupAnswer& g : answers) {
      const auto [best, picked] = best_and_pick(run, g, function, pick);
      if (!picked) continue;
      ++raced;
      if (picked == best) continue;
      const Result& b = run.results[best->result];
      const PairedRatio pr = paired_ratio(round_times(run.results[picked->result]), round_times(b));
      if (!pr.slower_beyond(g.resolution)) continue;  // not shown: no claim
      faster += fmt::format("{}at {} {} is {:.2f}x faster [{:.2f}-{:.2f}]", faster.empty() ? "" : "; ",
                            group_place(g.key), b.impl->symbol, pr.ratio, pr.low, pr.high);
    }
    if (!raced) continue;
    out.push_back(fmt::format("glibc {}: ifunc picks {}; {}", to_string(function), pick,
                              faster.empty() ? fmt::format("no variant raced beside it is shown faster ({} group{})", raced,
                                                           raced == 1 ? "" : "s")
                                             : faster));
  }
  return out;
}

}  // namespace kex
