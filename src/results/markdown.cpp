#include "src/results/markdown.hpp"

#include <stdexcept>

#include "src/core/terminal_text.hpp"

namespace kex {

std::string md_text(std::string_view raw) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>|&~$";
  std::string out;
  for (char c : terminal_text(raw)) {
    if (kSyntax.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

namespace {

/// "| a | b |\n".
std::string md_row(const std::vector<std::string>& cells, size_t columns) {
  if (cells.size() > columns) throw std::logic_error("md_table: a row has more cells than the header");
  std::string s = "|";
  for (size_t i = 0; i < columns; ++i) s += " " + (i < cells.size() ? cells[i] : std::string()) + " |";
  return s + "\n";
}

}  // namespace

std::string md_table(const std::vector<std::string>& header, std::string_view align,
                     const std::vector<std::vector<std::string>>& rows) {
  if (align.size() != header.size()) throw std::logic_error("md_table: one alignment per column");
  std::string s = md_row(header, header.size()) + "|";
  for (char a : align) s += a == 'r' ? " ---: |" : " :--- |";
  s += "\n";
  for (const auto& r : rows) s += md_row(r, header.size());
  return s;
}

}  // namespace kex
