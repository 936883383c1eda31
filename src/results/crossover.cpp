#include "src/results/crossover.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>

#include "src/results/results.hpp"

namespace kex {

Curve envelope(const std::vector<Curve>& curves) {
  std::map<double, double> best;
  for (const auto& c : curves)
    for (const auto& p : c) {
      auto [it, fresh] = best.emplace(p.size, p.gbps);
      if (!fresh) it->second = std::max(it->second, p.gbps);
    }
  Curve out;
  for (auto [s, g] : best) out.push_back({s, g});
  return out;
}

namespace {
/// (size, a wins) over the common sizes, ascending.
std::vector<std::pair<double, bool>> duel(const Curve& a, const Curve& b, double margin) {
  std::map<double, double> mb;
  for (const auto& p : b) mb[p.size] = p.gbps;
  std::vector<std::pair<double, bool>> out;
  Curve sa = a;
  std::sort(sa.begin(), sa.end(), [](const CurvePoint& x, const CurvePoint& y) { return x.size < y.size; });
  for (const auto& p : sa) {
    auto it = mb.find(p.size);
    if (it == mb.end()) continue;
    out.emplace_back(p.size, p.gbps > it->second * (1 + margin));
  }
  return out;
}
}  // namespace

std::vector<SizeRange> winning_ranges(const Curve& a, const Curve& b, double margin) {
  std::vector<SizeRange> out;
  bool open = false;
  for (auto [s, win] : duel(a, b, margin)) {
    if (win && !open) out.push_back({s, s});
    if (win) out.back().hi = s;
    open = win;
  }
  return out;
}

std::optional<double> sustained_crossover(const Curve& a, const Curve& b, double margin) {
  auto d = duel(a, b, margin);
  if (d.empty() || !d.back().second) return std::nullopt;
  double from = d.back().first;
  for (size_t i = d.size(); i-- > 0 && d[i].second;) from = d[i].first;
  return from;
}

Crossovers find_crossovers(const RunDoc& run, const std::string& cache_in, double margin) {
  Crossovers x;
  // The default conditions at a cache mode: what glibc's thresholds are about.
  auto plain = [](const Result& r, CacheMode cache) {
    Coords c;
    c.cache = cache;
    return r.point.at.harness == Harness::kex && condition(r.point.at) == condition(c);
  };
  std::optional<CacheMode> cache = cache_in.empty() ? std::nullopt : parse_cache_mode(cache_in);
  if (!cache)
    for (const Result& r : run.results)
      if (r.ok() && r.op == Op::copy && (plain(r, CacheMode::warm) || plain(r, CacheMode::cold))) {
        if (r.point.at.cache == CacheMode::warm) {
          cache = CacheMode::warm;
          break;
        }
        if (!cache) cache = r.point.at.cache;
      }
  x.cache = cache ? std::string(to_string(*cache)) : cache_in;
  std::map<std::string, Curve> temporal, nontemporal, rep, pf, nopf;
  for (const Result& r : run.results) {
    if (!cache || !r.ok() || r.op != Op::copy || !plain(r, *cache)) continue;
    const double size = double(r.point.at.size);
    x.max_size = std::max(x.max_size, size);
    const std::string& kernel = r.point.kernel;
    const CurvePoint p{size, median_gbps(r)};
    if (r.kind == KernelKind::baseline) {
      if (kernel == "rep_movsb") rep[kernel].push_back(p);
      continue;
    }
    if (r.kind != KernelKind::generated || !r.spec) continue;
    const KernelSpec& s = *r.spec;
    if (s.regs == RegClass::string) {
      if (s.unroll == 1 && s.direction == Direction::forward) rep[kernel].push_back(p);
      continue;
    }
    (s.store == Store::nontemporal ? nontemporal : temporal)[kernel].push_back(p);
    (s.prefetch == Prefetch::none ? nopf : pf)[kernel].push_back(p);
  }
  auto env = [](const std::map<std::string, Curve>& m) {
    std::vector<Curve> v;
    for (const auto& [k, c] : m) v.push_back(c);
    return envelope(v);
  };
  Curve T = env(temporal), N = env(nontemporal), R = env(rep), P = env(pf), NP = env(nopf);
  std::map<std::string, Curve> all = temporal;
  all.insert(nontemporal.begin(), nontemporal.end());
  Curve V = env(all);
  x.nt_compared = !T.empty() && !N.empty();
  if (x.nt_compared) x.nt_above = sustained_crossover(N, T, margin);
  x.rep_compared = !R.empty() && !V.empty();
  if (x.rep_compared) x.rep_movsb_wins = winning_ranges(R, V, margin);
  x.prefetch_compared = !P.empty() && !NP.empty();
  if (x.prefetch_compared) {
    x.prefetch_helps = winning_ranges(P, NP, margin);
    if (!x.prefetch_helps.empty()) {
      double last = x.prefetch_helps.back().hi;
      for (const auto& p : P)
        if (p.size > last && (!x.prefetch_stops || p.size < *x.prefetch_stops)) x.prefetch_stops = p.size;
    }
  }
  return x;
}

namespace {
constexpr double kGlibcNtMin = 0x4040;  // glibc clamps x86_non_temporal_threshold to at least this

const SizeRange* main_rep_range(const Crossovers& x) {
  const SizeRange* best = nullptr;
  for (const auto& r : x.rep_movsb_wins)
    if (!best || r.hi / r.lo > best->hi / best->lo) best = &r;
  return best;
}

std::string bytes(double b) {
  std::ostringstream o;
  o << uint64_t(b) << " (" << human_bytes(b) << ")";
  return o.str();
}
}  // namespace

std::string suggested_tunables(const Crossovers& x) {
  std::vector<std::string> parts;
  if (x.nt_above) parts.push_back("glibc.cpu.x86_non_temporal_threshold=" +
                                  std::to_string(uint64_t(std::max(*x.nt_above, kGlibcNtMin))));
  if (const SizeRange* r = main_rep_range(x))
    parts.push_back("glibc.cpu.x86_rep_movsb_threshold=" + std::to_string(uint64_t(r->lo)));
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ":" : "") + parts[i];
  return s;
}

