// Seed-table goldens (tests/golden/README.md): what each archive did to a program's
// output (docs/seed-kernels.md §1.5), and a mask for the measured numbers, so kex's
// --seed-exact text can be compared line by line with the seeds' own lines.
#pragma once
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace golden {

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

inline std::string read(const std::string& name) {
  std::ifstream in(std::string(KEX_SOURCE_DIR) + "/tests/golden/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A terminal's tab stops every 8 columns.
inline std::string expand(const std::string& l) {
  std::string o;
  for (char c : l) {
    if (c == '\t') do o += ' '; while (o.size() % 8);
    else o += c;
  }
  return o;
}

inline std::string rstrip(std::string l) {
  while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
  return l;
}

/// Pasted from a terminal: tabs expanded (the archives then kept or dropped trailing blanks).
inline std::vector<std::string> terminal(const std::vector<std::string>& in, bool keep_trailing) {
  std::vector<std::string> o;
  for (const auto& l : in) o.push_back(keep_trailing ? expand(l) : rstrip(expand(l)));
  return o;
}

/// Seed 000 (Thunderbird): pasted from a terminal, indented by 4 and hard-wrapped at 72
/// columns at the last blank that keeps a line within 72, the continuation indented too.
inline std::vector<std::string> thunderbird(const std::vector<std::string>& in) {
  std::vector<std::string> o;
  for (const auto& l : terminal(in, false)) {
    std::string rest = l.empty() ? l : "    " + l;
    while (rest.size() > 72) {
      const size_t cut = rest.rfind(' ', 72);
      if (cut == std::string::npos || cut <= 4) break;
      o.push_back(rstrip(rest.substr(0, cut)));
      rest = "    " + rest.substr(cut + 1);
    }
    o.push_back(rest);
  }
  return o;
}

/// Seed 001 (hypermail): runs of blanks collapsed to one, empty lines dropped.
inline std::vector<std::string> hypermail(const std::vector<std::string>& in) {
  std::vector<std::string> o;
  for (const auto& l : in) {
    std::string c;
    for (char ch : rstrip(l)) {
      const bool blank = ch == ' ' || ch == '\t';
      if (blank && (c.empty() || c.back() == ' ')) continue;
      c += blank ? ' ' : ch;
    }
    if (!c.empty()) o.push_back(c);
  }
  return o;
}

/// The measured numbers masked: "took N" (any padding), "(X MB/s)", "N.NNN MHz", "0x...".
/// Names, banners and the $Id's digits stay.
inline std::string mask(const std::string& l) {
  static const std::regex took("took +[0-9]+"), mbs("\\([0-9]+\\.[0-9] MB/s\\)"), mhz("^( *)[0-9]+\\.[0-9]{3} MHz"),
      hex("0x[0-9a-f]+");
  std::string m = std::regex_replace(l, took, "took #");
  m = std::regex_replace(m, mbs, "(# MB/s)");
  m = std::regex_replace(m, mhz, "$1# MHz");
  return std::regex_replace(m, hex, "0x#");
}

inline std::vector<std::string> mask(const std::vector<std::string>& in) {
  std::vector<std::string> o;
  for (const auto& l : in) o.push_back(mask(l));
  return o;
}

}  // namespace golden
