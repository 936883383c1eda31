#include "src/core/nearest.hpp"

#include <algorithm>
#include <utility>

namespace kex {

namespace {

std::string_view stem(std::string_view s) {
  const size_t dot = s.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? s : s.substr(0, dot);
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: two back for a swap.
  std::vector<size_t> back(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], back[j - 2] + 1);
    }
    std::swap(back, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& names, size_t most) {
  const size_t limit = std::clamp<size_t>(word.size() / 4, 1, 3);
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& n : names) {
    const size_t d = std::min(edit_distance(word, n), edit_distance(stem(word), stem(n)) + 1);
    if (d <= limit) near.push_back({d, n});
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < near.size() && out.size() < most; ++i)
    if (std::find(out.begin(), out.end(), near[i].second) == out.end()) out.push_back(near[i].second);
  return out;
}

}  // namespace kex
