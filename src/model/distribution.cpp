#include "src/model/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "src/core/embedded.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

namespace {

uint64_t whole_field(const std::string& text, const std::string& where, const char* what, uint64_t hi = ~0ull) {
  try {
    return parse_unsigned(text, 0, hi);
  } catch (const NumberError& e) {
    throw InputError(where, std::string(what) + " " + e.what());
  }
}

/// A probability: a finite decimal number >= 0 ("6.10849e-05"), all of `text`.
double probability_field(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double p = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(p) || p < 0 || text[0] == '+' ||
      std::isspace(static_cast<unsigned char>(text[0])))
    throw InputError(where, "probability '" + clip(terminal_text(text), 40) + "': expected a finite number >= 0");
  return p;
}

/// The text's lines, "\r\n" read as "\n"; empty lines and lines starting with '#' are kept
/// as empty (so line numbers stay right).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '#') line.clear();
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + 1) out.push_back(s.substr(start, at - start));
  out.push_back(s.substr(start));
  if (out.size() > 1 && out.back().empty()) out.pop_back();  // a trailing comma (llvm-libc's files end in one)
  return out;
}

/// One line of value:probability pairs, each value once and at most `hi`.
std::map<uint64_t, double> pairs_line(const std::string& line, const std::string& where, uint64_t hi) {
  std::map<uint64_t, double> out;
  for (const std::string& pair : split(line, ',')) {
    const size_t colon = pair.find(':');
    if (colon == std::string::npos)
      throw InputError(where, "'" + clip(terminal_text(pair), 40) + "': expected value:probability");
    const uint64_t v = whole_field(pair.substr(0, colon), where, "value", hi);
    if (!out.emplace(v, probability_field(pair.substr(colon + 1), where)).second)
      throw InputError(where, "value " + std::to_string(v) + " given twice");
  }
  return out;
}

/// Checks that `p` sums to 1 (within 1e-3) and returns the sum.
double check_total(const std::map<uint64_t, double>& p, const std::string& where, const char* what) {
  double sum = 0;
  for (const auto& [v, q] : p) sum += q;
  if (!(std::fabs(sum - 1) <= 1e-3))
    throw InputError(where, std::string(what) + " probabilities add up to " + std::to_string(sum) + ", not 1");
  return sum;
}

/// The sizes of `p` with a probability above 0, normalized into `d`; InputError when none.
void set_sizes(Distribution& d, const std::map<uint64_t, double>& p, const std::string& where) {
  double sum = 0;
  for (const auto& [v, q] : p) sum += q;
  if (!(sum > 0)) throw InputError(where, "no call has a probability above 0");
  double c = 0;
  for (const auto& [v, q] : p) {
    if (q <= 0) continue;
    c += q / sum;
    d.sizes.push_back(v);
    d.cumulative.push_back(std::min(c, 1.0));
  }
  d.cumulative.back() = 1;
  d.given_sum = sum;
}

/// fleetbench's format: sizes, then optionally overlap and alignment.
void read_fleetbench(Distribution& d, const std::vector<std::string>& lines, const std::string& where) {
  std::vector<std::pair<size_t, std::string>> used;  // (line number, text)
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty()) used.emplace_back(i + 1, lines[i]);
  if (used.size() > 3) throw InputError(where + ":" + std::to_string(used[3].first), "a fourth line: expected at most sizes, overlap and alignment");
  const auto at = [&](size_t k) { return where + ":" + std::to_string(used[k].first); };
  const auto sizes = pairs_line(used[0].second, at(0), kMaxDistributionSize);
  check_total(sizes, at(0), "the sizes'");
  set_sizes(d, sizes, at(0));
  if (used.size() > 1) {
    const auto overlap = pairs_line(used[1].second, at(1), 1);
    check_total(overlap, at(1), "the overlap line's");
    d.overlap = overlap.count(1) ? overlap.at(1) : 0;
  }
  if (used.size() > 2) {
    const auto align = pairs_line(used[2].second, at(2), 4096);
    const double sum = check_total(align, at(2), "the alignment line's");
    for (const auto& [a, q] : align) {
      if (a == 0 || (a & (a - 1)) != 0)
        throw InputError(at(2), "alignment " + std::to_string(a) + ": expected a power of two");
      if (q > 0) d.alignments.emplace_back(uint32_t(a), q / sum);
    }
  }
}

/// llvm-libc's format: one line, the probability of size i in field i.
void read_indexed(Distribution& d, const std::string& line, const std::string& where) {
  const std::vector<std::string> f = split(line, ',');
  if (f.size() > kMaxDistributionSize + 1) throw InputError(where, "more sizes than 1 GiB");
  std::map<uint64_t, double> p;
  for (size_t i = 0; i < f.size(); ++i) p[i] = probability_field(f[i], where);
  check_total(p, where, "the sizes'");
  set_sizes(d, p, where);
}

