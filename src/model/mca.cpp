#include "src/model/mca.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kex {

namespace {

/// One Intel family-6 model range and its LLVM -mcpu (present since LLVM `since`).
struct IntelModel {
  int model;
  const char* mcpu;
  int since;
};

constexpr IntelModel kIntel[] = {
    {0x3C, "haswell", 3},        {0x3F, "haswell", 3},        {0x45, "haswell", 3},
    {0x46, "haswell", 3},        {0x3D, "broadwell", 3},      {0x47, "broadwell", 3},
    {0x4F, "broadwell", 3},      {0x56, "broadwell", 3},      {0x4E, "skylake", 3},
    {0x5E, "skylake", 3},        {0x8E, "skylake", 3},        {0x9E, "skylake", 3},
    {0xA5, "skylake", 3},        {0xA6, "skylake", 3},        {0x55, "skylake-avx512", 4},
    {0x66, "cannonlake", 5},     {0x7D, "icelake-client", 7}, {0x7E, "icelake-client", 7},
    {0x6A, "icelake-server", 7}, {0x6C, "icelake-server", 7}, {0x8C, "tigerlake", 10},
    {0x8D, "tigerlake", 10},     {0xA7, "rocketlake", 13},    {0x97, "alderlake", 12},
    {0x9A, "alderlake", 12},     {0xB7, "alderlake", 12},     {0xBA, "alderlake", 12},
    {0xBF, "alderlake", 12},     {0x8F, "sapphirerapids", 12},
};

std::string hex(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

/// The Zen generation of an AMD family/model (1..5), 0 when not a Zen.
int zen_of(int family, int model) {
  if (family == 0x17) return model < 0x30 ? 1 : 2;
  if (family == 0x19) return (model < 0x10 || (model >= 0x20 && model < 0x60)) ? 3 : 4;
  if (family == 0x1A) return 5;
  return 0;
}

McaCpu amd_cpu(int family, int model, int llvm) {
  const int zen = zen_of(family, model);
  if (zen == 0) return {"", "no LLVM model for AMD family " + hex(family) + " (Zen is 0x17-0x1a)"};
  // The newest Zen model each LLVM has: znver2 from 9, znver3 from 12, znver4 from 16, znver5 from 19.
  const int newest = llvm >= 19 ? 5 : llvm >= 16 ? 4 : llvm >= 12 ? 3 : llvm >= 9 ? 2 : 1;
  const int used = zen < newest ? zen : newest;
  McaCpu c{"znver" + std::to_string(used), ""};
  if (used != zen)
    c.note = "LLVM " + std::to_string(llvm) + " has no Zen " + std::to_string(zen) + " model: " + c.mcpu + " used";
  return c;
}

McaCpu intel_cpu(int family, int model, int llvm) {
  if (family != 6) return {"", "no LLVM model chosen for Intel family " + hex(family) + " (family 6 only)"};
  for (const IntelModel& m : kIntel)
    if (m.model == model) {
      if (llvm >= m.since) return {m.mcpu, ""};
      return {"", "LLVM " + std::to_string(llvm) + " has no " + m.mcpu + " model (from LLVM " +
                      std::to_string(m.since) + ")"};
    }
  return {"", "no LLVM model known to kex for Intel family 6 model " + hex(model)};
}

/// The value after `key` on the line that starts with it, as text; "" when absent.
std::string_view field(std::string_view out, std::string_view key, size_t* count) {
  std::string_view value;
  *count = 0;
  for (size_t at = 0; at < out.size();) {
    size_t end = out.find('\n', at);
    if (end == std::string_view::npos) end = out.size();
    std::string_view line = out.substr(at, end - at);
    if (line.substr(0, key.size()) == key) {
      ++*count;
      value = line.substr(key.size());
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    }
    at = end + 1;
  }
  return value;
}

bool parse_whole(std::string_view v, uint64_t& out) {
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size();
}

bool parse_real(std::string_view v, double& out) {
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size() && std::isfinite(out) && out >= 0;
}

}  // namespace

McaCpu mca_cpu(const std::string& vendor, int family, int model, int llvm_major) {
  if (llvm_major <= 0) return {"", "llvm-mca's LLVM version is unknown"};
  if (vendor == "AuthenticAMD") return amd_cpu(family, model, llvm_major);
  if (vendor == "GenuineIntel") return intel_cpu(family, model, llvm_major);
  return {"", "no LLVM model chosen for CPU vendor '" + vendor + "'"};
}

std::optional<McaSummary> parse_mca(std::string_view out, std::string* why) {
  McaSummary s;
  const struct {
    const char* key;
    uint64_t* whole;
  } wholes[] = {{"Iterations:", &s.iterations}, {"Instructions:", &s.instructions}, {"Total Cycles:", &s.total_cycles}};
  for (const auto& w : wholes) {
    size_t n = 0;
    const std::string_view v = field(out, w.key, &n);
    if (n != 1 || !parse_whole(v, *w.whole)) {
      *why = std::string("llvm-mca output: ") + (n == 0 ? "no" : n > 1 ? "more than one" : "an unreadable") + " '" +
             w.key + "' line" + (n > 1 ? " (one code region expected)" : "");
      return std::nullopt;
    }
  }
  size_t n = 0;
  if (!parse_real(field(out, "Block RThroughput:", &n), s.block_rthroughput) || n != 1) {
    *why = "llvm-mca output: no readable 'Block RThroughput:' line";
    return std::nullopt;
  }
  if (s.iterations == 0 || s.total_cycles == 0) {
    *why = "llvm-mca output: zero iterations or cycles";
    return std::nullopt;
  }
  return s;
}

int parse_llvm_major(std::string_view text) {
  const std::string_view key = "LLVM version ";
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return 0;
  int major = 0;
  const char* b = text.data() + at + key.size();
  auto [p, ec] = std::from_chars(b, text.data() + text.size(), major);
  return ec == std::errc() && p != b ? major : 0;
}

}  // namespace kex

namespace kex {

McaAvx512 mca_avx512(const std::string& mcpu, int family, bool uses_avx512) {
  static const char* const with[] = {"skylake-avx512", "cannonlake", "icelake-client", "icelake-server",
                                     "tigerlake",      "rocketlake", "sapphirerapids", "znver4", "znver5"};
  if (!uses_avx512 || mcpu.empty()) return {};
  for (const char* m : with)
    if (mcpu == m) return {};
  const std::string head = mcpu + " has no AVX-512: llvm-mca costs its zmm instructions as ymm ones";
  if (family == 0x1A) return {head + " (Zen 5's 512-bit datapath does too)", ""};
  return {"", head + ", which this CPU does not: no prediction"};
}

std::string mca_failure_line(std::string_view out) {
  std::string_view first;
  for (size_t at = 0; at < out.size();) {
    size_t end = out.find('\n', at);
    if (end == std::string_view::npos) end = out.size();
    const std::string_view line = out.substr(at, std::min<size_t>(end - at, 200));
    if (out.substr(at, end - at).find("error") != std::string_view::npos) return std::string(line);
    if (first.empty()) first = line;
    at = end + 1;
  }
  return first.empty() ? "no output" : std::string(first);
}

}  // namespace kex
