#include "src/results/scaling.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/paired.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// Slowest worker's median ticks over the fastest's, over the counted repetitions (median).
double worker_spread(const Result& r) {
  std::vector<double> v;
  for (const Repetition* rep : counted_reps(r)) {
    double lo = 0, hi = 0;
    for (const ThreadFigure& t : rep->threads) {
      if (t.median_ticks <= 0) continue;
      lo = lo == 0 ? t.median_ticks : std::min(lo, t.median_ticks);
      hi = std::max(hi, t.median_ticks);
    }
    if (lo > 0) v.push_back(hi / lo);
  }
  return v.empty() ? 0 : median(v);
}

using RowKey = std::tuple<Op, std::string, uint64_t, std::string>;
using RoundTimes = std::vector<std::pair<uint64_t, double>>;

/// Sorts a row's cells by threads and sets each one's speedup over the 1-thread cell: from
/// the rounds both ran in where they share 3 or more, else from the medians.
void set_speedups(ScalingRow& row, const std::vector<RoundTimes>& times) {
  std::vector<size_t> idx(row.cells.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return row.cells[a].threads < row.cells[b].threads; });
  std::vector<ScalingRow::Cell> cells;
  for (size_t i : idx) cells.push_back(row.cells[i]);
  const size_t one = idx.front();
  if (cells.front().threads == 1 && cells.front().gbps > 0)
    for (size_t j = 0; j < cells.size(); ++j) {
      ScalingRow::Cell& c = cells[j];
      const PairedRatio p = paired_ratio(times[one], times[idx[j]]);  // 1-thread time / this time
      const double n = c.threads;
      if (p.rounds > 0) {
        c.speedup = n * p.ratio;
        c.speedup_low = n * p.low;
        c.speedup_high = n * p.high;
      } else {
        c.speedup = c.speedup_low = c.speedup_high = c.gbps / cells.front().gbps;
      }
    }
  row.cells = std::move(cells);
}

}  // namespace

std::vector<ScalingRow> scaling_rows(const RunDoc& run) {
  std::map<RowKey, ScalingRow> rows;
  std::map<RowKey, std::vector<std::vector<std::pair<uint64_t, double>>>> times;  ///< per cell, as added
  std::vector<RowKey> order;
  for (const Result& r : run.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    Coords rest = condition(r.point.at);
    rest.threads = 1;
    const RowKey key{r.op, condition_label(rest), r.point.at.size, r.point.kernel};
    auto [it, fresh] = rows.try_emplace(key);
    if (fresh) {
      order.push_back(key);
      it->second = {r.op, std::get<1>(key), r.point.at.size, r.point.kernel, {}};
    }
    const double g = median_gbps(r);
    it->second.cells.push_back({r.point.at.threads, g, g / r.point.at.threads, 0, 0, 0, worker_spread(r)});
    times[key].push_back(round_times(r));
  }
  std::vector<ScalingRow> out;
  for (const RowKey& k : order) {
    ScalingRow& row = rows[k];
    if (row.cells.size() < 2) continue;
    set_speedups(row, times[k]);
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const ScalingRow& a, const ScalingRow& b) {
    return std::tie(a.op, a.condition, a.size) < std::tie(b.op, b.condition, b.size);
  });
  return out;
}

namespace {

/// "224.2 2.12x [2.08-2.15] 1.01": aggregate GB/s, speedup over one thread with its
/// interval (none when it comes from the medians), worker spread.
std::string cell_text(const ScalingRow::Cell& c) {
  std::string s = fmt::format("{:.1f}", c.gbps);
  if (c.threads > 1 && c.speedup > 0) {
    s += fmt::format(" {:.2f}x", c.speedup);
    if (c.speedup_high > c.speedup_low) s += fmt::format(" [{:.2f}-{:.2f}]", c.speedup_low, c.speedup_high);
  }
  if (c.threads > 1 && c.spread > 0) s += fmt::format(" {:.2f}", c.spread);
  return s;
}

std::string block_title(Op op, const std::string& condition, const std::vector<uint32_t>& threads) {
  std::string s = "\n" + std::string(to_string(op)) + " scaling" + (condition.empty() ? "" : " (" + condition + ")") +
                  ": aggregate GB/s by threads, x over 1 thread [95% interval over shared rounds], slowest/fastest worker\n";
  s += fmt::format("{:>8}    {:<40}", "size", "kernel");
  for (uint32_t t : threads) s += fmt::format("  {:<34}", fmt::format("{} thread{}", t, t == 1 ? "" : "s"));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

}  // namespace

std::string scaling_table(const RunDoc& run) {
  const std::vector<ScalingRow> rows = scaling_rows(run);
  std::string out;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;  // the block: same op and condition
    std::set<uint32_t> ts;
    while (j < rows.size() && rows[j].op == rows[i].op && rows[j].condition == rows[i].condition) {
      for (const auto& c : rows[j].cells) ts.insert(c.threads);
      ++j;
    }
    const std::vector<uint32_t> threads(ts.begin(), ts.end());
    out += block_title(rows[i].op, terminal_text(rows[i].condition), threads);
    for (size_t k = i; k < j; ++k) {
      const ScalingRow& r = rows[k];
      // The kernel name from the file: escaped, and padded by the columns it takes.
      std::string line = fmt::format("{:>8}    {}", format_bytes(r.size), pad_right(terminal_text(r.kernel), 40));
      for (uint32_t t : threads) {
        auto c = std::find_if(r.cells.begin(), r.cells.end(), [&](const auto& x) { return x.threads == t; });
        line += fmt::format("  {:<34}", c == r.cells.end() ? "-" : cell_text(*c));
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    i = j;
  }
  return out;
}

}  // namespace kex
