#include "src/results/crossover_text.hpp"

#include <sstream>

#include <fmt/core.h>

#include "src/results/results.hpp"

namespace kex {

std::string threshold_interval(std::optional<double> below, double from) {
  if (!below) return "(0, " + human_bytes(from) + "] (" + human_bytes(from) + " is the smallest size compared)";
  return "(" + human_bytes(*below) + ", " + human_bytes(from) + "]";
}

namespace {

std::string ranges(const std::vector<SizeRange>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + ("[" + human_bytes(v[i].lo) + ", " + human_bytes(v[i].hi) + "]");
  return s;
}

std::string ratio_at(const Contest& c, double size) {
  for (const SizeVerdict& v : c.verdicts)
    if (v.size == size) return fmt::format("time ratio {:.2f} [{:.2f}, {:.2f}] at {}", v.ratio, v.low, v.high, human_bytes(size));
  return "";
}

/// "; within noise at 3 of 8 sizes; a win at 64 MiB alone is not a crossover", or "".
std::string noise_note(const Contest& c) {
  std::string s;
  if (size_t n = c.within_noise()) s += "; within noise at " + std::to_string(n) + " of " + std::to_string(c.verdicts.size()) + " sizes";
  if (!c.lone.empty()) {
    s += "; a win at ";
    for (size_t i = 0; i < c.lone.size(); ++i) s += (i ? ", " : "") + human_bytes(c.lone[i]);
    s += " alone is not a crossover";
  }
  return s;
}

/// The line of a comparison without a crossover; `who` is the family that would win.
std::string no_crossover(const Contest& c, const std::string& who) {
  if (c.lone.empty() && c.within_noise() == 0) return who + " never wins measurably\n";
  return "no crossover: differences within noise" + noise_note(c) + "\n";
}

std::string nt_line(const Crossovers& x) {
  const Contest& c = x.nt;
  if (!c.compared) return "not measured (needs both temporal and non-temporal loops)\n";
  if (auto r = c.sustained())
    return "non-temporal wins from " + human_bytes(r->lo) + " up: threshold in " + threshold_interval(r->below, r->lo) +
           " (" + ratio_at(c, r->lo) + ")" + noise_note(c) + "\n";
  if (!c.wins.empty())
    return "non-temporal wins in " + ranges(c.wins) + " but not at the largest size: no threshold" + noise_note(c) + "\n";
  return no_crossover(c, "non-temporal");
}

/// A family that wins in ranges: "wins in [16 KiB, 64 KiB] (starts in (4 KiB, 16 KiB], stops in (64 KiB, 256 KiB])".
std::string range_line(const Contest& c, const std::string& who, const std::string& needs) {
  if (!c.compared) return "not measured (needs " + needs + ")\n";
  if (c.wins.empty()) return no_crossover(c, who);
  std::string s = who + " wins in " + ranges(c.wins);
  const SizeRange& first = c.wins.front();
  const SizeRange& last = c.wins.back();
  s += " (starts in " + threshold_interval(first.below, first.lo);
  s += last.above ? ", stops in (" + human_bytes(last.hi) + ", " + human_bytes(*last.above) + "])"
                  : ", still wins at the largest size)";
  return s + noise_note(c) + "\n";
}

/// A threshold's interval from a tunable's sizes in bytes.
std::string tunable_interval(const Tunable& t) {
  return threshold_interval(t.below ? std::optional<double>(double(*t.below)) : std::nullopt, double(t.from));
}

}  // namespace

std::string explain(const Tunable& t) {
  std::string s = "    " + t.name.substr(10) + "=" + std::to_string(t.value) + ": ";
  if (t.name.find("non_temporal") != std::string::npos) {
    s += "copies above this many bytes use non-temporal stores; the crossover lies in " + tunable_interval(t);
    if (t.value >= t.from) s += " (raised to glibc's minimum 0x4040)";
  } else if (t.op == Op::copy) {
    s += "memcpy uses rep movsb above this size, below its rep_movsb_stop_threshold (the non-temporal threshold "
         "by default); the crossover lies in " + tunable_interval(t);
  } else {
    s += "memset uses rep stosb above this size; the crossover lies in " + tunable_interval(t);
  }
  if (t.op == Op::clear || t.name.find("rep_movsb") != std::string::npos)
    s += t.above ? "; rep won up to " + human_bytes(double(t.to)) : "; rep still won at the largest size";
  return s + "\n";
}

namespace {

std::string advice(const Crossovers& x) {
  std::ostringstream o;
  const std::vector<Tunable> t = suggested(x);
  if (t.empty()) o << "  suggested GLIBC_TUNABLES: none (no decided crossover)\n";
  else {
    o << "  suggested: GLIBC_TUNABLES=" << tunables_string(t) << "\n"
      << "    (each value is the crossover's first size - 1: glibc takes the path for sizes above it)\n";
    for (const Tunable& one : t) o << explain(one);
  }
  if (x.nt.compared && !x.nt.sustained())
    o << "    (no x86_non_temporal_threshold suggested: non-temporal stores did not win measurably up to "
      << human_bytes(x.max_size) << "; measure larger sizes to find it)\n";
  if (x.rep_movsb.compared && x.rep_movsb.wins.empty())
    o << "    (no x86_rep_movsb_threshold suggested: rep movsb did not beat the vector loops measurably; a threshold at "
         "or above the non-temporal threshold keeps glibc off it)\n";
  return o.str();
}

std::string basis(const Crossovers& x) {
  size_t paired = 0, all = 0;
  for (const Contest* c : {&x.nt, &x.rep_movsb, &x.prefetch, &x.rep_stosb})
    for (const SizeVerdict& v : c->verdicts) paired += v.paired, ++all;
  const char* from = paired == all ? "paired rounds" : paired == 0 ? "the points' own intervals (no paired rounds)"
                                                                   : "paired rounds where measured in them";
  return fmt::format("a win: faster by more than {:g}% with 95% confidence at {} or more consecutive sizes, from {}",
                     x.margin * 100, kMinWinSizes, from);
}

}  // namespace

std::string format_crossovers(const Crossovers& x) {
  std::ostringstream o;
  o << "crossovers (copy, cache " << (x.cache.empty() ? "none" : x.cache)
    << (x.threads > 1 ? ", " + std::to_string(x.threads) + " threads" : std::string()) << ", largest size "
    << human_bytes(x.max_size) << "):\n  (" << basis(x) << ")\n";
  o << "  non-temporal vs temporal stores: " << nt_line(x);
  o << "  rep movsb vs best vector loop:   "
    << range_line(x.rep_movsb, "rep movsb", "rep_movsb and vector loops");
  o << "  prefetching vs none:             "
    << range_line(x.prefetch, "prefetching", "loops with and without prefetch");
  if (x.rep_stosb.compared)
    o << "  rep stosb vs best vector clear:  " << range_line(x.rep_stosb, "rep stosb", "");
  o << advice(x);
  return o.str();
}

}  // namespace kex
