#include "src/results/validation.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/core.h>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/results/results.hpp"

namespace kex {

LibcJob validation_job(const Tunable& t, double budget_ms) {
  LibcJob j;
  j.op = t.op;
  j.budget_ms = budget_ms;
  auto at64 = [](double v) { return std::max<uint64_t>(64, uint64_t(v / 64 + 0.5) * 64); };
  if (t.below) {
    const double lo = double(*t.below), hi = double(t.from);
    for (double f : {0.25, 0.5, 1.0}) j.sizes.push_back(at64(lo * f));  // below it, where the path may change too
    for (int k = 1; k < kInterior + 1 && hi > lo; ++k)  // inside the crossover no size decided
      j.sizes.push_back(at64(lo * std::pow(hi / lo, double(k) / (kInterior + 1))));
  }
  j.sizes.push_back(t.from);
  j.sizes.push_back(t.to > t.from ? t.to : 2 * t.from);
  std::sort(j.sizes.begin(), j.sizes.end());
  j.sizes.erase(std::unique(j.sizes.begin(), j.sizes.end()), j.sizes.end());
  return j;
}

void check_validation_job(const LibcJob& job, const Tunable& t) {
  const uint64_t largest = job.sizes.empty() ? 0 : *std::max_element(job.sizes.begin(), job.sizes.end());
  const std::string what = "'" + t.name + "=" + std::to_string(t.value) + "' needs libc timed at " +
                           format_bytes(largest) + " (" + std::to_string(largest) + " bytes): ";
  if (largest > kMaxLibcChildSize)
    throw InputError("--validate", what + "the libc children time sizes up to " + format_bytes(kMaxLibcChildSize) +
                                       "; leave --validate out, or give sizes up to that");
  rlimit as{};
  constexpr uint64_t kSlack = uint64_t(256) << 20;  // the child's code, stacks and libraries
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && 2 * largest + kSlack > as.rlim_cur)
    throw InputError("--validate", what + "its two buffers and the child (" + format_bytes(2 * largest + kSlack) +
                                       ") pass the address-space limit (ulimit -v) of " +
                                       format_bytes(uint64_t(as.rlim_cur)) + "; raise it, or leave --validate out");
}

namespace {
/// Whether the interval is one: [min, max] of n rounds holds the median with probability
/// 1 - 2^(1-n), 94% at 5 rounds, 97% at 6; fewer rounds give no verdict.
bool decided(const PairedRatio& r) { return r.rounds >= kMinVerdictRounds; }
bool faster(const PairedRatio& r, double margin) { return decided(r) && r.high < 1 / (1 + margin); }
bool slower(const PairedRatio& r, double margin) { return decided(r) && r.low > 1 + margin; }
}  // namespace

Gain judge(const Validation& v, double margin) {
  bool gain = false, open = false;
  for (const SizeChange& s : v.sizes) {
    if (slower(s.change, margin)) return Gain::hurts;
    gain = gain || faster(s.change, margin);
    open = open || !decided(s.change);
  }
  return gain ? Gain::helps : open ? Gain::undecided : Gain::no_measurable_gain;
}

std::string format_validation_header(const ValidateOptions& opts, double budget_ms, double margin) {
  std::ostringstream o;
  o << "  validation on this machine: libc in fresh child processes on CPU "
    << (opts.cpu >= 0 ? std::to_string(opts.cpu) : std::string("(highest allowed)")) << ", " << opts.rounds
    << " rounds, each running both children (GLIBC_TUNABLES unset, and set to one suggestion) in a random order, "
    << budget_ms << " ms per size and child, warm buffers;\n"
    << "  ratio = tuned time / default time, the median over rounds and its 95% interval; a change counts beyond "
    << margin * 100 << "%\n";
  return o.str();
}