/// The function a shipped-style name says ("Memcpy_Fleet": memcpy).
std::optional<Function> function_of_name(const std::string& name) {
  for (const auto& [prefix, f] :
       {std::pair{"Memcpy", Function::memcpy}, std::pair{"Memmove", Function::memmove}, std::pair{"Memset", Function::memset}})
    if (name.rfind(prefix, 0) == 0) return f;
  return std::nullopt;
}

}  // namespace

std::vector<WorkloadBin> parse_workload(const std::string& text, const std::string& path) {
  std::vector<WorkloadBin> out;
  std::map<uint64_t, size_t> seen;  // size -> line
  const std::vector<std::string> lines = lines_of(text);
  bool any_line = false;
  uint64_t calls = 0;
  for (size_t n = 1; n <= lines.size(); ++n) {
    const std::string& line = lines[n - 1];
    if (line.empty()) continue;
    const bool first = !any_line;
    any_line = true;
    if (first && line == "size,count") continue;
    const std::string where = path + ":" + std::to_string(n);
    const size_t comma = line.find(',');
    if (comma == std::string::npos || line.find(',', comma + 1) != std::string::npos)
      throw InputError(where, "'" + clip(terminal_text(line), 60) + "': expected 'size,count' (two integers)");
    WorkloadBin b{whole_field(line.substr(0, comma), where, "size"), whole_field(line.substr(comma + 1), where, "count")};
    if (auto [it, fresh] = seen.emplace(b.size, n); !fresh)
      throw InputError(where, "size " + std::to_string(b.size) + " given again (first on line " +
                                  std::to_string(it->second) + ")");
    if (b.count > ~0ull - calls) throw InputError(where, "the counts add up to more than 2^64-1");
    calls += b.count;
    out.push_back(b);
  }
  if (calls == 0) throw InputError(path, "no calls (every line 'size,count' with a count above 0 adds some)");
  return out;
}

Distribution parse_distribution(const std::string& text, const std::string& name, const std::string& where) {
  Distribution d;
  d.name = name;
  d.function = function_of_name(name);
  const std::vector<std::string> lines = lines_of(text);
  std::vector<size_t> used;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty()) used.push_back(i);
  if (used.empty()) throw InputError(where, "empty: expected a distribution of call sizes");
  const std::string first = where + ":" + std::to_string(used[0] + 1);
  if (text.find(':') != std::string::npos) {
    read_fleetbench(d, lines, where);
  } else if (used.size() == 1 && split(lines[used[0]], ',').size() != 2) {
    read_indexed(d, lines[used[0]], first);
  } else {
    std::map<uint64_t, double> p;
    for (const WorkloadBin& b : parse_workload(text, where)) {
      if (b.size > kMaxDistributionSize)
        throw InputError(where, "size " + std::to_string(b.size) + ": over 1 GiB, the largest call a stream holds");
      p[b.size] = double(b.count);
    }
    set_sizes(d, p, where);
    d.given_sum = 1;  // counts: normalized by design
  }
  return d;
}

uint64_t distribution_quantile(const Distribution& d, double q) {
  const auto it = std::lower_bound(d.cumulative.begin(), d.cumulative.end(), q);
  return it == d.cumulative.end() ? d.sizes.back() : d.sizes[size_t(it - d.cumulative.begin())];
}

DistributionFacts distribution_facts(const Distribution& d) {
  DistributionFacts f;
  f.distinct = d.sizes.size();
  double prev = 0;
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    f.mean += double(d.sizes[i]) * (d.cumulative[i] - prev);
    prev = d.cumulative[i];
  }
  f.p50 = distribution_quantile(d, 0.5);
  f.p90 = distribution_quantile(d, 0.9);
  f.p99 = distribution_quantile(d, 0.99);
  f.max = d.sizes.back();
  size_t i = 0;
  auto at = [&](uint64_t s) {  // P(size <= s), sizes ascending
    while (i < d.sizes.size() && d.sizes[i] <= s) ++i;
    f.cdf.emplace_back(s, i ? d.cumulative[i - 1] : 0.0);
  };
  at(0);
  for (uint64_t p = 1;; p *= 2) {
    at(p);
    if (p >= f.max) break;
    if (p >= 2) {
      at(p + p / 2);
      if (p + p / 2 >= f.max) break;
    }
  }
  return f;
}

const std::vector<std::string>& shipped_distributions() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const char* f : {"Memcpy", "Memmove", "Memset"}) {
      out.push_back(std::string(f) + "_Fleet");
      for (int i = 0; i <= 8; ++i) out.push_back(std::string(f) + "_" + std::to_string(i));
    }
    return out;
  }();
  return names;
}

std::optional<Distribution> shipped_distribution(const std::string& name) {
  const auto& all = shipped_distributions();
  if (std::find(all.begin(), all.end(), name) == all.end()) return std::nullopt;
  const char* text = embedded_file(name + ".csv");
  if (!text) return std::nullopt;
  return parse_distribution(text, name, "built-in stream " + name);
}

bool is_stream_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace kex
