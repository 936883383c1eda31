#include "src/core/text_split.hpp"
#include "src/model/point.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace kex {

std::string_view to_string(CacheMode m) { return m == CacheMode::warm ? "warm" : "cold"; }

std::optional<CacheMode> parse_cache_mode(std::string_view s) {
  if (s == "warm") return CacheMode::warm;
  if (s == "cold") return CacheMode::cold;
  return std::nullopt;
}

std::string_view to_string(Harness h) {
  switch (h) {
    case Harness::kex: return "kex";
    case Harness::fastc: return "fastc";
    case Harness::hahn: return "hahn";
    case Harness::xmm64: return "xmm64";
    case Harness::mem_cp: return "mem_cp";
  }
  return "?";
}

std::optional<Harness> parse_harness(std::string_view s) {
  if (s == "kex") return Harness::kex;
  if (s == "fastc" || s == "fast.c") return Harness::fastc;
  if (s == "hahn" || s == "athlon.c") return Harness::hahn;
  if (s == "xmm64" || s == "xmm64.c") return Harness::xmm64;
  if (s == "mem_cp" || s == "mem_cp.c") return Harness::mem_cp;
  return std::nullopt;
}

namespace {

std::string hex_byte(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

bool all_digits(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

/// Decimal digits with an optional leading '-', no leading zeros, no '+': the
/// form point_name writes, so a name has one spelling.
int64_t parse_decimal(std::string_view token, std::string_view text, int64_t lo, int64_t hi) {
  std::string_view d = text;
  const bool neg = !d.empty() && d[0] == '-';
  if (neg) d.remove_prefix(1);
  if (!all_digits(d) || (d.size() > 1 && d[0] == '0') || (neg && d == "0"))
    throw std::invalid_argument("'" + std::string(token) + "': expected a decimal integer without leading zeros");
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
  const uint64_t limit = neg ? uint64_t(-(lo + 1)) + 1 : uint64_t(hi);
  if (ec != std::errc() || p != d.data() + d.size() || v > limit)
    throw std::invalid_argument("'" + std::string(token) + "' is out of range (allowed " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ")");
  const int64_t x = neg ? (v == uint64_t(1) << 63 ? INT64_MIN : -int64_t(v)) : int64_t(v);
  if (x < lo || x > hi)
    throw std::invalid_argument("'" + std::string(token) + "' is out of range (allowed " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ")");
  return x;
}

}  // namespace

std::string point_name(const Point& p) {
  const Coords& c = p.at;
  std::string n = p.kernel + "/" + std::to_string(c.size);
  if (c.layout.src_offset) n += "/src:" + std::to_string(c.layout.src_offset);
  if (c.layout.dst_offset) n += "/dst:" + std::to_string(c.layout.dst_offset);
  if (c.layout.distance) n += "/dist:" + std::to_string(*c.layout.distance);
  if (!c.layout.huge_pages) n += "/nohuge";
  if (c.chunk) n += "/chunk:" + std::to_string(c.chunk);
  if (c.prefill) n += "/prefill:" + hex_byte(*c.prefill);
  if (c.consume) n += "/consume";
  if (c.cache == CacheMode::cold) n += "/cold";
  if (c.threads != 1) n += "/threads:" + std::to_string(c.threads);
  if (c.harness != Harness::kex) n += "/harness:" + std::string(to_string(c.harness));
  if (c.pass != 1) n += "/pass:" + std::to_string(c.pass);
  return n;
}

namespace {

/// Coordinates after the size in point_name's order; each at most once.
constexpr const char* kCoordinateOrder[] = {"src",     "dst",     "dist",    "nohuge",  "chunk", "prefill",
                                            "consume", "cold",    "threads", "harness", "pass"};

/// prefill:0xNN's byte (two lower-case hex digits).
uint8_t prefill_value(std::string_view t, std::string_view val) {
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c)); };
  if (val.size() != 4 || val[0] != '0' || val[1] != 'x' || !hex(val[2]) || !hex(val[3]))
    throw std::invalid_argument("'" + std::string(t) + "': expected prefill:0xNN (two lower-case hex digits)");
  return static_cast<uint8_t>(std::stoi(std::string(val.substr(2)), nullptr, 16));
}

