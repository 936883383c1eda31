#include "src/results/report_html.hpp"

#include <cstdio>
#include <stdexcept>

#include "src/core/error.hpp"
#include "src/core/version.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/ceilings_text.hpp"
#include "src/results/compare.hpp"
#include "src/results/crossover.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/explain_text.hpp"
#include "src/results/html_text.hpp"
#include "src/results/results.hpp"
#include "src/results/scaling.hpp"
#include "src/results/seed_text.hpp"
#include "src/results/segment_text.hpp"
#include "src/results/standing_text.hpp"
#include "src/results/stream_text.hpp"
#include "src/results/summary.hpp"
#include "src/results/tune_summary.hpp"
#include "src/results/tune_workload.hpp"

namespace kex {

namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,sans-serif;max-width:78rem;margin:1rem auto;padding:0 1rem;color:#222;line-height:1.4}
h1{font-size:1.6rem}h2{border-bottom:1px solid #ccc;margin-top:2rem}h3{margin-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}th,td{border:1px solid #ddd;padding:.15rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f7f7f7;padding:.5rem;overflow-x:auto;font-size:.8rem}
figure{margin:1rem 0}figure svg{display:block;width:100%;height:auto;border:1px solid #eee}figure svg image{image-rendering:pixelated}figcaption{font-size:.85rem;color:#555}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(36rem,1fr));gap:0 1rem}nav ul{columns:2}.note{color:#8a4b00})";

/// The page's one policy: inline styles and data: images (gnuplot's heatmap cells), nothing else.
constexpr const char* kPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

std::string section(const char* id, const char* title, const std::string& body) {
  return std::string("<section id=\"") + id + "\">\n<h2>" + title + "</h2>\n" + body + "</section>\n";
}

std::string pre(const std::string& text) { return "<pre>" + html_text(text) + "</pre>\n"; }
std::string para(const std::string& text, const char* cls = nullptr) {
  return std::string(cls ? "<p class=\"" + std::string(cls) + "\">" : "<p>") + html_text(text) + "</p>\n";
}

/// `text` without the blank lines and newlines around it.
std::string trimmed(const std::string& text) {
  const size_t a = text.find_first_not_of('\n'), b = text.find_last_not_of('\n');
  return a == std::string::npos ? "" : text.substr(a, b - a + 1);
}

/// Lines of prose as a list (a <pre> would clip them at the page's edge); blank lines and
/// a "what the data shows:" head left out.
std::string lines_list(const std::string& text) {
  std::string s;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (!line.empty() && line != "what the data shows:") s += "<li>" + html_text(line) + "</li>\n";
    at = end + 1;
  }
  return "<ul>\n" + s + "</ul>\n";
}

std::string label(const ReportRun& r) { return r.file + " (" + run_label(r.run.context) + ")"; }

/// A run's heading inside a section, when the page has several.
std::string run_heading(const std::vector<ReportRun>& runs, size_t i) {
  return runs.size() > 1 ? "<h3>" + html_text(label(runs[i])) + "</h3>\n" : "";
}

std::string fixed(double v, const char* fmt) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

/// The machine's facts, one row per fact and a column per run.
std::string machine_section(const std::vector<ReportRun>& runs) {
  using Fact = std::string (*)(const RunDoc&);
  static const std::vector<std::pair<const char*, Fact>> kFacts = {
      {"host", [](const RunDoc& d) { return d.context.host_name; }},
      {"date", [](const RunDoc& d) { return d.context.date; }},
      {"CPU", [](const RunDoc& d) { return d.context.machine.cpu_vendor + " " + d.context.machine.cpu_model; }},
      {"family/model/stepping", [](const RunDoc& d) {
         const MachineInfo& m = d.context.machine;
         return std::to_string(m.family) + "/" + std::to_string(m.model) + "/" + std::to_string(m.stepping);
       }},
      {"logical CPUs", [](const RunDoc& d) { return std::to_string(d.context.machine.num_cpus); }},
      {"L1d / L2 / LLC", [](const RunDoc& d) {
         const MachineInfo& m = d.context.machine;
         auto b = [](uint64_t v) { return v ? human_bytes(double(v)) : std::string("?"); };
         return b(m.l1d_bytes) + " / " + b(m.l2_bytes) + " / " + b(m.llc_bytes);
       }},
      {"TSC", [](const RunDoc& d) { return fixed(d.context.machine.tsc_hz / 1e9, "%.3f GHz"); }},
      {"kernel", [](const RunDoc& d) { return d.context.machine.kernel_version.value_or(d.context.machine.kernel.value_or("?")); }},
      {"virtualization", [](const RunDoc& d) { return d.context.machine.virtualization; }},
      {"transparent huge pages", [](const RunDoc& d) { return d.context.machine.transparent_hugepage.value_or("?"); }},
      {"kex", [](const RunDoc& d) {
         return d.context.build.kex_version.value_or("?") + " (git " + d.context.build.git_commit.value_or("?") + ")";
       }},
      {"protocol", [](const RunDoc& d) {
         if (!d.context.protocol) return std::string("not recorded");
         const ProtocolRecord& p = *d.context.protocol;
         return std::to_string(p.repetitions) + (p.paired ? " paired rounds" : " separate repetitions") + ", seed " +
                std::to_string(p.seed) + (d.context.filter.empty() ? "" : ", filter " + d.context.filter);
       }},
      {"wall time", [](const RunDoc& d) { return d.context.totals ? fixed(d.context.totals->elapsed_s, "%.1f s") : "?"; }},
  };
  std::string s = "<table>\n<thead><tr><th></th>";
  for (const ReportRun& r : runs) s += "<th>" + html_text(r.file) + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const auto& [name, fact] : kFacts) {
    s += std::string("<tr><th>") + name + "</th>";
    for (const ReportRun& r : runs) s += "<td>" + html_text(fact(r.run)) + "</td>";
    s += "</tr>\n";
  }
  s += "</tbody>\n</table>\n";
  for (const ReportRun& r : runs)
    if (r.run.context.interrupted) s += para(r.file + ": the run was interrupted; the page shows the points it finished", "note");
  return section("machine", "Machine", s);
}

/// Which section a figure belongs in, by the plot writer's name for it.
enum class FigureKind { curves, heatmap, presets, segments, ratio, speedup, why, streams };
std::string figures_html(const ReportFigures& figs, FigureKind kind);

/// A tune's answer: its report (verdicts, dispatch, race, validation), the outside code
/// faster than the dispatch, where loaded code stands.
std::string tune_answer(const ReportRun& r) {
  std::string s = markdown_html(tune_summary_markdown(r.run, *r.tune));
  for (const std::string& w : state_warnings(r.run)) s += para("warning: " + w, "note");
  if (const std::string t = trimmed(standing_table(r.run, answer_groups(r.run, r.tune->margin))); !t.empty()) s += pre(t);
  return s;
}

/// A tune of a stream: its dispatch by size range, its time per call against libc's and
/// glibc's, its fixed sizes (tune_workload_markdown); "" when no run is one.
std::string workload_section(const std::vector<ReportRun>& runs) {
  std::string s;
  bool copy = false, clear = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].tune || runs[i].tune->stream.empty()) continue;
    (runs[i].tune->op == Op::clear ? clear : copy) = true;
    s += run_heading(runs, i) + markdown_html(tune_workload_markdown(runs[i].run, *runs[i].tune));
  }
  if (s.empty()) return "";
  return section("workload", copy && clear ? "Workload memcpy and memset" : copy ? "Workload memcpy" : "Workload memset", s);
}

