#include "src/results/plot_segments.hpp"

#include <algorithm>

#include "src/results/plot_bars.hpp"
#include "src/results/plot_heatmap.hpp"

namespace kex {

namespace {

/// Whether a segment case is one of the table's loops (the 2006 loop, the mixed one and
/// the loop without segment work), drawn in the heatmap; the modern costs are bars. A
/// loop whose file leaves out its register or selector kind has no cell: it is left out.
bool segment_loop(const SegmentCase& c) {
  return c.variant == SegVariant::baseline || c.variant == SegVariant::loop2006 || c.variant == SegVariant::mixed;
}
bool has_cell(const SegmentCase& c) { return segment_loop(c) && c.segment && c.selector_kind; }

/// The segment table's measured modern costs of every run: a bar of ns per iteration each.
std::vector<PlotFigure> segment_bars(const std::vector<PlotRun>& runs) {
  std::vector<std::string> rows, run_labels;
  std::map<std::pair<std::string, size_t>, double> vals;
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    run_labels.push_back(runs[ri].label);
    const auto& sec = runs[ri].doc->context.segments;
    if (!sec) continue;
    for (const SegmentCase& s : sec->cases) {
      if (!s.measured() || segment_loop(s)) continue;
      if (std::find(rows.begin(), rows.end(), s.name) == rows.end()) rows.push_back(s.name);
      vals[{s.name, ri}] = *s.ns_per_iteration;
    }
  }
  if (rows.empty()) return {};
  return {bar_figure("segments-modern", "segment-override costs: one load per iteration (fewer is faster)",
                     "ns per iteration", rows, run_labels, vals,
                     "segment-override modern costs: ns per iteration, one column per run")};
}

/// The segment table's loops of one run as a heatmap: a row per loop (the 2006 one,
/// then the mixed one) and selector loaded, a column per register and the selector it
/// held on entry (the loop's pop reloads it), `<none>` the loop without segment work;
/// ns per iteration in the cells, blank where the case was skipped.
PlotFigure segment_heatmap(const SegmentSection& sec, const std::string& base, const std::string& run_label) {
  HeatmapData h;
  h.base = base;
  h.high_is_good = false;
  auto index_of = [](std::vector<std::string>& v, const std::string& x) {
    auto it = std::find(v.begin(), v.end(), x);
    if (it == v.end()) it = v.insert(v.end(), x);
    return size_t(it - v.begin());
  };
  for (const SegmentCase& c : sec.cases) {
    if (!has_cell(c)) continue;
    const std::string loop(to_string(c.variant == SegVariant::mixed ? SegVariant::mixed : SegVariant::loop2006));
    const std::string row =
        loop + ": " + word_or_empty(c.selector_kind) + (c.selector ? " " + *c.selector : std::string());
    const std::string entry = c.entry_selector_kind ? word_or_empty(c.entry_selector_kind) : "?";
    const std::string col = c.segment == SegReg::none ? "<none>" : word_or_empty(c.segment) + ", entry " + entry;
    const size_t y = index_of(h.ys, row), x = index_of(h.xs, col);
    if (c.measured()) h.cells[{x, y}] = *c.ns_per_iteration;
  }
  h.title = "segment-override loads: ns per loop iteration (fewer is faster; -: skipped, kex segments says why)\n" +
            run_label;
  h.xname = "register, and the selector it held on entry (its pop reloads it)";
  h.yname = "loop: selector loaded";
  h.quantity = "ns per iteration";
  return heatmap_figure(h);
}

/// A segment heatmap per run with a segment table (`segments`, `segments-2`, ...).
void segment_heatmaps(const std::vector<PlotRun>& runs, std::vector<PlotFigure>& out) {
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    const auto& sec = runs[ri].doc->context.segments;
    if (!sec || std::none_of(sec->cases.begin(), sec->cases.end(), [](const SegmentCase& c) {
          return has_cell(c) && c.measured();
        }))
      continue;
    out.push_back(segment_heatmap(*sec, ri ? "segments-" + std::to_string(ri + 1) : "segments", runs[ri].label));
  }
}

}  // namespace

std::vector<PlotFigure> segment_figures(const std::vector<PlotRun>& runs) {
  std::vector<PlotFigure> out = segment_bars(runs);
  segment_heatmaps(runs, out);
  return out;
}

}  // namespace kex
