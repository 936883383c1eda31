// The point name's token table: each coordinate's key, form, text and parser.
#include "src/model/point_tokens.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace kex {

bool decimal_digits(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

int64_t parse_name_decimal(std::string_view token, std::string_view text, int64_t lo, int64_t hi) {
  std::string_view d = text;
  const bool neg = !d.empty() && d[0] == '-';
  if (neg) d.remove_prefix(1);
  if (!decimal_digits(d) || (d.size() > 1 && d[0] == '0') || (neg && d == "0"))
    throw std::invalid_argument("'" + std::string(token) + "': expected a decimal integer without leading zeros");
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
  const uint64_t limit = neg ? uint64_t(-(lo + 1)) + 1 : uint64_t(hi);
  auto out_of_range = [&] {
    return std::invalid_argument("'" + std::string(token) + "' is out of range (allowed " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ")");
  };
  if (ec != std::errc() || p != d.data() + d.size() || v > limit) throw out_of_range();
  const int64_t x = neg ? (v == uint64_t(1) << 63 ? INT64_MIN : -int64_t(v)) : int64_t(v);
  if (x < lo || x > hi) throw out_of_range();
  return x;
}

namespace {

/// prefill:0xNN's byte (two lower-case hex digits).
uint8_t prefill_token_value(std::string_view t, std::string_view val) {
  auto hex = [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c));
  };
  if (val.size() != 4 || val[0] != '0' || val[1] != 'x' || !hex(val[2]) || !hex(val[3]))
    throw std::invalid_argument("'" + std::string(t) + "': expected prefill:0xNN (two lower-case hex digits)");
  return static_cast<uint8_t>(std::stoi(std::string(val.substr(2)), nullptr, 16));
}

/// The seed harnesses a name may give (kex is the default, so never a token), each as
/// "harness:<word>" joined by `sep`.
std::string seed_harness_tokens(std::string_view sep, bool key_each) {
  std::string out;
  for (Harness h : kHarnesses)
    if (h != Harness::kex)
      out += (out.empty() ? "harness:" : std::string(sep) + (key_each ? "harness:" : "")) + std::string(to_string(h));
  return out;
}

void parse_harness_token(Coords& c, std::string_view t, std::string_view val) {
  const auto h = parse_harness(val);
  if (!h || *h == Harness::kex || val != to_string(*h))  // one spelling: no file names ("fast.c")
    throw std::invalid_argument("'" + std::string(t) + "': allowed " + seed_harness_tokens(", ", true));
  c.harness = *h;
}

/// stream:NAME: 1 to 64 letters, digits, _ and -, not starting with '-'.
void parse_stream_token(Coords& c, std::string_view t, std::string_view val) {
  const bool ok = !val.empty() && val.size() <= 64 && val[0] != '-' &&
                  std::all_of(val.begin(), val.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-'; });
  if (!ok) throw std::invalid_argument("'" + std::string(t) + "': expected stream:NAME (1..64 letters, digits, _ and -)");
  c.stream = std::string(val);
}

/// A positive offset of bytes (0 is the default, never written).
uint64_t offset_token(std::string_view t, std::string_view val) {
  return static_cast<uint64_t>(parse_name_decimal(t, val, 1, INT64_MAX));
}

std::vector<PointToken> make_point_tokens() {
  using V = std::string_view;
  return {
      {Axis::stream, "stream", false, "stream:NAME", nullptr, parse_stream_token},
      {Axis::footprint, "footprint", false, "footprint:N", nullptr,
       [](Coords& c, V t, V v) { c.footprint = offset_token(t, v); }},
      // A stream's seed and calls per pass: not axes of their own (a stream's coordinates).
      {std::nullopt, "seed", false, "seed:N", [](const Coords& c) { return std::to_string(c.stream_seed); },
       [](Coords& c, V t, V v) { c.stream_seed = uint64_t(parse_name_decimal(t, v, 0, INT64_MAX)); }},
      {std::nullopt, "calls", false, "calls:N", [](const Coords& c) { return std::to_string(c.stream_calls); },
       [](Coords& c, V t, V v) { c.stream_calls = uint32_t(parse_name_decimal(t, v, 1, kMaxStreamCalls)); }},
      {Axis::src_offset, "src", false, "src:N", nullptr,
       [](Coords& c, V t, V v) { c.layout.src_offset = offset_token(t, v); }},
      {Axis::dst_offset, "dst", false, "dst:N", nullptr,
       [](Coords& c, V t, V v) { c.layout.dst_offset = offset_token(t, v); }},
      {Axis::distance, "dist", false, "dist:N", nullptr,
       [](Coords& c, V t, V v) { c.layout.distance = parse_name_decimal(t, v, INT64_MIN, INT64_MAX); }},
      {Axis::huge_pages, "nohuge", true, "nohuge", nullptr, [](Coords& c, V, V) { c.layout.huge_pages = false; }},
      {Axis::chunk, "chunk", false, "chunk:N", nullptr, [](Coords& c, V t, V v) { c.chunk = offset_token(t, v); }},
      {Axis::prefill, "prefill", false, "prefill:0xNN", nullptr,
       [](Coords& c, V t, V v) { c.prefill = prefill_token_value(t, v); }},
      {Axis::consume, "consume", true, "consume", nullptr, [](Coords& c, V, V) { c.consume = true; }},
      {Axis::cache, "cold", true, "cold", nullptr, [](Coords& c, V, V) { c.cache = CacheMode::cold; }},
      {Axis::threads, "threads", false, "threads:N", nullptr,
       [](Coords& c, V t, V v) { c.threads = static_cast<uint32_t>(parse_name_decimal(t, v, 2, kMaxThreads)); }},
      {Axis::harness, "harness", false, seed_harness_tokens("|", false), nullptr, parse_harness_token},
      // Not an axis: the nth run of the same kernel in one seed table.
      {std::nullopt, "pass", false, "pass:N", [](const Coords& c) { return std::to_string(c.pass); },
       [](Coords& c, V t, V v) { c.pass = static_cast<uint32_t>(parse_name_decimal(t, v, 2, 1000000)); }},
  };
}

}  // namespace

std::string token_text(const PointToken& t, const Coords& c) { return t.axis ? axis_value(c, *t.axis) : t.own_text(c); }

const std::vector<PointToken>& point_tokens() {
  static const std::vector<PointToken> rows = [] {
    std::vector<PointToken> r = make_point_tokens();
    for (PointToken& t : r) t.default_text = token_text(t, Coords{});
    return r;
  }();
  return rows;
}

std::string point_token_forms() {
  std::string out;
  for (const PointToken& t : point_tokens()) out += (out.empty() ? "" : " ") + t.form;
  return out;
}

std::string point_token_keys() {
  std::string out;
  for (const PointToken& t : point_tokens()) out += (out.empty() ? "" : " ") + std::string(t.key);
  return out;
}

}  // namespace kex
