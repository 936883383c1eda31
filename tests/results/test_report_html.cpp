// The HTML report (src/results/report_html.*, report_figures.*): its sections from the
// other writers, its escaping, and what an inlined figure may hold.
#include <doctest/doctest.h>

#include <regex>

#include "src/core/version.hpp"
#include "src/results/html_text.hpp"
#include "src/results/plot.hpp"
#include "src/results/report_figures.hpp"
#include "src/results/report_html.hpp"
#include "src/results/summary.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

size_t html_count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = 0; (i = s.find(what, i)) != std::string::npos; i += what.size()) ++n;
  return n;
}

const std::string kSvg =
    "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n<svg \n viewBox=\"0 0 600 480\"\n"
    " xmlns=\"http://www.w3.org/2000/svg\">\n<defs><path id='gpPt0' d='M0,0'/></defs>\n"
    "<use xlink:href='#gpPt0'/><g id=\"gnuplot_canvas\" fill=\"url(#gpFill)\"><text>&lt;b> \"q\"</text></g>\n</svg>\n";

}  // namespace

TEST_CASE("inline_svg: gnuplot's SVG without its XML declaration, ids prefixed, sized, anything active refused" *
          doctest::test_suite("html")) {
  const std::string s = inline_svg(kSvg, "f2-");
  CHECK(s.starts_with("<svg style=\"max-width:600px\" \n viewBox=\"0 0 600 480\""));
  CHECK(s.ends_with("</svg>"));
  CHECK(s.find("id='f2-gpPt0'") != std::string::npos);
  CHECK(s.find("xlink:href='#f2-gpPt0'") != std::string::npos);
  CHECK(s.find("id=\"f2-gnuplot_canvas\"") != std::string::npos);
  CHECK(s.find("url(#f2-gpFill)") != std::string::npos);
  CHECK(s.find("<text>&lt;b> \"q\"</text>") != std::string::npos);
  // Text between tags (a host name in a title) is not rewritten, only the tags' attributes.
  const std::string host = "lab id=\"x\" url(#y) href=\"#z\" id='w'";
  const std::string t = inline_svg("<svg viewBox=\"0 0 1 1\"><g id='a'><text>" + host + "</text></g></svg>", "f1-");
  CHECK(t.find("<text>" + host + "</text>") != std::string::npos);
  CHECK(t.find("<g id='f1-a'>") != std::string::npos);
  auto with = [](const std::string& part) { return "<svg viewBox=\"0 0 1 1\">" + part + "</svg>"; };
  CHECK(inline_svg(with("<image xlink:href='data:image/png;base64,iVBO'/>"), "f-") != "");
  for (const std::string bad : {"<script>alert(1)</script>", "<SCRIPT/>", "<g onload='x()'/>", "<rect OnClick=\"x\"/>",
                                "<foreignObject><p>x</p></foreignObject>", "<image xlink:href='http://x/y.png'/>",
                                "<use href=\"other.svg#a\"/>", "<a href='#x'>x</a>", "<set attributeName='x'/>",
                                "<g style='x:javascript:y'/>"})
    CHECK_MESSAGE(inline_svg(with(bad), "f-") == "", bad);
  CHECK(inline_svg("no svg here", "f-") == "");
}

