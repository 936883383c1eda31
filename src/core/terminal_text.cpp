#include "src/core/terminal_text.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace kex {

namespace {

/// A code point and the bytes of its UTF-8 sequence; len 0 when the sequence is invalid.
struct Decoded {
  char32_t cp = 0;
  size_t len = 0;
};

/// The UTF-8 sequence at s[i] (i < s.size()), checked as RFC 3629 defines it: no
/// overlong forms, no surrogates, nothing beyond U+10FFFF, no truncated sequence.
Decoded decode_utf8(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  size_t len = 0;
  char32_t cp = 0, min = 0;
  if ((b0 & 0xe0) == 0xc0) len = 2, cp = b0 & 0x1f, min = 0x80;
  else if ((b0 & 0xf0) == 0xe0) len = 3, cp = b0 & 0x0f, min = 0x800;
  else if ((b0 & 0xf8) == 0xf0) len = 4, cp = b0 & 0x07, min = 0x10000;
  else return {};
  if (len > s.size() - i) return {};
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return {};
    cp = cp << 6 | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {};
  return {cp, len};
}

/// Code points above ASCII that a terminal obeys instead of showing, or shows as
/// nothing: the C1 controls (0x9b is CSI on terminals that take 8-bit controls), the
/// bidirectional controls (they reorder what follows on screen), the line and paragraph
/// separators, and the invisible characters that can hide a difference between two names
/// or smuggle text past a reader: every format character (Unicode category Cf) but the
/// zero-width (non-)joiner, which scripts and emoji sequences need; the default-ignorable
/// fillers (the combining grapheme joiner, the Hangul fillers, the Khmer inherent vowels,
/// the Mongolian variation selectors, the variation selectors and their supplement); the
/// noncharacters; and the private-use planes (no font kex can name shows them).
bool escaped_above_ascii(char32_t cp) {
  struct Span {
    char32_t lo, hi;
  };
  static constexpr Span kHidden[] = {
      {0x80, 0x9f},       {0xad, 0xad},       {0x34f, 0x34f},     {0x600, 0x605},     {0x61c, 0x61c},
      {0x6dd, 0x6dd},     {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},     {0x115f, 0x1160},
      {0x17b4, 0x17b5},   {0x180b, 0x180f},   {0x200b, 0x200b},   {0x200e, 0x200f},   {0x2028, 0x202e},
      {0x2060, 0x206f},   {0x3164, 0x3164},   {0xe000, 0xf8ff},   {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
      {0xffa0, 0xffa0},   {0xfff0, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f},
      {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff}, {0xf0000, 0x10ffff}};
  if ((cp & 0xfffe) == 0xfffe) return true;  // U+FFFE, U+FFFF and their kin in every plane
  for (const Span& s : kHidden)
    if (cp >= s.lo && cp <= s.hi) return true;
  return false;
}

struct Range {
  char32_t lo, hi;
};

bool in(const Range* begin, const Range* end, char32_t cp) {
  const Range* r = std::upper_bound(begin, end, cp, [](char32_t c, const Range& x) { return c < x.lo; });
  return r != begin && cp <= (r - 1)->hi;
}

// Zero columns: the common combining blocks, zero-width characters, variation selectors
// (sorted, for the binary search).
constexpr Range kZeroWidth[] = {
    {0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x05bf, 0x05bf}, {0x05c1, 0x05c2}, {0x05c4, 0x05c5},
    {0x05c7, 0x05c7}, {0x0610, 0x061a}, {0x064b, 0x065f}, {0x0670, 0x0670}, {0x06d6, 0x06dc}, {0x06df, 0x06e4},
    {0x06e7, 0x06e8}, {0x06ea, 0x06ed}, {0x0900, 0x0902}, {0x093c, 0x093c}, {0x0941, 0x0948}, {0x094d, 0x094d},
    {0x0e31, 0x0e31}, {0x0e34, 0x0e3a}, {0x0e47, 0x0e4e}, {0x1160, 0x11ff}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff},
    {0x200b, 0x200f}, {0x2060, 0x2064}, {0x20d0, 0x20ff}, {0x302a, 0x302d}, {0x3099, 0x309a}, {0xfe00, 0xfe0f},
    {0xfe20, 0xfe2f}, {0xfeff, 0xfeff}, {0xe0100, 0xe01ef}};

// Two columns: East Asian wide and fullwidth (Unicode's EastAsianWidth W and F) and the
// emoji terminals draw two columns wide (sorted).
constexpr Range kWide[] = {
    {0x1100, 0x115f},   {0x231a, 0x231b},   {0x2329, 0x232a},   {0x23e9, 0x23ec},   {0x23f0, 0x23f0},
    {0x23f3, 0x23f3},   {0x25fd, 0x25fe},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267f, 0x267f},
    {0x2693, 0x2693},   {0x26a1, 0x26a1},   {0x26aa, 0x26ab},   {0x26bd, 0x26be},   {0x26c4, 0x26c5},
    {0x26ce, 0x26ce},   {0x26d4, 0x26d4},   {0x26ea, 0x26ea},   {0x26f2, 0x26f3},   {0x26f5, 0x26f5},
    {0x26fa, 0x26fa},   {0x26fd, 0x26fd},   {0x2705, 0x2705},   {0x270a, 0x270b},   {0x2728, 0x2728},
    {0x274c, 0x274c},   {0x274e, 0x274e},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
    {0x27b0, 0x27b0},   {0x27bf, 0x27bf},   {0x2b1b, 0x2b1c},   {0x2b50, 0x2b50},   {0x2b55, 0x2b55},
    {0x2e80, 0x303e},   {0x3041, 0x3098},   {0x309b, 0x33ff},   {0x3400, 0x4dbf},   {0x4e00, 0x9fff},
    {0xa000, 0xa4cf},   {0xa960, 0xa97f},   {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe10, 0xfe19},
    {0xfe30, 0xfe6f},   {0xff00, 0xff60},   {0xffe0, 0xffe6},   {0x16fe0, 0x16fe4}, {0x17000, 0x18aff},
    {0x1b000, 0x1b2ff}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a},
    {0x1f200, 0x1f251}, {0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff}, {0x1f7e0, 0x1f7eb}, {0x1f900, 0x1f9ff},
    {0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd}};

