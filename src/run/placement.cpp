#include "src/run/placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "src/core/error.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

/// Ranks of `values` in order of first appearance after rotating so `first` comes first.
std::map<int, size_t> rotated_ranks(std::vector<int> values, int first) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto it = std::find(values.begin(), values.end(), first);
  if (it != values.end()) std::rotate(values.begin(), it, values.end());
  std::map<int, size_t> rank;
  for (size_t i = 0; i < values.size(); ++i) rank[values[i]] = i;
  return rank;
}

}  // namespace

std::vector<ThreadPlace> order_places(PlacementMode mode, const std::vector<ThreadPlace>& cpus, int first) {
  const auto f = std::find_if(cpus.begin(), cpus.end(), [&](const ThreadPlace& p) { return p.cpu == first; });
  if (f == cpus.end()) return {};
  // A CPU hwloc does not place is its own core, ordered as the CPU numbers.
  constexpr int kUnknownCore = -(1 << 30);
  std::vector<ThreadPlace> v = cpus;
  for (ThreadPlace& p : v)
    if (p.core < 0) p.core = kUnknownCore + p.cpu;
  const ThreadPlace head = *std::find_if(v.begin(), v.end(), [&](const ThreadPlace& p) { return p.cpu == first; });
  std::vector<int> l3s, cores;
  for (const ThreadPlace& p : v) {
    l3s.push_back(p.l3);
    cores.push_back(p.core);
  }
  const std::map<int, size_t> l3_rank = rotated_ranks(l3s, head.l3), core_rank = rotated_ranks(cores, head.core);
  // The SMT position of each CPU in its core (0 for the first sibling), the head's core's head first.
  std::map<int, std::vector<int>> siblings;
  for (const ThreadPlace& p : v) siblings[p.core].push_back(p.cpu);
  std::map<int, size_t> smt;
  for (auto& [core, list] : siblings) {
    std::sort(list.begin(), list.end());
    if (core == head.core) std::rotate(list.begin(), std::find(list.begin(), list.end(), head.cpu), list.end());
    for (size_t i = 0; i < list.size(); ++i) smt[list[i]] = i;
  }
  // Spread: the n-th core of each domain before the (n+1)-th of any (round robin over domains).
  std::map<int, size_t> nth_in_domain;
  {
    std::map<int, std::vector<int>> domain_cores;
    for (const ThreadPlace& p : v) domain_cores[p.l3].push_back(p.core);
    for (auto& [l3, list] : domain_cores) {
      std::sort(list.begin(), list.end(), [&](int a, int b) { return core_rank.at(a) < core_rank.at(b); });
      list.erase(std::unique(list.begin(), list.end()), list.end());
      for (size_t i = 0; i < list.size(); ++i) nth_in_domain[list[i]] = i;
    }
  }
  auto key = [&](const ThreadPlace& p) {
    if (mode == PlacementMode::compact)
      return std::tuple(l3_rank.at(p.l3), core_rank.at(p.core), smt.at(p.cpu), size_t(0));
    return std::tuple(smt.at(p.cpu), nth_in_domain.at(p.core), l3_rank.at(p.l3), core_rank.at(p.core));
  };
  std::stable_sort(v.begin(), v.end(), [&](const ThreadPlace& a, const ThreadPlace& b) { return key(a) < key(b); });
  for (ThreadPlace& p : v)
    if (p.core < -1) p.core = -1;  // unknown again
  return v;
}

std::vector<ThreadPlace> place_threads(const PlacementRequest& request, uint32_t threads, int first,
                                       const std::vector<int>& allowed) {
  const std::string mask = cpu_list_text(allowed);
  std::vector<int> pool = request.mode == PlacementMode::list ? request.cpus : allowed;
  for (int c : pool)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      throw InputError("--placement", std::to_string(c) + " is not a CPU this process may run on (affinity mask " +
                                          mask + ")");
  if (threads > pool.size())
    throw InputError("threads", std::to_string(threads) + " workers need " + std::to_string(threads) +
                                    " CPUs; the affinity mask " + mask + " allows " + std::to_string(allowed.size()) +
                                    (request.mode == PlacementMode::list
                                         ? " and --placement lists " + std::to_string(pool.size())
                                         : std::string()) +
                                    " (one worker per CPU)");
  std::vector<ThreadPlace> out;
  if (request.mode == PlacementMode::list) {
    for (uint32_t k = 0; k < threads; ++k) out.push_back(place_of_cpu(pool[k]));
    return out;
  }
  std::vector<ThreadPlace> places;
  for (int c : pool) places.push_back(place_of_cpu(c));
  if (std::find(pool.begin(), pool.end(), first) == pool.end()) first = pool.front();
  out = order_places(request.mode, places, first);
  out.resize(threads);
  return out;
}

}  // namespace kex
