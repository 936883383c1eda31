#include "src/results/report_figures.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/results/plot.hpp"
#include "src/results/render.hpp"

namespace kex {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Whether one tag's text (between < and >) is safe to inline: no element that runs or
/// loads, no event handler, no reference out of the figure.
bool safe_tag(std::string_view tag) {
  const std::string t = lower(tag);
  const size_t from = t.starts_with('/') ? 1 : 0;
  const size_t to = std::min(t.find_first_of(" \t\r\n/>", from), t.size());
  const std::string name = t.substr(from, to - from);
  for (const char* bad : {"script", "foreignobject", "iframe", "a", "object", "embed", "animate", "set", "handler"})
    if (name == bad) return false;
  for (size_t i = 0; (i = t.find('=', i)) != std::string::npos; ++i) {
    size_t b = i;
    while (b > 0 && !std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
    const std::string attr = t.substr(b, i - b);
    const std::string_view value = std::string_view(t).substr(std::min(i + 2, t.size()));
    if (attr.starts_with("on")) return false;
    if (attr.ends_with("href") && !value.starts_with("#") && !value.starts_with("data:image/png;base64,")) return false;
  }
  return t.find("javascript:") == std::string::npos;
}

/// Every occurrence of `from` in `s` replaced by `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t i = 0; (i = s.find(from, i)) != std::string::npos; i += to.size()) s.replace(i, from.size(), to);
}

/// The width of a viewBox="0 0 W H" attribute, "" without one.
std::string viewbox_width(const std::string& svg_tag) {
  const size_t v = svg_tag.find("viewBox=\"");
  if (v == std::string::npos) return "";
  std::string box = svg_tag.substr(v + 9, svg_tag.find('"', v + 9) - v - 9);
  size_t field = 0, i = 0;
  while (field < 2 && (i = box.find(' ', i)) != std::string::npos) ++field, ++i;
  if (field < 2) return "";
  const std::string w = box.substr(i, box.find(' ', i) - i);
  return w.find_first_not_of("0123456789.") == std::string::npos && !w.empty() ? w : "";
}

}  // namespace

std::string inline_svg(const std::string& svg, const std::string& prefix) {
  const size_t start = svg.find("<svg"), end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos || end < start) return "";
  std::string s = svg.substr(start, end + 6 - start);
  for (size_t i = 0; (i = s.find('<', i)) != std::string::npos;) {
    const size_t close = s.find('>', i);
    if (close == std::string::npos || !safe_tag(std::string_view(s).substr(i + 1, close - i - 1))) return "";
    i = close;
  }
  for (const char q : {'\'', '"'}) {
    replace_all(s, std::string("id=") + q, std::string("id=") + q + prefix);
    replace_all(s, std::string("href=") + q + "#", std::string("href=") + q + "#" + prefix);
  }
  replace_all(s, "url(#", "url(#" + prefix);
  const size_t tag_end = s.find('>');
  if (const std::string w = viewbox_width(s.substr(0, tag_end)); !w.empty())
    s.insert(4, " style=\"max-width:" + w + "px\"");
  return s;
}

namespace {

/// A fresh private folder under $TMPDIR (or /tmp), made with mkdtemp.
std::string temp_folder() {
  const char* t = std::getenv("TMPDIR");
  std::string templ = std::string(t && *t == '/' ? t : "/tmp") + "/kex-report-XXXXXX";
  if (!mkdtemp(templ.data())) throw InputError(templ + ": cannot make a temporary folder for the figures");
  return templ;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

ReportFigures render_report_figures(const std::vector<RunDoc>& runs) {
  ReportFigures out;
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    out.notes.push_back("gnuplot is not installed (Debian: apt-get install gnuplot-nox): the page has no figures; "
                        "kex plot writes their data and scripts");
    return out;
  }
  PlotOptions po;
  po.render = false;
  po.ratio = runs.size() > 1;
  std::vector<PlotFigure> figures;
  try {
    figures = plot_figures(runs, po);
  } catch (const InputError& e) {
    out.notes.push_back(std::string("no figures: ") + e.what());
    return out;
  }
  const std::string dir = temp_folder();
  for (size_t i = 0; i < figures.size(); ++i) {
    const PlotFigure& f = figures[i];
    try {
      write_file_atomic(dir + "/" + f.base + ".dat", f.dat, false);
      write_file_atomic(dir + "/" + f.base + ".gp", f.gp, false);
      render_figure(gnuplot, dir, f.base + ".gp", "svg", f.base + ".svg", false);
      std::string svg = inline_svg(read_all(dir + "/" + f.base + ".svg"), "f" + std::to_string(i + 1) + "-");
      if (svg.empty()) out.notes.push_back(f.base + ": left out: gnuplot's SVG held an element kex does not inline");
      else out.figures.push_back({f.base, std::move(svg)});
    } catch (const InputError& e) {
      out.notes.push_back(f.base + ": left out: " + e.what());
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

}  // namespace kex
