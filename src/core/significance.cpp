#include "src/core/significance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kex {

namespace {

/// Number of arrangements giving each U = 0..n1*n2 (the exact null distribution).
std::vector<double> u_counts(size_t n1, size_t n2) {
  // f[i][j][u]: arrangements of i values of a and j of b with U(a) = u. Built up
  // by adding the largest value, which is an a (adds j to U) or a b (adds 0).
  const size_t m = n1 * n2;
  std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (size_t i = 0; i <= n1; ++i)
    for (size_t j = 0; j <= n2; ++j) {
      f[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1;
        continue;
      }
      for (size_t u = 0; u <= i * j; ++u) {
        double v = 0;
        if (u >= j && u - j <= (i - 1) * j) v += f[i - 1][j][u - j];
        if (u <= i * (j - 1)) v += f[i][j - 1][u];
        f[i][j][u] = v;
      }
    }
  std::vector<double> out = f[n1][n2];
  out.resize(m + 1, 0.0);
  return out;
}

double exact_two_sided(double u, size_t n1, size_t n2) {
  const std::vector<double> c = u_counts(n1, n2);
  const double total = std::accumulate(c.begin(), c.end(), 0.0);
  const double m = double(n1 * n2);
  // scipy: p = 2 * P(U >= max(u, m - u)), capped at 1.
  const double hi = std::max(u, m - u);
  double tail = 0;
  for (size_t k = 0; k < c.size(); ++k)
    if (double(k) >= hi - 1e-9) tail += c[k];
  return std::min(1.0, 2 * tail / total);
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest r;
  const size_t n1 = a.size(), n2 = b.size();
  if (!n1 || !n2) return r;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const size_t n = all.size();
  double rank_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double mid = (double(i + 1) + double(j)) / 2;  // ranks i+1 .. j
    const double t = double(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_a += mid;
    i = j;
  }
  r.u = rank_a - double(n1) * double(n1 + 1) / 2;
  if ((n1 <= 8 || n2 <= 8) && !ties) {  // scipy's "auto": exact unless both are large or there are ties
    r.exact = true;
    r.p = exact_two_sided(r.u, n1, n2);
    return r;
  }
  const double mu = double(n1) * double(n2) / 2;
  const double var = double(n1) * double(n2) / 12 * ((double(n) + 1) - tie_term / (double(n) * double(n - 1)));
  if (var <= 0) return r;  // every value equal: no evidence either way
  const double big = std::max(r.u, double(n1) * double(n2) - r.u);
  const double z = (big - mu - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, 2 * normal_sf(z));
  return r;
}

double smallest_p(size_t n1, size_t n2) {
  if (!n1 || !n2) return 1;
  // Both samples at the extreme: one arrangement in C(n1 + n2, n1), doubled.
  double c = 1;
  for (size_t k = 1; k <= n1; ++k) c = c * double(n2 + k) / double(k);
  return std::min(1.0, 2 / c);
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
  std::vector<double> out(m);
  double running = 1;
  for (size_t r = 0; r < m; ++r) {  // from the largest p down: adj = min over ranks >= k of p * m / k
    const size_t k = m - r;         // 1-based rank in ascending order
    running = std::min(running, p[idx[r]] * double(m) / double(k));
    out[idx[r]] = std::min(1.0, running);
  }
  return out;
}

std::vector<double> holm(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(m);
  double running = 0;
  for (size_t k = 0; k < m; ++k) {
    running = std::max(running, p[idx[k]] * double(m - k));
    out[idx[k]] = std::min(1.0, running);
  }
  return out;
}

}  // namespace kex