/// The answer first: a line per op and condition, the machine's state as a warning, and
/// the fastest kernel's speed over libc per size.
std::string answer_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].tune) {
      s += run_heading(runs, i) + tune_answer(runs[i]);
      continue;
    }
    const std::vector<std::string> lines = answer_lines(runs[i].run, answer_groups(runs[i].run), false);
    const std::vector<std::string> warnings = state_warnings(runs[i].run);
    if (lines.empty() && warnings.empty()) continue;
    s += run_heading(runs, i) + "<ul>\n";
    for (const std::string& l : lines) s += "<li>" + html_text(l) + "</li>\n";
    s += "</ul>\n";
    for (const std::string& w : warnings) s += para("warning: " + w, "note");
    if (const std::string t = trimmed(standing_table(runs[i].run, answer_groups(runs[i].run))); !t.empty()) s += pre(t);
  }
  if (const std::string speedups = figures_html(figs, FigureKind::speedup); !speedups.empty())
    s += "<div class=\"grid\">\n" + speedups + "</div>\n";
  return s.empty() ? "" : section("answer", "Answer", s);
}

std::string summary_section(const std::vector<ReportRun>& runs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].tune) {
      s += run_heading(runs, i) + para("a kex tune's file: its verdict per size is in the answer (the groups' members "
                                       "were measured in unequal numbers of rounds: a table of them would rank them "
                                       "unfairly)");
      continue;
    }
    const std::string md = summary_markdown(runs[i].run);
    s += run_heading(runs, i) + (md.empty() ? para("nothing measured under kex's harness") : markdown_html(md));
  }
  return section("summary", "Summary per group", s);
}

