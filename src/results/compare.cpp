#include "src/results/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "src/core/error.hpp"
#include "src/results/results.hpp"

namespace kex {

bool intervals_overlap(double lo1, double hi1, double lo2, double hi2) { return lo1 <= hi2 && lo2 <= hi1; }

Comparison compare_results(const RunDoc& a, const RunDoc& b, const std::string& filter) {
  const std::optional<std::regex> re = filter_regex(filter);
  auto index = [&](const RunDoc& doc) {
    std::vector<std::string> order;
    std::map<std::string, const Result*> m;
    for (const Result& r : doc.results) {
      const std::string name = r.name();
      if (re && !std::regex_search(name, *re)) continue;
      if (!r.ok() || m.count(name)) continue;
      m[name] = &r;
      order.push_back(name);
    }
    return std::make_pair(order, m);
  };
  auto [order_a, ma] = index(a);
  auto [order_b, mb] = index(b);
  Comparison c;
  double logsum = 0;
  for (const auto& name : order_a) {
    auto it = mb.find(name);
    if (it == mb.end()) {
      c.only_a.push_back(name);
      continue;
    }
    const Aggregate ga = aggregate(*ma[name]), gb = aggregate(*it->second);
    CompareRow r;
    r.name = name;
    r.a_ns = ga.median_ns;
    r.b_ns = gb.median_ns;
    r.ratio = r.a_ns > 0 ? r.b_ns / r.a_ns : INFINITY;
    if (ga.ci_high_ns > ga.ci_low_ns && gb.ci_high_ns > gb.ci_low_ns)  // both sides have a CI
      r.ci_overlap = intervals_overlap(ga.ci_low_ns, ga.ci_high_ns, gb.ci_low_ns, gb.ci_high_ns);
    logsum += std::log(r.ratio);
    c.rows.push_back(r);
  }
  for (const auto& name : order_b)
    if (!ma.count(name)) c.only_b.push_back(name);
  c.geomean_ratio = c.rows.empty() ? 0 : std::exp(logsum / double(c.rows.size()));
  return c;
}

std::vector<const CompareRow*> regressions(const Comparison& c, double limit) {
  std::vector<const CompareRow*> out;
  for (const auto& r : c.rows)
    if (r.ratio > limit && r.ci_overlap != std::optional<bool>(true)) out.push_back(&r);
  return out;
}

std::string format_comparison(const Comparison& c, const std::string& a_label, const std::string& b_label) {
  size_t w = 9;
  for (const auto& r : c.rows) w = std::max(w, r.name.size());
  std::ostringstream o;
  char buf[512];
  o << "A: " << a_label << "\nB: " << b_label << "\n";
  std::snprintf(buf, sizeof buf, "%-*s %14s %14s %9s  %s\n", int(w), "benchmark", "A median ns", "B median ns", "B/A",
                "95% CIs");
  o << buf;
  for (const auto& r : c.rows) {
    const char* ci = !r.ci_overlap ? "n/a" : *r.ci_overlap ? "overlap" : "apart";
    std::snprintf(buf, sizeof buf, "%-*s %14.2f %14.2f %9.4f  %s\n", int(w), r.name.c_str(), r.a_ns, r.b_ns, r.ratio,
                  ci);
    o << buf;
  }
  size_t apart = 0, slower = 0, faster = 0;
  for (const auto& r : c.rows)
    if (r.ci_overlap == std::optional<bool>(false)) {
      ++apart;
      (r.ratio > 1 ? slower : faster)++;
    }
  std::snprintf(buf, sizeof buf,
                "summary: %zu matched, geometric mean of B/A time ratios %.4f (%s); CIs apart in %zu (B slower %zu, "
                "B faster %zu); only in A: %zu, only in B: %zu\n",
                c.rows.size(), c.geomean_ratio,
                c.rows.empty() ? "nothing to compare"
                : c.geomean_ratio > 1 ? "B slower"
                : c.geomean_ratio < 1 ? "B faster"
                                      : "equal",
                apart, slower, faster, c.only_a.size(), c.only_b.size());
  o << buf;
  return o.str();
}

}  // namespace kex
