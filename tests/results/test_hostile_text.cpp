// Text from a results file (host name, CPU model, kernel names, messages, the file's own
// name) reaches a terminal escaped and a spreadsheet as text, never as a formula: every
// writer that prints it, fed a synthetic run whose names carry an escape sequence that
// clears the screen, a newline with a forged row, a carriage return and a formula.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "src/core/terminal_text.hpp"
#include "src/model/result_json.hpp"
#include "src/results/compare.hpp"
#include "src/results/export.hpp"
#include "src/results/markdown.hpp"
#include "src/results/merge.hpp"
#include "src/results/results.hpp"
#include "src/results/summary.hpp"
#include "tests/support/seed_golden.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

const std::string kClear = "\x1b[2J";                                  // clears the screen
const std::string kForgedRow = "\nFORGED 1.00 1.00 1.0000 1/1 n/a  same";  // a newline and a row of its own
const std::string kReturn = "\rFORGED";                                 // back to the line's start
const std::string kCsi8 = "\xc2\x9b" "2J";                              // C1 CSI: 8-bit terminals clear too
const std::string kFormula = "=HYPERLINK(\"http://x.example/\",\"click\")";
const std::string kPayload = kClear + kForgedRow + kReturn + kCsi8;

const std::string kVictim = "copy/avx/unroll:128/scratch:4/t/fwd";  // the fastest copy at small sizes
const std::string kHostileKernel = kFormula + kPayload;
const std::string kWideKernel = "cópia/日本";  // two columns per CJK character

/// synth's sweep with hostile text wherever a results file carries text.
RunDoc hostile_run(synth::Options o = {}) {
  o.host = "evil" + kPayload;
  o.cpu = kFormula + " CPU" + kPayload;
  RunDoc d = synth::run(o);
  for (Result& r : d.results) {
    if (r.point.kernel == kVictim) r.point.kernel = kHostileKernel;
    if (r.point.kernel == "copy/sse/unroll:64/scratch:4/t/fwd") r.point.kernel = kWideKernel;
    if (r.status.kind == StatusKind::skipped) r.status.message = "-lacks avx512f" + kPayload;
  }
  return d;
}


/// No byte a terminal obeys (no control but the line ends, no DEL, valid UTF-8 without C1
/// controls: terminal_text leaves each line as it is; kex's own tabs where `tabs`), no
/// line a payload started, and the payload there, visibly escaped.
void check_terminal_safe(const std::string& out, bool tabs = false) {
  for (std::string line : golden::lines(out)) {
    if (tabs) std::erase(line, '\t');
    CHECK_MESSAGE(terminal_text(line) == line, line);
    CHECK_MESSAGE(line.rfind("FORGED", 0) == std::string::npos, line);
  }
  CHECK(out.find("\\x1b[2J\\nFORGED 1.00 1.00 1.0000 1/1 n/a  same\\rFORGED\\u009b2J") != std::string::npos);
}

/// The lines that begin with `prefix`.
std::vector<std::string> lines_starting(const std::string& out, const std::string& prefix) {
  std::vector<std::string> v;
  for (const auto& l : golden::lines(out))
    if (l.rfind(prefix, 0) == 0) v.push_back(l);
  return v;
}

}  // namespace