/// One coordinate token `t` (key `key`, value `val`) into `c`.
void apply_coordinate(Coords& c, std::string_view t, std::string_view key, std::string_view val) {
  if (key == "src") c.layout.src_offset = static_cast<uint64_t>(parse_decimal(t, val, 1, INT64_MAX));
  else if (key == "dst") c.layout.dst_offset = static_cast<uint64_t>(parse_decimal(t, val, 1, INT64_MAX));
  else if (key == "dist") c.layout.distance = parse_decimal(t, val, INT64_MIN, INT64_MAX);
  else if (key == "nohuge") c.layout.huge_pages = false;
  else if (key == "chunk") c.chunk = static_cast<uint64_t>(parse_decimal(t, val, 1, INT64_MAX));
  else if (key == "prefill") c.prefill = prefill_value(t, val);
  else if (key == "consume") c.consume = true;
  else if (key == "cold") c.cache = CacheMode::cold;
  else if (key == "threads") c.threads = static_cast<uint32_t>(parse_decimal(t, val, 2, kMaxThreads));
  else if (key == "harness") {
    auto h = parse_harness(val);
    if (!h || *h == Harness::kex || val != to_string(*h))
      throw std::invalid_argument("'" + std::string(t) + "': allowed harness:fastc, harness:hahn, harness:xmm64, harness:mem_cp");
    c.harness = *h;
  } else if (key == "pass") c.pass = static_cast<uint32_t>(parse_decimal(t, val, 2, 1000000));
}

}  // namespace

Point parse_point_name(std::string_view name) {
  const std::vector<std::string_view> tok = split_view(name, '/');
  size_t size_at = 0;
  while (size_at < tok.size() && !all_digits(tok[size_at])) ++size_at;
  if (size_at == 0 || size_at == tok.size())
    throw std::invalid_argument("point name '" + std::string(name) +
                                "' needs a kernel and then a size in bytes, e.g. copy/sse/unroll:64/scratch:4/t/fwd/4096");
  Point p;
  for (size_t i = 0; i < size_at; ++i) p.kernel += (i ? "/" : "") + std::string(tok[i]);
  p.at.size = static_cast<uint64_t>(parse_decimal(tok[size_at], tok[size_at], 0, INT64_MAX));
  size_t last = 0;
  for (size_t i = size_at + 1; i < tok.size(); ++i) {
    const std::string_view t = tok[i];
    const size_t colon = t.find(':');
    const std::string_view key = t.substr(0, colon);
    const std::string_view val = colon == std::string_view::npos ? std::string_view{} : t.substr(colon + 1);
    size_t k = 0;
    while (k < std::size(kCoordinateOrder) && key != kCoordinateOrder[k]) ++k;
    if (k == std::size(kCoordinateOrder))
      throw std::invalid_argument("unknown coordinate '" + std::string(t) + "' in point name '" + std::string(name) +
                                  "' (allowed after the size: src:N dst:N dist:N nohuge chunk:N prefill:0xNN consume cold "
                                  "threads:N harness:fastc|hahn|xmm64|mem_cp pass:N)");
    if (k + 1 <= last)
      throw std::invalid_argument("coordinate '" + std::string(t) + "' in point name '" + std::string(name) +
                                  "' is repeated or out of order (canonical order: src dst dist nohuge chunk prefill "
                                  "consume cold threads harness pass)");
    last = k + 1;
    const bool flag = key == "nohuge" || key == "consume" || key == "cold";
    if (flag != (colon == std::string_view::npos))
      throw std::invalid_argument("coordinate '" + std::string(t) + "' " +
                                  (flag ? "takes no value" : "needs a value, e.g. " + std::string(key) + ":64"));
    apply_coordinate(p.at, t, key, val);
  }
  return p;
}

}  // namespace kex