size_t columns_of(char32_t cp) {
  if (in(std::begin(kZeroWidth), std::end(kZeroWidth), cp)) return 0;
  return in(std::begin(kWide), std::end(kWide), cp) ? 2 : 1;
}

/// Each character of `text` with its bytes and columns, in order; an invalid byte is one
/// character of one column.
template <class F>
void for_each_char(std::string_view text, F&& f) {
  for (size_t i = 0; i < text.size();) {
    const Decoded d = decode_utf8(text, i);
    const size_t len = d.len ? d.len : 1;
    f(text.substr(i, len), d.len ? columns_of(d.cp) : 1);
    i += len;
  }
}

}  // namespace

std::string terminal_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  char esc[16];
  for (size_t i = 0; i < bytes.size();) {
    const Decoded d = decode_utf8(bytes, i);
    if (d.len == 0) {  // not UTF-8: the byte itself, visibly
      std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned char>(bytes[i]));
      out += esc;
      ++i;
      continue;
    }
    const char32_t c = d.cp;
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) std::snprintf(esc, sizeof esc, "\\x%02x", unsigned(c)), out += esc;
    else if (escaped_above_ascii(c) && c > 0xffff) std::snprintf(esc, sizeof esc, "\\U%08x", unsigned(c)), out += esc;
    else if (escaped_above_ascii(c)) std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c)), out += esc;
    else out.append(bytes.substr(i, d.len));
    i += d.len;
  }
  return out;
}

size_t display_width(std::string_view text) {
  size_t w = 0;
  for_each_char(text, [&](std::string_view, size_t cols) { w += cols; });
  return w;
}

std::string pad_right(std::string_view text, size_t width) {
  std::string out(text);
  const size_t w = display_width(text);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string clip(std::string_view text, size_t width) {
  if (display_width(text) <= width) return std::string(text);
  const size_t room = width < 3 ? 0 : width - 3;
  std::string out;
  size_t w = 0;
  bool full = false;
  for_each_char(text, [&](std::string_view ch, size_t cols) {
    full |= w + cols > room;
    if (full) return;
    out.append(ch);
    w += cols;
  });
  return out + "...";
}

std::string terminal_lines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    out += terminal_text(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (nl == std::string_view::npos) break;
    out += '\n';
    at = nl + 1;
  }
  return out;
}

std::string error_line(std::string_view message, size_t max_bytes) {
  const std::string line = terminal_text(message);
  if (line.size() <= max_bytes) return line;
  auto boundary = [&](size_t i) {  // back to the first byte of a UTF-8 character
    while (i > 0 && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  const size_t head = boundary(max_bytes / 2);
  const size_t tail = boundary(line.size() - max_bytes / 3);
  return line.substr(0, head) + " [... " + std::to_string(tail - head) + " bytes left out ...] " + line.substr(tail);
}

}  // namespace kex