TEST_CASE("compare: host names, CPU models, file names and point names escaped - rows aligned by columns" *
          doctest::test_suite("text")) {
  synth::Options ob;
  ob.time_scale = 1.3;
  const RunDoc a = hostile_run(), b = hostile_run(ob);
  const Comparison c = compare_results(a, b);
  REQUIRE(c.rows.size() > 10);
  const std::string out = format_comparison(c, "a" + kPayload + ".json (" + run_label(a.context) + ")",
                                            "b.json (" + run_label(b.context) + ")");
  check_terminal_safe(out);
  CHECK(out.find("A: a\\x1b[2J\\nFORGED") == 0);
  CHECK(out.find("B: b.json (evil\\x1b[2J\\nFORGED") != std::string::npos);
  CHECK(out.find("=HYPERLINK(\"http://x.example/\",\"click\") CPU\\x1b[2J") != std::string::npos);
  // Every row starts with its escaped name padded to the widest name's columns, then the
  // first figure's 14 characters: the hostile and the wide names do not shift a column.
  size_t w = 0;
  for (const auto& r : c.rows) w = std::max(w, display_width(terminal_text(r.name)));
  CHECK(w == terminal_text(kHostileKernel + "/268435456").size());
  REQUIRE(lines_starting(out, pad_right("benchmark", w) + "   A median ns").size() == 1);
  size_t wide_rows = 0;
  for (const auto& r : c.rows) {
    const std::string name = pad_right(terminal_text(r.name), w);
    char figure[32];
    std::snprintf(figure, sizeof figure, " %13.2f", r.a_ns);
    CHECK_MESSAGE(lines_starting(out, name + figure).size() == 1, r.name);
    CHECK(display_width(name) == w);
    wide_rows += r.name.rfind(kWideKernel, 0) == 0;
  }
  CHECK(wide_rows == synth::sizes().size());
  CHECK(lines_starting(out, "summary: ").size() == 1);
}

namespace {

/// The `|` of a Markdown line that are not escaped (a cell's borders).
size_t bare_pipes(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') ++i;  // the escaped character
    else n += line[i] == '|';
  }
  return n;
}

/// Markdown with hostile names in it: no control or invisible character but md_text's
/// word joiners (kMdJoiner: deliberate, where GitHub would start a link), no HTML tag or
/// backtick, and every table row with exactly its header's cells.
void check_markdown_safe(const std::string& md) {
  for (const std::string& line : golden::lines(md)) {
    std::string no_joiner = line;
    for (size_t j; (j = no_joiner.find(kMdJoiner)) != std::string::npos;) no_joiner.erase(j, kMdJoiner.size());
    CHECK_MESSAGE(terminal_text(no_joiner) == no_joiner, line);
    CHECK_MESSAGE(line.rfind("FORGED", 0) == std::string::npos, line);
  }
  // The payload, visibly escaped for a terminal, then for Markdown.
  CHECK(md.find("\\\\x1b\\[2J\\\\nFORGED 1.00 1.00 1.0000 1/1 n/a  same\\\\rFORGED\\\\u009b2J") != std::string::npos);
  size_t cells = 0, rows = 0;
  for (size_t p = 0, e; p < md.size(); p = e + 1) {
    e = md.find('\n', p);
    const std::string line = md.substr(p, e - p);
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') { ++i; continue; }
      // No code span, and no HTML tag ("p < 0.01" is kex's own text).
      const bool tag = line[i] == '<' && i + 1 < line.size() && (std::isalpha(uint8_t(line[i + 1])) || line[i + 1] == '/');
      CHECK_MESSAGE((!tag && line[i] != '`'), line);
    }
    if (line.rfind("|", 0) != 0) {
      cells = 0;
      continue;
    }
    if (!cells) cells = bare_pipes(line);  // the header row
    CHECK_MESSAGE(bare_pipes(line) == cells, line);
    ++rows;
  }
  CHECK(rows > 3);
}

}  // namespace

TEST_CASE("markdown: compare and the summary keep hostile names inside their cells" * doctest::test_suite("text")) {
  synth::Options ob;
  ob.time_scale = 1.3;
  const RunDoc a = hostile_run(), b = hostile_run(ob);
  const std::string cmp = format_comparison_markdown(compare_results(a, b), "a" + kPayload + "|x`.json", "b.json");
  check_markdown_safe(cmp);
  CHECK(cmp.find("**A:** a\\\\x1b\\[2J\\\\nFORGED") == 0);
  CHECK(cmp.find("\\|x\\`.json") != std::string::npos);
  RunDoc run = hostile_run();
  for (Result& r : run.results)
    if (r.point.kernel == kHostileKernel) r.point.kernel += "|`<b>`|";
  const std::string sum = summary_markdown(run);
  check_markdown_safe(sum);
  CHECK(sum.find("\\|\\`\\<b\\>\\`\\|") != std::string::npos);
}

