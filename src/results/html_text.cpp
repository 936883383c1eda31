#include "src/results/html_text.hpp"

#include <vector>

#include "src/core/terminal_text.hpp"
#include "src/results/markdown.hpp"

namespace kex {

std::string html_text(std::string_view raw) {
  std::string text;  // terminal_lines with the tabs kept (a seed table aligns by them)
  for (size_t tab; (tab = raw.find('\t')) != std::string_view::npos; raw.remove_prefix(tab + 1))
    text += terminal_lines(raw.substr(0, tab)) + '\t';
  text += terminal_lines(raw);
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '`': out += "&#96;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

/// One line of kex's Markdown as HTML: \X is the character X, ** opens or closes <strong>,
/// md_text's word joiners are dropped.
std::string inline_html(std::string_view md) {
  std::string text, out;
  bool strong = false;
  for (size_t i = 0; i < md.size(); ++i) {
    if (md.substr(i, kMdJoiner.size()) == kMdJoiner) {
      i += kMdJoiner.size() - 1;
    } else if (md[i] == '\\' && i + 1 < md.size()) {
      text += md[++i];
    } else if (md.substr(i, 2) == "**") {
      out += html_text(text) + (strong ? "</strong>" : "<strong>");
      text.clear();
      strong = !strong;
      ++i;
    } else {
      text += md[i];
    }
  }
  return out + html_text(text) + (strong ? "</strong>" : "");
}

/// The cells of a table row "| a | b\| c |": split at the | no backslash escapes.
std::vector<std::string> row_cells(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell += line.substr(i, 2);
      ++i;
    } else if (line[i] == '|') {
      const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

/// A table of md_table's lines: the header, the alignment row, the body rows.
std::string table_html(const std::vector<std::string_view>& lines) {
  const std::vector<std::string> head = row_cells(lines[0]);
  std::vector<bool> right;
  for (const std::string& a : row_cells(lines.size() > 1 ? lines[1] : "")) right.push_back(a.ends_with(':') && !a.starts_with(':'));
  auto row = [&](const std::vector<std::string>& cells, const char* tag) {
    std::string s = "<tr>";
    for (size_t i = 0; i < cells.size(); ++i)
      s += std::string("<") + tag + (i < right.size() && right[i] ? " class=\"r\">" : ">") + inline_html(cells[i]) +
           "</" + tag + ">";
    return s + "</tr>\n";
  };
  std::string s = "<table>\n<thead>" + row(head, "th") + "</thead>\n<tbody>\n";
  for (size_t i = 2; i < lines.size(); ++i) s += row(row_cells(lines[i]), "td");
  return s + "</tbody>\n</table>\n";
}

/// A paragraph's lines: a line ending in two spaces breaks, others join with a space.
std::string paragraph_html(const std::vector<std::string_view>& lines) {
  std::string s = "<p>";
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    const bool brk = l.ends_with("  ");
    while (!l.empty() && l.back() == ' ') l.remove_suffix(1);
    s += inline_html(l);
    if (i + 1 < lines.size()) s += brk ? "<br>\n" : "\n";
  }
  return s + "</p>\n";
}

}  // namespace

std::string markdown_html(std::string_view md) {
  std::string out;
  std::vector<std::string_view> block;
  auto flush = [&] {
    if (block.empty()) return;
    out += block[0].starts_with("|") ? table_html(block) : paragraph_html(block);
    block.clear();
  };
  while (!md.empty()) {
    const size_t nl = md.find('\n');
    const std::string_view line = md.substr(0, nl);
    md.remove_prefix(nl == std::string_view::npos ? md.size() : nl + 1);
    if (line.find_first_not_of(' ') == std::string_view::npos) {
      flush();
    } else {
      if (!block.empty() && block[0].starts_with("|") != line.starts_with("|")) flush();
      block.push_back(line);
    }
  }
  flush();
  return out;
}

}  // namespace kex
