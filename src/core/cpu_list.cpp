#include "src/core/cpu_list.hpp"

#include <algorithm>

#include "src/core/error.hpp"

namespace kex {

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_cpu_list(const std::string& text, const std::string& where) {
  std::vector<int> v;
  size_t p = 0;
  auto number = [&]() {
    const size_t s = p;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') ++p;
    if (p == s || p - s > 6) throw InputError(where, "bad CPU list \"" + text + "\" (expected e.g. 0-3,6)");
    return std::stoi(text.substr(s, p - s));
  };
  while (p < text.size()) {
    const int a = number();
    int b = a;
    if (p < text.size() && text[p] == '-') {
      ++p;
      b = number();
      if (b < a) throw InputError(where, "bad CPU list \"" + text + "\" (range " + std::to_string(a) + "-" + std::to_string(b) + " runs backwards)");
    }
    for (int i = a; i <= b; ++i) v.push_back(i);
    if (p < text.size() && text[p] != ',') throw InputError(where, "bad CPU list \"" + text + "\" (expected e.g. 0-3,6)");
    if (p < text.size()) ++p;
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace kex