TEST_CASE("compare: a name longer than a row's buffer keeps its row whole" * doctest::test_suite("text")) {
  const std::string longer = "copy/" + std::string(600, 'x');
  RunDoc a = synth::run(), b = synth::run();
  for (RunDoc* d : {&a, &b})
    for (Result& r : d->results)
      if (r.point.kernel == kVictim) r.point.kernel = longer;
  const std::string out = format_comparison(compare_results(a, b), "a", "b");
  const auto rows = lines_starting(out, longer + "/");
  CHECK(rows.size() == synth::sizes().size());
  for (const auto& r : rows) CHECK_MESSAGE(r.size() > 650, r);
  for (const auto& r : rows) CHECK(r.substr(r.size() - 6) == "  same");
}

TEST_CASE("merge's machine table: CPU models, hosts and kernel names escaped - rows aligned by columns" *
          doctest::test_suite("text")) {
  synth::Options ob;
  ob.host = "beta";
  ob.cpu = "Synthetic CPU B";
  std::vector<std::string> warnings;
  const std::vector<RunDoc> m = merge_results({{"a.json", {hostile_run()}}, {"b.json", {synth::run(ob)}}}, &warnings);
  REQUIRE(m.size() == 2);
  for (bool per_point : {false, true}) {
    const std::string out = machine_table(m, "", per_point);
    check_terminal_safe(out);
    CHECK(out.find("  M1  =HYPERLINK(\"http://x.example/\",\"click\") CPU\\x1b[2J\\nFORGED") != std::string::npos);
    CHECK(out.find("      hosts: evil\\x1b[2J\\nFORGED") != std::string::npos);
    // Every row of the table is as wide as its header: the first column is padded by
    // display width (the wide name has more bytes than columns), the names escaped.
    const std::string head = per_point ? "benchmark" : "kernel";
    const auto heads = lines_starting(out, head);
    REQUIRE(heads.size() == 1);
    const std::vector<std::string> all = golden::lines(out);
    const auto at = std::find(all.begin(), all.end(), heads[0]);
    REQUIRE(all.end() - at > 10);
    for (auto it = at; it != all.end() && !it->empty(); ++it) CHECK_MESSAGE(display_width(*it) == display_width(heads[0]), *it);
    CHECK(!lines_starting(out, kWideKernel).empty());
    const auto hostile = lines_starting(out, terminal_text(kHostileKernel));
    CHECK(hostile.size() == (per_point ? synth::sizes().size() : 1));
  }
}

TEST_CASE("summary and layout tables: kernel names and skip reasons escaped - cut and padded by columns" *
          doctest::test_suite("text")) {
  RunDoc run = hostile_run();
  const size_t n = run.results.size();
  for (size_t i = 0; i < n; ++i)  // a layout sweep of the two odd names: src_offset 0 and 1
    if (run.results[i].point.kernel == kHostileKernel || run.results[i].point.kernel == kWideKernel) {
      Result r = run.results[i];
      r.point.at.layout.src_offset = 1;
      run.results.push_back(r);
    }
  const std::string summary = summary_table(run);
  check_terminal_safe(summary);
  CHECK(summary.find("1 point skipped: -lacks avx512f\\x1b[2J\\nFORGED") != std::string::npos);
  // Each block's rows are as wide as its header; the hostile name cut to 60 columns.
  const std::vector<std::string> all = golden::lines(summary);
  size_t rows = 0, hostile = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].find("fastest kernel") != 17) continue;  // a block's header: "%-16s fastest kernel ..."
    for (size_t k = i + 1; k < all.size() && !all[k].empty(); ++k, ++rows) {
      CHECK_MESSAGE(display_width(all[k]) == display_width(all[i]), all[k]);
      hostile += all[k].find(" " + clip(terminal_text(kHostileKernel), 60) + " ") != std::string::npos;
    }
  }
  CHECK(rows > 20);
  CHECK(hostile > 0);
  const std::string layout = layout_table(run);
  check_terminal_safe(layout);
  const std::vector<std::string> lt = golden::lines(layout);
  size_t checked = 0;
  for (size_t i = 0; i < lt.size(); ++i) {
    if (lt[i].rfind("kernel ", 0) != 0) continue;
    for (size_t k = i + 1; k < lt.size() && !lt[k].empty(); ++k, ++checked)
      CHECK_MESSAGE(display_width(lt[k]) == display_width(lt[i]), lt[k]);
  }
  CHECK(checked == 2 * synth::sizes().size());
}

