#include "src/results/gnuplot_text.hpp"

#include <cstdio>

#include <sstream>

#include <cstring>

#include "src/core/terminal_text.hpp"

namespace kex {

namespace {

bool plain(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c != 0 && std::strchr(" _-.,:;/()[]{}+=%<>*'!?~^|&@#", c) != nullptr;
}

}  // namespace

std::string gp_string(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (plain(c)) {
      out += char(c);
      continue;
    }
    const char oct[5] = {'\\', char('0' + (c >> 6)), char('0' + ((c >> 3) & 7)), char('0' + (c & 7)), 0};
    out += oct;
  }
  return out + "\"";
}

std::string gp_label(std::string_view text) {
  std::string shown;
  for (size_t from = 0;;) {
    const size_t nl = text.find('\n', from);
    shown += terminal_text(text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from));
    if (nl == std::string_view::npos) break;
    shown += '\n';
    from = nl + 1;
  }
  return gp_string(shown);
}

std::string gp_comment(std::string_view text) {
  std::string out;
  for (unsigned char c : text) out += c < 0x20 || c >= 0x7f || c == '`' ? '?' : char(c);
  return out;
}

std::string dat_string(std::string_view text) {
  std::string out = "\"";
  for (char c : terminal_text(text)) out += c == '"' ? '\'' : c;
  return out + "\"";
}


std::string gp_terminal(const std::string& base, int w, int h) {
  std::ostringstream o;
  o << "# Render: gnuplot " << base << ".gp   (writes " << base << ".png)\n"
    << "#         gnuplot -e 'fmt=\"svg\"' " << base << ".gp   (writes " << base << ".svg)\n"
    << "if (!exists(\"fmt\")) fmt = \"png\"\n"
    << "if (!exists(\"out\")) out = " << gp_string(base + ".") << " . fmt\n"
    << "if (fmt eq \"svg\") {\n"
    << "  set terminal svg size " << w << "," << h << " dynamic noenhanced font \"Sans,13\" background rgb \"white\"\n"
    << "} else {\n"
    << "  set terminal pngcairo size " << w << "," << h << " noenhanced font \"Sans,11\" background rgb \"white\"\n"
    << "}\n"
    << "set output out\n"
    << "set encoding utf8\n";
  return o.str();
}

std::string gp_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string file_stem(const std::string& name, size_t most) {
  std::string s;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) s += c;
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  s = s.substr(0, most);
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

const char* gp_color(size_t i) {
  static const char* const colors[kGpColors] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                                       "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f", "#393b79", "#637939"};
  return colors[i % kGpColors];
}

}  // namespace kex
