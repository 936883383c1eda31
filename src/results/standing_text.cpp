#include "src/results/standing_text.hpp"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/source.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/stream_text.hpp"

namespace kex {

namespace {

bool loaded(const Result& r) { return r.impl && source_row(r.impl->source).loaded; }
/// One of glibc's own variants (glibc/NAME: the source whose variants ifunc lists).
bool glibc_variant(const Result& r) { return r.impl && source_row(r.impl->source).ifunc_listed; }

/// The group's row for the member at `i`: where, rank, over the fastest, libc, glibc's fastest.
std::vector<std::string> standing_row(const RunDoc& run, const GroupAnswer& g, size_t i, const std::string& where) {
  const RankedMember& m = g.members[i];
  const Result& me = run.results[m.result];
  std::string fastest = i == 0 ? "fastest" : ratio_text(m.vs_winner);
  if (i > 0 && m.tie) fastest = fmt::format("tie [{:.2f}-{:.2f}]", m.vs_winner.low, m.vs_winner.high);
  if (i == 0 && g.ties() > 1) fastest += fmt::format(" (tied with {})", g.ties() - 1);
  const std::string libc = me.libc ? "(libc)" : m.vs_libc ? ratio_text(*m.vs_libc) : "-";
  std::string glibc = "-";
  for (const RankedMember& o : g.members) {
    const Result& r = run.results[o.result];
    if (!glibc_variant(r)) continue;
    if (&o != &m)
      glibc = ratio_text(paired_ratio(round_times(me), round_times(r))) + " " + terminal_text(r.point.kernel);
    break;  // the first by rank is the fastest
  }
  return {where, fmt::format("{}/{}", i + 1, g.members.size()), fastest, libc, glibc};
}

}  // namespace

std::string standing_table(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  // Each loaded kernel's rows, in the order the kernels first appear.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> rows;  // kernel -> (block, row)
  auto add = [&](const GroupAnswer& g, const std::string& block, const std::string& where) {
    for (size_t i = 0; i < g.members.size(); ++i) {
      const Result& r = run.results[g.members[i].result];
      if (!loaded(r)) continue;
      if (!rows.count(r.point.kernel)) order.push_back(r.point.kernel);
      rows[r.point.kernel].push_back({block, standing_row(run, g, i, where)});
    }
  };
  for (const AnswerBlock& b : answer_blocks(answers))
    for (const GroupAnswer* g : b.rows) add(*g, block_title(b), format_bytes(g->key.at.size));
  for (const GroupAnswer& g : answers)
    if (is_stream_group(g))
      add(g, std::string(to_string(g.key.op)) + " on streams",
          terminal_text(g.key.at.stream) + " (" + format_bytes(g.key.at.footprint) + ")");
  if (order.empty()) return {};
  std::string out =
      "\nwhere your code stands (rank among the group's measured members; time over the fastest's, over libc's and over "
      "glibc's fastest variant, in the same rounds, 95% intervals):\n";
  for (const std::string& k : order) {
    std::string block;
    for (const auto& [b, row] : rows[k]) {
      if (b != block) {
        block = b;
        out += fmt::format("{}, {}:\n  {:>24}  {:>6}  {:<30}{:<22}{}\n", terminal_text(k), b,
                           b.ends_with("on streams") ? "stream (footprint)" : "size", "rank",
                           "time over fastest", "over libc", "over glibc's fastest");
      }
      out += fmt::format("  {:>24}  {:>6}  {:<30}{:<22}{}\n", row[0], row[1], row[2], row[3], row[4]);
    }
  }
  return out;
}

}  // namespace kex
