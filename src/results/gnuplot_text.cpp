#include "src/results/gnuplot_text.hpp"

#include <cstring>

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

std::string gp_comment(std::string_view text) {
  std::string out;
  for (unsigned char c : text) out += c < 0x20 || c >= 0x7f || c == '`' ? '?' : char(c);
  return out;
}

std::string dat_string(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) out += c == '"' ? '\'' : c < 0x20 || c == 0x7f ? '?' : char(c);
  return out + "\"";
}

}  // namespace kex
