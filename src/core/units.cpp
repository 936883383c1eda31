#include "src/core/units.hpp"

#include <cctype>
#include <cstdio>

namespace kex {

std::optional<uint64_t> parse_bytes(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && t[i] == ' ') ++i;
  uint64_t v = 0;
  size_t digits = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, ++digits) {
    if (v > (1ull << 58)) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(t[i] - '0');
  }
  if (!digits) return std::nullopt;
  while (i < t.size() && t[i] == ' ') ++i;
  std::string unit;
  for (; i < t.size(); ++i) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(t[i])));
  while (!unit.empty() && unit.back() == ' ') unit.pop_back();
  // Binary units only: "MB" is refused, since kex's GB/s are decimal and MB would be ambiguous.
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gib") shift = 30;
  else if (unit == "t" || unit == "tib") shift = 40;
  if (shift < 0) return std::nullopt;
  if (v > (1ull << (62 - shift))) return std::nullopt;
  return v << shift;
}

std::string format_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (u < 3 && v >= 1024) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (v == static_cast<uint64_t>(v)) snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), units[u]);
  else snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string short_bytes(uint64_t b) {
  if (b && b % (1ull << 30) == 0) return std::to_string(b >> 30) + "G";
  if (b && b % (1ull << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b && b % (1ull << 10) == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

}  // namespace kex