std::string noise_section(const std::vector<ReportRun>& runs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string n = trimmed(noise_summary(runs[i].run));
    s += run_heading(runs, i) +
         para(n.empty() ? "no noise record: the run measured no sentinel readings (--no-sentinel, or a kex before them)" : n);
  }
  return section("noise", "Noise of the run", s);
}

/// Findings in words, the layout table and the crossovers, per run.
std::string findings_section(const std::vector<ReportRun>& runs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunDoc& run = runs[i].run;
    s += run_heading(runs, i);
    const std::string f = findings(run), layout = layout_table(run), scaling = scaling_table(run);
    s += f.empty() ? para("no layout cliff and no fill effect") : lines_list(f);
    if (!layout.empty()) s += "<h4>GB/s across the layouts</h4>\n" + pre(layout);
    if (!scaling.empty()) s += "<h4>Scaling with threads</h4>\n" + pre(scaling);
    s += "<h4>Crossovers</h4>\n";
    try {
      check_crossover_data(run, "", runs[i].file);
      for (uint32_t threads : crossover_threads(run))
        s += pre(format_crossovers(find_crossovers(run, "", kCrossoverMargin, threads)));
    } catch (const InputError& e) {
      s += para(e.what());
    }
  }
  return section("findings", "What the data shows", s);
}


FigureKind figure_kind(const std::string& base) {
  if (base.starts_with("why-") || base.starts_with("roofline-")) return FigureKind::why;
  if (base.find("presets") != std::string::npos) return FigureKind::presets;  // "copy-warm-presets" too
  if (base.starts_with("segments")) return FigureKind::segments;
  if (base.starts_with("ratio-")) return FigureKind::ratio;
  if (base.starts_with("speedup-")) return FigureKind::speedup;
  if (base.starts_with("stream-")) return FigureKind::streams;
  if (base.starts_with("heatmap")) return FigureKind::heatmap;
  return FigureKind::curves;
}

/// The figures of one kind, each in a <figure> with its name under it.
std::string figures_html(const ReportFigures& figs, FigureKind kind) {
  std::string s;
  for (const SvgFigure& f : figs.figures)
    if (figure_kind(f.base) == kind)
      s += "<figure>\n" + f.svg + "\n<figcaption>" + html_text(f.base) + "</figcaption>\n</figure>\n";
  return s;
}

/// The curves, then the heatmaps side by side.
std::string figures_section(const ReportFigures& figs) {
  std::string s = figures_html(figs, FigureKind::curves);
  if (const std::string maps = figures_html(figs, FigureKind::heatmap); !maps.empty())
    s += "<div class=\"grid\">\n" + maps + "</div>\n";
  for (const std::string& n : figs.notes) s += para(n, "note");
  if (s.empty()) s = para("no figure: nothing measured to draw");
  return section("figures", "Figures", s);
}

std::string presets_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  std::string s = figures_html(figs, FigureKind::presets);
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunDoc& run = runs[i].run;
    std::string body = kex_seed_text(run);
    for (const SeedTable& t : run.context.seed_tables) body += (body.empty() ? "" : "\n") + t.text;
    if (!body.empty()) s += run_heading(runs, i) + pre(body);
  }
  return s.empty() ? "" : section("presets", "Presets", s);
}

std::string segments_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  std::string s = figures_html(figs, FigureKind::segments);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].run.context.segments) continue;
    const std::string text = format_segment_summary(*runs[i].run.context.segments);
    if (!text.empty()) s += run_heading(runs, i) + pre(text);
  }
  return s.empty() ? "" : section("segments", "Segment-override loads", s);
}

