#include "src/results/markdown.hpp"

#include <stdexcept>

#include "src/core/terminal_text.hpp"

namespace kex {

namespace {

bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/// Whether GitHub would read the '@' at t[i] as a mention (@name, @org/team: a letter or
/// digit after it, no letter, digit or _ before it) or as the middle of an email autolink
/// (a domain of letters, digits and - _ . with a '.' in it follows).
bool at_links(std::string_view t, size_t i) {
  const bool word_before = i > 0 && (ascii_alnum(t[i - 1]) || t[i - 1] == '_');
  if (!word_before && i + 1 < t.size() && ascii_alnum(t[i + 1])) return true;
  for (size_t k = i + 1; k < t.size() && (ascii_alnum(t[k]) || t[k] == '-' || t[k] == '_' || t[k] == '.'); ++k)
    if (t[k] == '.') return true;
  return false;
}

bool is_w(char c) { return c == 'w' || c == 'W'; }

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool word_char(char c) { return ascii_alnum(c) || c == '_'; }

/// Whether a run of at least 7 hex digits with a letter among them, a word of its own,
/// starts at t[i]: GitHub links it (and USER@SHA, OWNER/REPO@SHA) as a commit.
bool commit_like(std::string_view t, size_t i) {
  if (i > 0 && word_char(t[i - 1])) return false;
  size_t k = i;
  bool letter = false;
  for (; k < t.size() && is_hex(t[k]); ++k) letter = letter || !(t[k] >= '0' && t[k] <= '9');
  return k - i >= 7 && letter && (k == t.size() || !word_char(t[k]));
}

/// Whether ":name:" (an emoji shortcode GitHub shows as an image) opens at the ':' t[i].
bool shortcode_at(std::string_view t, size_t i) {
  size_t k = i + 1;
  while (k < t.size() && (ascii_alnum(t[k]) || t[k] == '_' || t[k] == '+' || t[k] == '-')) ++k;
  return k > i + 1 && k < t.size() && t[k] == ':';
}

/// Whether a word joiner goes before t[i] (it is shown as nothing): a GitHub trigger
/// would start at i or just before it: @name, #1, GH-1, scheme://, www (the joiner
/// before the third w, whatever follows, so that no cut of the text followed by "..."
/// (clip) leaves "www."), a commit SHA (after its first digit) and an emoji :shortcode:.
bool joiner_before(std::string_view t, size_t i) {
  if (i == 0) return false;
  const char p = t[i - 1], c = t[i];
  if ((p == '@' && at_links(t, i - 1)) || (p == '#' && ascii_alnum(c))) return true;
  if (c == '-' && i >= 2 && (t[i - 2] == 'G' || t[i - 2] == 'g') && (p == 'H' || p == 'h') && i + 1 < t.size() &&
      t[i + 1] >= '0' && t[i + 1] <= '9')
    return true;
  const bool www = i >= 2 && is_w(t[i - 2]) && is_w(p) && is_w(c);
  return (p == ':' && t.substr(i, 2) == "//") || www || commit_like(t, i - 1) || (p == ':' && shortcode_at(t, i - 1));
}

}  // namespace

std::string md_text(std::string_view raw) {
  static constexpr std::string_view kSyntax = "\\`*_[]<>|&~$";
  const std::string t = terminal_text(raw);
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (joiner_before(t, i)) out += kMdJoiner;
    if (kSyntax.find(t[i]) != std::string_view::npos) out += '\\';
    out += t[i];
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