TEST_CASE("report_html: every section from the other writers, in-page links to ids that exist, no script" *
          doctest::test_suite("html")) {
  const RunDoc run = golden::with_readings(golden::repeated(golden::run(), 3), {100, 101, 99, 102, 130, 100},
                                           {400, 410, 395, 405, 600, 402}, {false, false, false, false, true, false},
                                           56, 8);
  ReportFigures figs;
  figs.figures.push_back({"copy-warm", "<svg viewBox=\"0 0 1 1\"></svg>"});
  figs.figures.push_back({"presets-copy", "<svg viewBox=\"0 0 2 2\"></svg>"});
  figs.notes.push_back("heatmap-1: left out: <why>");
  const std::string page = report_html({{"a.json", run}}, figs);
  CHECK(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                         "style-src 'unsafe-inline'; img-src data:\">"));
  CHECK(page.ends_with("</body>\n</html>\n"));
  CHECK(html_count(page, "<script") == 0);
  for (const char* id : {"machine", "summary", "noise", "findings", "figures", "presets"}) {
    CAPTURE(id);
    CHECK(html_count(page, std::string("<section id=\"") + id + "\">") == 1);
    CHECK(html_count(page, std::string("<a href=\"#") + id + "\">") == 1);
  }
  CHECK(html_count(page, "<section id=\"comparison\"") == 0);  // one run: nothing to compare
  CHECK(html_count(page, "<a href=\"#comparison\"") == 0);
  // The figures in their sections, the note escaped.
  CHECK(page.find("<svg viewBox=\"0 0 1 1\"></svg>\n<figcaption>copy-warm</figcaption>") != std::string::npos);
  CHECK(page.find("<section id=\"presets\">\n<h2>Presets</h2>\n<figure>\n<svg viewBox=\"0 0 2 2\">") != std::string::npos);
  CHECK(page.find("heatmap-1: left out: &lt;why&gt;") != std::string::npos);
  // The summary of summary_markdown, the noise line of noise_summary, the findings: as those writers made them.
  const std::string md = summary_markdown(run);
  REQUIRE(!md.empty());
  CHECK(page.find("<section id=\"summary\">\n<h2>Summary per group</h2>\n" + markdown_html(md)) != std::string::npos);
  CHECK(page.find("<th>fastest kernel</th>") != std::string::npos);
  const std::string noise = noise_summary(run);
  REQUIRE(noise.starts_with("\nnoise: "));
  CHECK(page.find("<p>" + html_text(noise.substr(1, noise.size() - 2)) + "</p>") != std::string::npos);
}

TEST_CASE("report_html: a hostile host and CPU come out as text, and two runs add the comparison" *
          doctest::test_suite("html")) {
  RunDoc a = golden::repeated(golden::run(), 3), b = a;
  b.context.host_name = "<script>alert(1)</script>\" onmouseover=\"x`touch pwned`";
  b.context.machine.cpu_model = "<img src=x onerror=alert(2)>";
  const std::string page = report_html({{"a.json", a}, {"<b>.json", b}}, {});
  CHECK(html_count(page, "<script") == 0);
  CHECK(html_count(page, "<img") == 0);
  CHECK(html_count(page, "<b>") == 0);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x&#96;touch pwned&#96;") !=
        std::string::npos);
  CHECK(html_count(page, "<section id=\"comparison\">") == 1);
  CHECK(page.find("<h3>&lt;b&gt;.json against a.json</h3>") != std::string::npos);
  CHECK(page.find("<th>verdict</th>") != std::string::npos);
  // Every href is an in-page link to an id the page has.
  const std::regex href("href=\"#([^\"]*)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), href); it != std::sregex_iterator(); ++it)
    CHECK_MESSAGE(page.find("id=\"" + (*it)[1].str() + "\"") != std::string::npos, (*it)[1].str());
}

TEST_CASE("golden: the report page of the fixed run, each figure's drawing a placeholder, kex's version masked" *
          doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  PlotOptions o;
  o.render = false;
  ReportFigures figs;  // the plot writer's figures in its order; gnuplot's SVG differs by its version
  for (const PlotFigure& f : plot_figures({run}, o)) figs.figures.push_back({f.base, "<svg><!-- " + f.base + " --></svg>"});
  figs.notes.push_back("a note on a figure left out");
  std::string page = report_html({{"run.json", run}}, figs);
  const std::string written = "Written by kex " + std::string(kex_version()) + " ";  // the binary's; the run's stays
  REQUIRE(page.find(written) != std::string::npos);
  page.replace(page.find(written), written.size(), "Written by kex VERSION ");
  CHECK(golden::check("report.html", page) == "");
}