std::string format_crossovers(const Crossovers& x) {
  std::ostringstream o;
  o << "crossovers (copy, cache " << (x.cache.empty() ? "none" : x.cache) << ", largest size "
    << human_bytes(x.max_size) << "):\n";
  o << "  non-temporal vs temporal stores: ";
  if (!x.nt_compared) o << "not measured (needs both temporal and non-temporal loops)\n";
  else if (x.nt_above) o << "non-temporal wins from " << bytes(*x.nt_above) << " up\n";
  else o << "temporal stores win at the largest size measured; no crossover up to " << human_bytes(x.max_size) << "\n";
  o << "  rep movsb vs best vector loop:   ";
  if (!x.rep_compared) o << "not measured (needs rep_movsb and vector loops)\n";
  else if (x.rep_movsb_wins.empty()) o << "rep movsb never wins\n";
  else {
    o << "rep movsb wins in ";
    for (size_t i = 0; i < x.rep_movsb_wins.size(); ++i)
      o << (i ? ", " : "") << "[" << human_bytes(x.rep_movsb_wins[i].lo) << ", " << human_bytes(x.rep_movsb_wins[i].hi)
        << "]";
    o << "\n";
  }
  o << "  prefetching:                     ";
  if (!x.prefetch_compared) o << "not measured (needs loops with and without prefetch)\n";
  else if (x.prefetch_helps.empty()) o << "never helps\n";
  else {
    o << "helps in ";
    for (size_t i = 0; i < x.prefetch_helps.size(); ++i)
      o << (i ? ", " : "") << "[" << human_bytes(x.prefetch_helps[i].lo) << ", " << human_bytes(x.prefetch_helps[i].hi)
        << "]";
    if (x.prefetch_stops) o << "; stops helping from " << human_bytes(*x.prefetch_stops) << "\n";
    else o << "; still helps at the largest size measured\n";
  }
  std::string t = suggested_tunables(x);
  if (t.empty()) {
    o << "  suggested GLIBC_TUNABLES: none (the data shows neither crossover)\n";
  } else {
    o << "  suggested: GLIBC_TUNABLES=" << t << "\n";
    if (x.nt_above) {
      o << "    x86_non_temporal_threshold: copies of at least this many bytes use non-temporal stores";
      if (*x.nt_above < kGlibcNtMin) o << " (raised to glibc's minimum 0x4040)";
      o << "\n";
    }
    if (const SizeRange* r = main_rep_range(x)) {
      o << "    x86_rep_movsb_threshold: glibc uses rep movsb from this size up to its rep_movsb_stop_threshold "
           "(the non-temporal threshold by default); rep movsb won here up to "
        << human_bytes(r->hi) << "\n";
    }
  }
  if (x.nt_compared && !x.nt_above)
    o << "    (no x86_non_temporal_threshold suggested: non-temporal stores did not win up to "
      << human_bytes(x.max_size) << "; measure larger sizes to find it)\n";
  if (x.rep_compared && x.rep_movsb_wins.empty())
    o << "    (no x86_rep_movsb_threshold suggested: rep movsb never beat the vector loops; a threshold at or above "
         "the non-temporal threshold keeps glibc off it)\n";
  return o.str();
}

}  // namespace kex