TEST_CASE("CSV: a cell that begins with a formula character is quoted with a leading ' - numbers stay numbers" *
          doctest::test_suite("text")) {
  RunDoc run = hostile_run();
  for (Result& r : run.results)
    if (r.point.kernel == "memcpy" && r.point.at.size == 256) r.point.at.layout.distance = -64;
  const std::string csv = to_csv({run});
  // One record per line, no raw control byte in any (RFC 4180 quoting alone would keep
  // the newline and CR inside the quotes; a terminal showing the file would obey them).
  std::vector<std::string> records;
  for (size_t p = 0; p < csv.size();) {
    const size_t e = csv.find("\r\n", p);
    REQUIRE(e != std::string::npos);
    records.push_back(csv.substr(p, e - p));
    p = e + 2;
  }
  CHECK(records.size() == run.results.size() + 1);
  for (const auto& r : records) CHECK_MESSAGE(terminal_text(r) == r, r);
  const std::string kernel_cell =
      "\"'=HYPERLINK(\"\"http://x.example/\"\",\"\"click\"\")\\x1b[2J\\nFORGED 1.00 1.00 1.0000 1/1 n/a  same"
      "\\rFORGED\\u009b2J";
  CHECK(csv.find("\r\n" + kernel_cell + "/256\"," + kernel_cell + "\",generated,256,ok,,") != std::string::npos);
  CHECK(csv.find(",skipped,\"'-lacks avx512f\\x1b[2J\\nFORGED") != std::string::npos);
  // The negative distance is a number: no quote, no '.
  std::vector<std::string> header;
  for (size_t p = 0, e; p <= records[0].size(); p = e + 1) {
    e = records[0].find(',', p);
    if (e == std::string::npos) e = records[0].size();
    header.push_back(records[0].substr(p, e - p));
  }
  const size_t col = size_t(std::find(header.begin(), header.end(), "distance") - header.begin());
  REQUIRE(col < header.size());
  size_t found = 0;
  for (const auto& r : records)
    if (r.rfind("memcpy/256/dist:-64,", 0) == 0) {
      std::vector<std::string> cells;
      for (size_t p = 0, e; p <= r.size(); p = e + 1) {
        e = r.find(',', p);
        if (e == std::string::npos) e = r.size();
        cells.push_back(r.substr(p, e - p));
      }
      REQUIRE(cells.size() == header.size());
      CHECK(cells[col] == "-64");
      ++found;
    }
  CHECK(found == 1);
  // Several machines: the machine column (the CPU model) is text like any other.
  synth::Options ob;
  ob.cpu = "Synthetic CPU B";
  const std::string two = to_csv({run, synth::run(ob)});
  CHECK(two.find("\r\n\"'=HYPERLINK(\"\"http://x.example/\"\",\"\"click\"\") CPU\\x1b[2J") != std::string::npos);
  CHECK(two.find("\r\n\"Synthetic CPU B [26/2/1] L1d 48 KiB, L2 1 MiB, LLC 32 MiB\",") != std::string::npos);
}

TEST_CASE("CSV: a cell that begins with a fullwidth formula character is quoted with a leading ' too" *
          doctest::test_suite("text")) {
  for (const std::string lead : {"\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"}) {
    RunDoc run = hostile_run();
    for (Result& r : run.results)
      if (r.status.kind == StatusKind::skipped) r.status.message = lead + "SUM(A1)";
    CHECK_MESSAGE(to_csv({run}).find(",skipped,\"'" + lead + "SUM(A1)\"") != std::string::npos, lead);
  }
}

