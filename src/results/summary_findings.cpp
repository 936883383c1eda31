// The summary's findings (a layout cliff, a fill byte's effect) and the run's noise in
// one line: what the data shows, said in words (src/results/summary.hpp).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/noise.hpp"
#include "src/model/spec.hpp"
#include "src/results/results.hpp"
#include "src/results/summary.hpp"

namespace kex {

namespace {

/// Sizes as a range: "4 KiB" or "4 KiB..64 KiB" (sorted, at least one).
std::string size_range(std::vector<uint64_t> sizes) {
  std::sort(sizes.begin(), sizes.end());
  return sizes.size() == 1 ? format_bytes(sizes[0]) : format_bytes(sizes.front()) + ".." + format_bytes(sizes.back());
}

/// One layout finding per kernel: the sizes it holds at, the extreme factor, the layouts it names.
struct Finding {
  std::vector<uint64_t> sizes;
  double factor = 1;
  std::set<std::string> worst, best;  ///< layout labels
};

std::string layout_findings(const RunDoc& run) {
  // (kernel, op, size, conditions without the layout) -> (layout label, GB/s)
  std::map<std::tuple<std::string, Op, uint64_t, std::string>, std::vector<std::pair<std::string, double>>> cells;
  for (const Result& r : run.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    Coords rest = condition(r.point.at);
    rest.layout = Layout{};
    cells[{r.point.kernel, r.op, r.point.at.size, condition_label(rest)}].emplace_back(
        layout_label(r.point.at.layout), median_gbps(r));
  }
  std::map<std::string, Finding> by_kernel;
  std::vector<std::string> order;
  for (const auto& [key, v] : cells) {
    if (v.size() < 2) continue;
    auto by_gbps = [](const auto& a, const auto& b) { return a.second < b.second; };
    const auto lo = std::min_element(v.begin(), v.end(), by_gbps), hi = std::max_element(v.begin(), v.end(), by_gbps);
    if (lo->second <= 0 || hi->second < 2 * lo->second) continue;
    const std::string& kernel = std::get<0>(key);
    if (!by_kernel.count(kernel)) order.push_back(kernel);
    Finding& f = by_kernel[kernel];
    f.sizes.push_back(std::get<2>(key));
    // Every layout below half the best is named (aliasing hits a range of distances).
    for (const auto& [label, g] : v)
      if (g * 2 <= hi->second) f.worst.insert(label);
    f.best.insert(hi->first);
    f.factor = std::max(f.factor, hi->second / lo->second);
  }
  std::string s;
  for (const std::string& k : order) {
    const Finding& f = by_kernel[k];
    std::string worst;
    size_t n = 0;
    for (const std::string& w : f.worst) {
      if (n++ == 4) {
        worst += " and " + std::to_string(f.worst.size() - 4) + " more";
        break;
      }
      worst += (n > 1 ? ", " : "") + w;
    }
    s += "layout cliff: " + terminal_text(k) + " at " + size_range(f.sizes) + fmt::format(": up to {:.1f}x", f.factor) +
         " slower at " + worst + " than at its best layout (" + *f.best.begin() + ")\n";
  }
  return s;
}

/// A clear spec's name without its fill token: the kernel the fill is a coordinate of.
std::string without_fill(const KernelSpec& spec) {
  KernelSpec k = spec;
  k.fill = 0;
  return spec_name(k);
}

/// One size of a clear kernel whose fills differ: the faster and slower fill and their GB/s.
struct FillCell {
  uint64_t size = 0;
  uint8_t faster = 0, slower = 0;
  double faster_gbps = 0, slower_gbps = 0;
};

std::string fill_findings(const RunDoc& run) {
  // (kernel without fill, size, conditions) -> (fill, GB/s)
  std::map<std::tuple<std::string, uint64_t, std::string>, std::vector<std::pair<uint8_t, double>>> cells;
  for (const Result& r : run.results) {
    if (!r.ok() || r.op != Op::clear || r.point.at.harness != Harness::kex) continue;
    // A generated kernel without its fill token; a baseline by its own name without its
    // fill (rep_stosb is a string spec too, but not the generated clear/string kernel).
    const auto baseline = r.kind == KernelKind::baseline ? parse_baseline_name(r.point.kernel) : std::nullopt;
    if (!baseline && (r.kind != KernelKind::generated || !r.spec)) continue;
    const std::string kernel = baseline ? baseline->base : without_fill(*r.spec);
    const uint8_t fill = baseline ? baseline->fill : r.spec->fill;
    cells[{kernel, r.point.at.size, condition_label(condition(r.point.at))}].emplace_back(fill, median_gbps(r));
  }
  // Per kernel, each size where the fills differ by 1.25x or more: its faster fill.
  std::map<std::string, std::vector<FillCell>> by_kernel;
  std::vector<std::string> order;
  for (const auto& [key, v] : cells) {
    if (v.size() < 2) continue;
    auto by_gbps = [](const auto& a, const auto& b) { return a.second < b.second; };
    const auto lo = std::min_element(v.begin(), v.end(), by_gbps), hi = std::max_element(v.begin(), v.end(), by_gbps);
    if (lo->second <= 0 || hi->second < 1.25 * lo->second) continue;
    const std::string& kernel = std::get<0>(key);
    if (!by_kernel.count(kernel)) order.push_back(kernel);
    by_kernel[kernel].push_back({std::get<1>(key), hi->first, lo->first, hi->second, lo->second});
  }
  std::string s;
  std::set<uint8_t> faster_fills;  // of the kernels whose fill effect points one way
  for (const std::string& k : order) {
    const std::vector<FillCell>& v = by_kernel[k];
    std::vector<uint64_t> sizes;
    std::map<uint8_t, size_t> faster;  // fill -> sizes where it is the faster
    for (const FillCell& c : v) {
      sizes.push_back(c.size);
      ++faster[c.faster];
    }
    const FillCell& top = *std::max_element(v.begin(), v.end(), [](const FillCell& a, const FillCell& b) {
      return a.faster_gbps / a.slower_gbps < b.faster_gbps / b.slower_gbps;
    });
    const double factor = top.faster_gbps / top.slower_gbps;
    if (faster.size() > 1) {  // the faster fill changes with the size: no effect of the fill's to name
      std::string ways;
      for (const auto& [fill, n] : faster)
        ways += fmt::format("{}0x{:02x} at {} size{}", ways.empty() ? "" : ", ", fill, n, n > 1 ? "s" : "");
      s += "fill, no effect to name: " + terminal_text(k) + " at " + size_range(sizes) +
           fmt::format(" differs by up to {:.1f}x between fills, but the faster fill changes ({}): ", factor, ways) +
           "fills are measured in separate rounds, so a machine state that changed during the run is likelier\n";
      continue;
    }
    faster_fills.insert(top.faster);
    s += "fill effect: " + terminal_text(k) + " at " + size_range(sizes) +
         (sizes.size() > 1 ? fmt::format(": up to {:.1f}x, at {}: ", factor, format_bytes(top.size)) : ": ") +
         fmt::format("{:.1f} GB/s with fill 0x{:02x}, {:.1f} GB/s with 0x{:02x}", top.faster_gbps, top.faster,
                     top.slower_gbps, top.slower) +
         (sizes.size() > 1 ? "\n" : fmt::format(" ({:.1f}x)\n", factor));
  }
  if (faster_fills.size() > 1)
    s += "fill effects point both ways (a fill faster for one kernel, slower for another): fills are measured in "
         "separate rounds, so a machine state that changed during the run is likelier; a second run tells\n";
  return s;
}

}  // namespace

std::string findings(const RunDoc& run, bool compact) {
  std::string s = layout_findings(run) + fill_findings(run);
  if (s.empty()) return s;
  if (compact) {
    size_t lines = 0, at = 0;
    while (at < s.size() && lines < kCompactFindings) {
      at = s.find('\n', at) + 1;
      ++lines;
    }
    const size_t rest = size_t(std::count(s.begin() + long(at), s.end(), '\n'));
    if (rest) s = s.substr(0, at) + "... and " + std::to_string(rest) + " more (kex summary prints them)\n";
  }
  return "\nwhat the data shows:\n" + s;
}

std::string noise_summary(const RunDoc& run) {
  const std::optional<Noise> n = run_noise(run.context);
  if (!n || n->tasks_measured == 0) return {};
  auto pct = [](double f) { return fmt::format("{:.{}f}%", f * 100, f < 0.1 ? 1 : 0); };
  auto spread = [&](const SentinelSpread& s) { return s.median > 0 ? "\u00b1" + pct((s.p90 - s.p10) / 2) : std::string("-"); };
  std::string s = "\nnoise: ";
  if (n->readings == 0) s += "no sentinel readings";
  else
    s += "sentinel L1 " + spread(n->l1) + " (p10..p90), memory " + spread(n->mem) + "; " +
         std::to_string(n->disturbed) + " of " + std::to_string(n->readings) + " windows disturbed";
  const size_t planned = n->tasks_measured - std::min(n->tasks_measured, n->remeasured_tasks);
  s += ", " + std::to_string(n->remeasured_tasks) + " tasks re-measured (budget " + pct(n->budget) + ": " +
       pct(planned ? double(n->remeasured_tasks) / double(planned) : 0.0) + " used)";
  if (n->points_with_cv) s += "; median repetition cv " + pct(n->median_repetition_cv);
  return s + "\n";
}

}  // namespace kex
