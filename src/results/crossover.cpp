#include "src/results/crossover.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

#include "src/core/error.hpp"
#include "src/results/results.hpp"

namespace kex {

Curve envelope(const std::vector<Curve>& curves) {
  std::map<double, const CurvePoint*> best;
  for (const auto& c : curves)
    for (const auto& p : c) {
      auto [it, fresh] = best.emplace(p.size, &p);
      if (!fresh && p.gbps > it->second->gbps) it->second = &p;
    }
  Curve out;
  for (const auto& [s, p] : best) out.push_back(*p);
  return out;
}

namespace {

/// The verdict at one size from the two points' own intervals (no shared rounds).
SizeVerdict unpaired(const CurvePoint& a, const CurvePoint& b, double margin) {
  SizeVerdict v{a.size, Decision::within_noise, b.gbps > 0 ? a.gbps / b.gbps : 0, 0, 0, false};
  v.low = b.high > 0 ? a.low / b.high : 0;
  v.high = b.low > 0 ? a.high / b.low : 0;
  if (a.low > b.high * (1 + margin)) v.verdict = Decision::wins;
  else if (b.low > a.high * (1 + margin)) v.verdict = Decision::loses;
  return v;
}

SizeVerdict verdict_at(const CurvePoint& a, const CurvePoint& b, double margin) {
  const PairedRatio slow_b = paired_ratio(b.rounds, a.rounds);  // b's time / a's time
  if (slow_b.rounds == 0) return unpaired(a, b, margin);
  SizeVerdict v{a.size, Decision::within_noise, slow_b.ratio, slow_b.low, slow_b.high, true};
  if (slow_b.slower_beyond(margin)) v.verdict = Decision::wins;
  else if (paired_ratio(a.rounds, b.rounds).slower_beyond(margin)) v.verdict = Decision::loses;
  return v;
}

}  // namespace

std::vector<SizeVerdict> duel(const Curve& a, const Curve& b, double margin) {
  std::map<double, const CurvePoint*> in_b;
  for (const auto& p : b) in_b[p.size] = &p;
  Curve sa = a;
  std::sort(sa.begin(), sa.end(), [](const CurvePoint& x, const CurvePoint& y) { return x.size < y.size; });
  std::vector<SizeVerdict> out;
  for (const auto& p : sa)
    if (auto it = in_b.find(p.size); it != in_b.end()) out.push_back(verdict_at(p, *it->second, margin));
  return out;
}

std::optional<SizeRange> Contest::sustained() const {
  if (wins.empty() || verdicts.empty() || wins.back().hi != verdicts.back().size) return std::nullopt;
  return wins.back();
}

size_t Contest::within_noise() const {
  return size_t(std::count_if(verdicts.begin(), verdicts.end(),
                              [](const SizeVerdict& v) { return v.verdict == Decision::within_noise; }));
}

std::vector<SizeRange> runs_of(const std::vector<double>& sizes, const std::vector<bool>& in) {
  std::vector<SizeRange> out;
  for (size_t i = 0; i < sizes.size() && i < in.size();) {
    if (!in[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < sizes.size() && j + 1 < in.size() && in[j + 1]) ++j;
    SizeRange r{sizes[i], sizes[j], std::nullopt, std::nullopt, j - i + 1};
    if (i > 0) r.below = sizes[i - 1];
    if (j + 1 < sizes.size()) r.above = sizes[j + 1];
    out.push_back(r);
    i = j + 1;
  }
  return out;
}

Contest compare_curves(const Curve& a, const Curve& b, double margin) {
  Contest c;
  c.compared = !a.empty() && !b.empty();
  c.verdicts = duel(a, b, margin);
  std::vector<double> sizes;
  std::vector<bool> won;
  for (const SizeVerdict& v : c.verdicts) sizes.push_back(v.size), won.push_back(v.verdict == Decision::wins);
  for (const SizeRange& r : runs_of(sizes, won)) {
    if (r.sizes >= kMinWinSizes) c.wins.push_back(r);
    else
      for (double size : sizes)
        if (size >= r.lo && size <= r.hi) c.lone.push_back(size);
  }
  return c;
}

GlibcPath glibc_path(const std::string& kernel, const KernelSpec* spec) {
  if (!spec) return kernel == "rep_movsb" || kernel == "rep_stosb" ? GlibcPath::rep : GlibcPath::none;
  if (spec->regs == RegClass::string)
    return spec->unroll == 1 && spec->direction == Direction::forward ? GlibcPath::rep : GlibcPath::none;
  return spec->store == Store::nontemporal ? GlibcPath::nontemporal : GlibcPath::temporal;
}

namespace {

uint8_t fill_of(const Result& r) { return r.fill(); }

CurvePoint curve_point(const Result& r) {
  const Aggregate a = aggregate(r);
  const uint64_t size = r.point.at.size;
  const uint64_t moved = moved_bytes(r.point.at);
  return {double(size), median_gbps(r), gbps_at(moved, a.ci_high_ns), gbps_at(moved, a.ci_low_ns), round_times(r)};
}

/// The curve families of one op, by kernel.
struct Families {
  std::map<std::string, Curve> temporal, nontemporal, rep, pf, nopf;
};

/// Files `r` (measured, plain, of its op) into its families.
void classify(const Result& r, Families& f) {
  const std::string& kernel = r.point.kernel;
  const KernelSpec* spec = r.kind == KernelKind::generated && r.spec ? &*r.spec : nullptr;
  if (r.kind != KernelKind::baseline && !spec) return;
  const GlibcPath path = glibc_path(kernel, spec);
  if (path == GlibcPath::none) return;
  const CurvePoint p = curve_point(r);
  if (path == GlibcPath::rep) {
    f.rep[kernel].push_back(p);
    return;
  }
  (path == GlibcPath::nontemporal ? f.nontemporal : f.temporal)[kernel].push_back(p);
  (spec->prefetch == Prefetch::none ? f.nopf : f.pf)[kernel].push_back(p);
}

Curve family_envelope(const std::map<std::string, Curve>& m) {
  std::vector<Curve> v;
  for (const auto& [k, c] : m) v.push_back(c);
  return envelope(v);
}

Curve vectors(const Families& f) {
  std::map<std::string, Curve> all = f.temporal;
  all.insert(f.nontemporal.begin(), f.nontemporal.end());
  return family_envelope(all);
}

}  // namespace

bool at_defaults(const Result& r, CacheMode cache, uint32_t threads) {
  Coords c;
  c.cache = cache;
  c.threads = threads;
  return r.point.at.harness == Harness::kex && condition(r.point.at) == condition(c);
}

std::vector<uint32_t> crossover_threads(const RunDoc& run) {
  std::set<uint32_t> ts;
  for (const Result& r : run.results)
    if (r.ok() && (at_defaults(r, r.point.at.cache, r.point.at.threads))) ts.insert(r.point.at.threads);
  if (ts.empty()) ts.insert(1);
  return {ts.begin(), ts.end()};
}

std::optional<CacheMode> crossover_cache(const RunDoc& run, const std::string& cache_in) {
  if (!cache_in.empty()) return parse_cache_mode(cache_in);
  std::optional<CacheMode> cache;
  for (const Result& r : run.results)
    if (r.ok() && r.op == Op::copy && (at_defaults(r, CacheMode::warm) || at_defaults(r, CacheMode::cold))) {
      if (r.point.at.cache == CacheMode::warm) return CacheMode::warm;
      if (!cache) cache = r.point.at.cache;
    }
  return cache;
}

Crossovers find_crossovers(const RunDoc& run, const std::string& cache_in, double margin, uint32_t threads) {
  Crossovers x;
  x.margin = margin;
  x.threads = threads;
  const std::optional<CacheMode> cache = crossover_cache(run, cache_in);
  x.cache = cache ? std::string(to_string(*cache)) : cache_in;
  Families copy, clear;
  for (const Result& r : run.results) {
    if (!cache || !r.ok() || !at_defaults(r, *cache, threads) || fill_of(r) != 0) continue;
    if (r.op == Op::copy) x.max_size = std::max(x.max_size, double(r.point.at.size));
    if (r.op != Op::read) classify(r, r.op == Op::copy ? copy : clear);
  }
  x.nt = compare_curves(family_envelope(copy.nontemporal), family_envelope(copy.temporal), margin);
  x.rep_movsb = compare_curves(family_envelope(copy.rep), vectors(copy), margin);
  x.prefetch = compare_curves(family_envelope(copy.pf), family_envelope(copy.nopf), margin);
  x.rep_stosb = compare_curves(family_envelope(clear.rep), vectors(clear), margin);
  return x;
}

void check_crossover_data(const RunDoc& run, const std::string& cache_in, const std::string& file) {
  const std::optional<CacheMode> cache = crossover_cache(run, cache_in);
  std::map<std::string, size_t> has;  // "cache warm, dist:64" -> copy points
  for (const Result& r : run.results) {
    if (!r.ok() || r.op != Op::copy || r.point.at.harness != Harness::kex) continue;
    if (cache && at_defaults(r, *cache, r.point.at.threads)) return;  // any thread count: each gets its report
    Coords c = condition(r.point.at);
    c.cache = CacheMode::warm;  // named first, not among the other coordinates
    const std::string label = condition_label(c);
    ++has[std::string(to_string(r.point.at.cache)) + (label.empty() ? "" : " " + label)];
  }
  std::string what;
  for (const auto& [k, n] : has) what += (what.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
  throw InputError(file, "no measured copy points at cache " + (cache_in.empty() ? std::string("warm or cold") : cache_in) +
                             " with the default layout, call pattern and data; the file has " +
                             (what.empty() ? std::string("no measured copy points") : "copy points at " + what));
}

namespace {
const SizeRange* widest(const std::vector<SizeRange>& wins) {
  const SizeRange* best = nullptr;
  for (const auto& r : wins)
    if (!best || r.hi / r.lo > best->hi / best->lo) best = &r;
  return best;
}

std::optional<uint64_t> bytes(const std::optional<double>& size) {
  return size ? std::optional<uint64_t>(uint64_t(*size)) : std::nullopt;
}

/// glibc takes the non-temporal, rep movsb and rep stosb paths for sizes above the threshold
/// (`cmp threshold, %rdx; ja` in glibc 2.36's memmove/memset-vec-unaligned-erms), so the value
/// that starts them at the crossover's first size is that size - 1.
Tunable tunable(const char* name, Op op, const SizeRange& r, double min_value = 0) {
  return {std::string("glibc.cpu.") + name, uint64_t(std::max(r.lo - 1, min_value)), op, uint64_t(r.lo),
          uint64_t(r.hi), bytes(r.below), bytes(r.above), std::nullopt};
}
}  // namespace

std::vector<Tunable> suggested(const PathWins& w) {
  std::vector<Tunable> out;
  if (w.nt) out.push_back(tunable("x86_non_temporal_threshold", Op::copy, *w.nt, double(kGlibcNtMin)));
  if (const SizeRange* r = widest(w.rep_movsb)) out.push_back(tunable("x86_rep_movsb_threshold", Op::copy, *r));
  if (const SizeRange* r = widest(w.rep_stosb)) out.push_back(tunable("x86_rep_stosb_threshold", Op::clear, *r));
  return out;
}

std::vector<Tunable> suggested(const Crossovers& x) {
  return suggested(PathWins{x.nt.sustained(), x.rep_movsb.wins, x.rep_stosb.wins});
}

std::string tunables_string(const std::vector<Tunable>& t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) s += (i ? ":" : "") + t[i].name + "=" + std::to_string(t[i].value);
  return s;
}

std::string suggested_tunables(const Crossovers& x) { return tunables_string(suggested(x)); }

}  // namespace kex