namespace {

/// kex with `args`: its exit status, stdout and stderr together.
ShellOut kex_cli(const std::string& args) { return shell(std::string(KEX_BINARY) + " " + args); }

/// A shell word for `s` (which holds no single quote).
std::string quoted(const std::string& s) {
  REQUIRE(s.find('\'') == std::string::npos);
  return "'" + s + "'";
}

}  // namespace

TEST_CASE("kex compare, merge, crossovers and export print a hostile file's text escaped" * doctest::test_suite("text")) {
  TmpDir d;
  synth::Options oa, ob;
  oa.host = "evil" + kPayload + "\nsummary: FORGED";
  oa.cpu = kFormula + " CPU" + kPayload;
  ob.time_scale = 1.3;
  ob.host = "beta";
  ob.cpu = "Synthetic CPU B";
  // The file's own name too (a '/' would be a directory: the payload without the row's "1/1").
  const std::string a = d / ("a" + kClear + "\nFORGED" + kReturn + kCsi8 + ".json"), b = d / "b.json";
  spit(a, synth::results(oa).dump());
  spit(b, synth::results(ob).dump());
  {
    const ShellOut r = kex_cli("compare " + quoted(a) + " " + b);
    CHECK(r.status == 0);
    check_terminal_safe(r.text);
    CHECK(r.text.find("A: " + d.path + "/a\\x1b[2J\\nFORGED") == 0);
  }
  {  // -q: from kex's own summary line, not from a host name's "summary: "
    const ShellOut r = kex_cli("compare -q " + quoted(a) + " " + b);
    CHECK(r.status == 0);
    CHECK(r.text.rfind("summary: ", 0) == 0);
    CHECK(std::isdigit(static_cast<unsigned char>(r.text[9])));
    CHECK(lines_starting(r.text, "summary: ").size() == 1);
  }
  {
    const ShellOut r = kex_cli("merge " + quoted(a) + " " + b + " -o " + d / "m.json");
    CHECK(r.status == 0);
    check_terminal_safe(r.text);
    CHECK(r.text.find("\nM1 evil\\x1b[2J\\nFORGED") != std::string::npos);
  }
  {  // a warning that names the files
    nlohmann::json other = synth::results(ob);
    other["context"]["config"] = {{{"source", "x.json"}, {"config", {{"sizes", {4096}}}}}};
    spit(d / "c.json", other.dump());
    const ShellOut r = kex_cli("merge -q " + quoted(a) + " " + d / "c.json" + " -o " + d / "m3.json");
    CHECK(r.status == 0);
    CHECK(r.text == "kex: warning: " + d.path + "/a\\x1b[2J\\nFORGED\\rFORGED\\u009b2J.json and " + d / "c.json" +
                        " were run from different configs\n");
  }
  {
    const ShellOut r = kex_cli("crossovers " + quoted(a));
    CHECK(r.status == 0);
    check_terminal_safe(r.text);
    CHECK(r.text.find(d.path + "/a\\x1b[2J\\nFORGED\\rFORGED\\u009b2J.json: evil\\x1b[2J") == 0);
  }
  {
    const ShellOut r = kex_cli("export " + quoted(a) + " --format csv -o -");
    CHECK(r.status == 0);
    std::string text = r.text;
    for (size_t p; (p = text.find("\r\n")) != std::string::npos;) text.replace(p, 2, "\n");
    for (const auto& line : golden::lines(text)) CHECK_MESSAGE(terminal_text(line) == line, line);
  }
  {  // an error line that quotes the file's host name: kex's one_line escapes it too
    spit(d / "copy.json", slurp(a));
    const ShellOut r = kex_cli("merge " + quoted(a) + " " + d / "copy.json" + " -o " + d / "m2.json");
    CHECK(r.status == 2);
    CHECK(golden::lines(r.text).size() == 1);
    CHECK(terminal_text(golden::lines(r.text)[0]) == golden::lines(r.text)[0]);
    CHECK(r.text.find("(host evil\\x1b[2J\\nFORGED 1.00 1.00 1.0000 1/1 n/a  same\\rFORGED\\u009b2J\\nsummary: FORGED, ") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(d / "m2.json"));
  }
}
