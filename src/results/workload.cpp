#include "src/results/workload.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/core/numbers.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/crossover.hpp"
#include "src/results/results.hpp"

namespace kex {

std::vector<WorkloadBin> load_workload(const std::string& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxWorkloadBytes, "workload file");
  } catch (const InputError& e) {
    throw InputError("--workload", e.what());
  }
  return parse_workload(text, path);
}

namespace {

using SizeGbps = std::map<double, double>;  // size -> GB/s

/// GB/s at `size` interpolated linearly in log2(size); nullopt outside the curve's sizes.
std::optional<double> gbps_at_size(const SizeGbps& c, double size) {
  auto hi = c.lower_bound(size);
  if (hi == c.end()) return std::nullopt;
  if (hi->first == size) return hi->second;
  if (hi == c.begin()) return std::nullopt;
  auto lo = std::prev(hi);
  const double t = (std::log2(size) - std::log2(lo->first)) / (std::log2(hi->first) - std::log2(lo->first));
  return lo->second + t * (hi->second - lo->second);
}

/// Expected ns per call over the bins inside [lo, hi]; nullopt when the curve misses one.
std::optional<double> cost(const SizeGbps& c, const std::vector<WorkloadBin>& bins, double lo, double hi) {
  double ns = 0, calls = 0;
  for (const WorkloadBin& b : bins) {
    if (b.count == 0 || double(b.size) < lo || double(b.size) > hi) continue;
    const std::optional<double> g = gbps_at_size(c, double(b.size));
    if (!g || *g <= 0) return std::nullopt;
    ns += double(b.count) * double(b.size) / *g;  // GB/s = bytes per ns
    calls += double(b.count);
  }
  if (calls == 0) return std::nullopt;
  return ns / calls;
}

}  // namespace

WorkloadReport rank_workload(const RunDoc& run, const std::vector<WorkloadBin>& bins, const std::string& cache_in) {
  WorkloadReport w;
  const std::optional<CacheMode> cache = crossover_cache(run, cache_in);
  w.cache = cache ? std::string(to_string(*cache)) : cache_in;
  std::map<std::string, SizeGbps> curves;
  std::set<std::string> libc;
  SizeGbps best;  // the dispatch: per size the best kernel but libc
  for (const Result& r : run.results) {
    if (!cache || !r.ok() || r.op != Op::copy || !at_defaults(r, *cache)) continue;
    const double size = double(r.point.at.size), g = median_gbps(r);
    curves[r.point.kernel][size] = g;
    if (r.libc) libc.insert(r.point.kernel);
    else best[size] = std::max(best[size], g);
  }
  for (const auto& [k, c] : curves) {
    if (c.empty()) continue;
    w.lo = w.lo == 0 ? c.begin()->first : std::min(w.lo, c.begin()->first);
    w.hi = std::max(w.hi, c.rbegin()->first);
  }
  for (const WorkloadBin& b : bins) {
    w.calls += b.count;
    if (double(b.size) < w.lo) w.below += b.count;
    if (double(b.size) > w.hi) w.above += b.count;
  }
  auto add = [&](const std::string& name, const SizeGbps& c, bool is_libc, bool dispatch) {
    if (auto ns = cost(c, bins, w.lo, w.hi)) w.ranked.push_back({name, *ns, is_libc, dispatch});
    else w.incomplete.push_back(name);
  };
  for (const auto& [k, c] : curves) add(k, c, libc.count(k) > 0, false);
  if (!best.empty()) add("per-size best kernel (dispatch)", best, false, true);
  std::stable_sort(w.ranked.begin(), w.ranked.end(),
                   [](const WorkloadCost& a, const WorkloadCost& b) { return a.ns_per_call < b.ns_per_call; });
  return w;
}

std::string format_workload(const WorkloadReport& w, size_t top) {
  std::ostringstream o;
  const uint64_t used = w.calls - w.below - w.above;
  o << "workload (copy, cache " << (w.cache.empty() ? "none" : w.cache) << "): " << w.calls << " calls, " << used
    << " at measured sizes [" << human_bytes(w.lo) << ", " << human_bytes(w.hi)
    << "], GB/s interpolated in log2(size) between them\n";
  if (w.below || w.above)
    o << "  left out: " << w.below << " calls below " << human_bytes(w.lo) << " and " << w.above << " above "
      << human_bytes(w.hi) << " (outside the measured sizes; measure them to rank these)\n";
  if (w.ranked.empty()) return o.str() + "  nothing to rank: no kernel measured over the sizes of these calls\n";
  const WorkloadCost* libc = nullptr;
  for (const WorkloadCost& c : w.ranked)
    if (c.libc && !libc) libc = &c;
  o << "  rank  ns/call   vs libc  kernel\n";
  for (size_t i = 0; i < w.ranked.size(); ++i) {
    const WorkloadCost& c = w.ranked[i];
    if (i >= top && !c.libc && !c.dispatch) continue;
    o << fmt::format("  {:>4}  {:>8.1f}  ", i + 1, c.ns_per_call)
      << (libc ? fmt::format("{:>7.3f}  ", c.ns_per_call / libc->ns_per_call) : "    n/a  ");
    o << terminal_text(c.name) << "\n";
  }
  if (w.ranked.size() > top) o << "  (" << w.ranked.size() << " ranked; the first " << top << " shown, and libc and the dispatch)\n";
  if (!w.incomplete.empty())
    o << "  not ranked: " << w.incomplete.size() << " kernels not measured at sizes spanning these calls\n";
  return o.str();
}

}  // namespace kex