/// Streams: per stream group the table (every competitor's ns per call, its time over the
/// fastest's and libc's with intervals, what the fixed sizes predict) and the figure of the
/// distribution's size CDF beside the times.
std::string streams_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].tune) {  // its members raced in unequal windows: the Workload section reads the race's last one
      if (!runs[i].tune->stream.empty())
        s += run_heading(runs, i) + para("a kex tune's file: the stream's times are in the Workload section, from the "
                                         "race's last window of paired rounds (a table of every member would rank "
                                         "candidates that left in earlier windows beside it)");
      continue;
    }
    if (const std::string t = trimmed(stream_table(runs[i].run, answer_groups(runs[i].run))); !t.empty())
      s += run_heading(runs, i) + pre(t);
  }
  s += figures_html(figs, FigureKind::streams);
  return s.empty() ? "" : section("streams", "Streams", s);
}

/// Why, for runs with an explain section or ceilings: the explain text (effects, the model
/// of the core, the counters or why there are none), the ceilings per level (each level's
/// size reported by the CPU or measured), the effects as bars with their
/// intervals and the roofline per op (the best entry per size against the ceilings).
std::string why_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i)
    if (const std::string text = explain_text(runs[i].run) + ceilings_text(runs[i].run); !text.empty())
      s += run_heading(runs, i) + pre(text);
  s += figures_html(figs, FigureKind::why);
  return s.empty() ? "" : section("why", "Why", s);
}

/// Every run after the first against the first (kex compare A B), with the ratio figures.
std::string comparison_section(const std::vector<ReportRun>& runs, const ReportFigures& figs) {
  if (runs.size() < 2) return "";
  std::string s;
  for (size_t i = 1; i < runs.size(); ++i) {
    s += "<h3>" + html_text(runs[i].file) + " against " + html_text(runs[0].file) + "</h3>\n";
    try {
      const Comparison c = compare_results(runs[0].run, runs[i].run);
      s += markdown_html(format_comparison_markdown(c, label(runs[0]), label(runs[i])));
    } catch (const InputError& e) {
      s += para(e.what(), "note");
    }
  }
  return section("comparison", "Comparison", s + figures_html(figs, FigureKind::ratio));
}

/// The contents: a link to each section the page has, by the id it carries.
std::string contents(const std::string& body) {
  static const std::vector<std::pair<const char*, const char*>> kSections = {
      {"answer", "Answer"}, {"workload", "Workload"}, {"machine", "Machine"}, {"summary", "Summary per group"}, {"noise", "Noise of the run"},
      {"streams", "Streams"}, {"findings", "What the data shows"}, {"why", "Why"}, {"figures", "Figures"}, {"presets", "Presets"},
      {"segments", "Segment-override loads"}, {"comparison", "Comparison"}};
  std::string s = "<nav>\n<ul>\n";
  for (const auto& [id, title] : kSections)
    if (body.find(std::string("<section id=\"") + id + "\"") != std::string::npos)
      s += std::string("<li><a href=\"#") + id + "\">" + title + "</a></li>\n";
  return s + "</ul>\n</nav>\n";
}

}  // namespace

std::string report_html(const std::vector<ReportRun>& runs, const ReportFigures& figures) {
  if (runs.empty()) throw std::logic_error("report_html: no run");
  const std::string body = answer_section(runs, figures) + workload_section(runs) + machine_section(runs) + summary_section(runs) +
                           noise_section(runs) + streams_section(runs, figures) + findings_section(runs) + why_section(runs, figures) +
                           figures_section(figures) + presets_section(runs, figures) +
                           segments_section(runs, figures) + comparison_section(runs, figures);
  std::string title = "kex report: " + run_label(runs[0].run.context);
  if (runs.size() > 1) title += " and " + std::to_string(runs.size() - 1) + " more";
  return std::string("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n") +
         "<meta http-equiv=\"Content-Security-Policy\" content=\"" + kPolicy + "\">\n" +
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + html_text(title) +
         "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n<h1>" + html_text(title) + "</h1>\n" +
         para("Written by kex " + std::string(kex_version()) +
              " from the results files below. GB/s = 1e9 bytes per second; bytes are counted once per byte copied or "
              "cleared.") +
         contents(body) + body + "</body>\n</html>\n";
}

}  // namespace kex
