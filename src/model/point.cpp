#include "src/core/text_split.hpp"
#include "src/model/point.hpp"

#include <stdexcept>

#include "src/model/point_tokens.hpp"

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

std::string point_name(const Point& p) {
  std::string n = p.kernel + "/" + std::to_string(p.at.size);
  for (const PointToken& t : point_tokens()) {
    const std::string v = token_text(t, p.at);
    if (v != t.default_text) n += "/" + std::string(t.key) + (t.flag ? "" : ":" + v);
  }
  return n;
}

Point parse_point_name(std::string_view name) {
  const std::vector<std::string_view> tok = split_view(name, '/');
  size_t size_at = 0;
  while (size_at < tok.size() && !decimal_digits(tok[size_at])) ++size_at;
  if (size_at == 0 || size_at == tok.size())
    throw std::invalid_argument("point name '" + std::string(name) +
                                "' needs a kernel and then a size in bytes, e.g. copy/sse/unroll:64/scratch:4/t/fwd/4096");
  Point p;
  for (size_t i = 0; i < size_at; ++i) p.kernel += (i ? "/" : "") + std::string(tok[i]);
  p.at.size = static_cast<uint64_t>(parse_name_decimal(tok[size_at], tok[size_at], 0, INT64_MAX));
  const std::vector<PointToken>& tokens = point_tokens();
  size_t last = 0;
  for (size_t i = size_at + 1; i < tok.size(); ++i) {
    const std::string_view t = tok[i];
    const size_t colon = t.find(':');
    const std::string_view key = t.substr(0, colon);
    const std::string_view val = colon == std::string_view::npos ? std::string_view{} : t.substr(colon + 1);
    size_t k = 0;
    while (k < tokens.size() && key != tokens[k].key) ++k;
    if (k == tokens.size())
      throw std::invalid_argument("unknown coordinate '" + std::string(t) + "' in point name '" + std::string(name) +
                                  "' (allowed after the size: " + point_token_forms() + ")");
    if (k + 1 <= last)
      throw std::invalid_argument("coordinate '" + std::string(t) + "' in point name '" + std::string(name) +
                                  "' is repeated or out of order (canonical order: " + point_token_keys() + ")");
    last = k + 1;
    const bool flag = tokens[k].flag;
    if (flag != (colon == std::string_view::npos))
      throw std::invalid_argument("coordinate '" + std::string(t) + "' " +
                                  (flag ? "takes no value" : "needs a value, e.g. " + std::string(key) + ":64"));
    tokens[k].parse(p.at, t, val);
  }
  return p;
}

}  // namespace kex