std::string format_validation(const Tunable& t, const Validation& v, double margin) {
  std::ostringstream o;
  o << "  " << t.name << "=" << t.value << " (" << (t.op == Op::copy ? "memcpy" : "memset")
    << "; the tuned child saw GLIBC_TUNABLES=" << terminal_text(v.tuned_saw)
    << ", the default child " << (v.default_saw.empty() ? "none" : terminal_text(v.default_saw)) << "):\n";
  if (t.refines)
    o << "    refines " << *t.refines << ", slower at some sizes: this value lies between those it made faster and "
         "those it made slower\n";
  for (const SizeChange& s : v.sizes) {
    const PairedRatio& r = s.change;
    const char* what = !decided(r) ? "too few rounds for a 95% interval"
                       : faster(r, margin) ? "faster"
                       : slower(r, margin) ? "slower"
                                           : "no measurable change";
    o << fmt::format("    {:<9} tuned/default {:.3f} [{:.3f}, {:.3f}] over {} rounds: {}\n", human_bytes(double(s.size)),
                     r.ratio, r.low, r.high, r.rounds, what);
  }
  switch (judge(v, margin)) {
    case Gain::helps: o << "    -> helps\n"; break;
    case Gain::hurts: o << "    -> slower with it: not advised\n"; break;
    case Gain::no_measurable_gain: o << "    -> no measurable gain: not advised\n"; break;
    case Gain::undecided:
      o << "    -> not enough rounds to decide (a size needs " << kMinVerdictRounds
        << " for a 95% interval): not advised, not ruled out\n";
      break;
  }
  return o.str();
}

std::optional<Tunable> refined_tunable(const Tunable& t, const Validation& v, double margin) {
  if (t.refines || judge(v, margin) != Gain::hurts) return std::nullopt;
  uint64_t fast_lo = UINT64_MAX, fast_hi = 0, slow_lo = UINT64_MAX, slow_hi = 0;
  bool at_or_below = false, above = false;  // where the changed sizes lie against t.value
  for (const SizeChange& s : v.sizes) {
    const bool f = faster(s.change, margin), w = slower(s.change, margin);
    if (!f && !w) continue;
    (s.size <= t.value ? at_or_below : above) = true;
    if (f) fast_lo = std::min(fast_lo, s.size), fast_hi = std::max(fast_hi, s.size);
    if (w) slow_lo = std::min(slow_lo, s.size), slow_hi = std::max(slow_hi, s.size);
  }
  if (fast_hi == 0 || at_or_below == above) return std::nullopt;
  // Raised (the changed sizes at or below the value): the slower ones above the faster.
  // Lowered (above the value): the slower ones below the faster.
  const uint64_t lo = at_or_below ? fast_hi : slow_hi, hi = at_or_below ? slow_lo : fast_lo;
  if (lo >= hi) return std::nullopt;
  Tunable r = t;
  r.value = std::clamp(uint64_t(std::floor(std::sqrt(double(lo) * double(hi)))), lo, hi - 1);
  if (t.name.find("non_temporal") != std::string::npos) r.value = std::max(r.value, kGlibcNtMin);
  if (r.value == t.value || r.value >= hi) return std::nullopt;
  r.refines = t.value;
  return r;
}

std::string format_validated_advice(const std::vector<Tunable>& tunables, const std::vector<Gain>& gains) {
  std::vector<Tunable> good;
  for (size_t i = 0; i < tunables.size() && i < gains.size(); ++i)
    if (gains[i] == Gain::helps) good.push_back(tunables[i]);
  const auto open = size_t(std::count(gains.begin(), gains.end(), Gain::undecided));
  if (good.empty() && open)
    return fmt::format("  validated: no suggestion helped measurably ({} of {} had too few rounds to decide: "
                       "give the validation a larger budget); no advice\n", open, gains.size());
  if (good.empty()) return "  validated: none of the suggestions helped measurably; no advice\n";
  return "  validated: GLIBC_TUNABLES=" + tunables_string(good) + "\n";
}

}  // namespace kex
