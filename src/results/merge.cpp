#include "src/results/merge.hpp"

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

using nlohmann::json;

namespace {

struct Piece {
  std::string path;
  json context;
  json benchmarks;
  int index = 0, count = 1;
};

struct Group {
  std::string key;
  std::vector<Piece> pieces;
};

}  // namespace

json merge_results(const std::vector<MergeInput>& inputs, std::vector<std::string>* warnings) {
  std::vector<Group> groups;
  for (const auto& in : inputs)
    for (auto& run : split_machines(in.doc)) {
      Piece p;
      p.path = in.path;
      p.context = run.value("context", json::object());
      p.benchmarks = run.value("benchmarks", json::array());
      if (p.context.contains("shard") && p.context["shard"].is_object()) {
        p.index = p.context["shard"].value("index", 0);
        p.count = p.context["shard"].value("count", 1);
        if (p.count < 1 || p.index < 0 || p.index >= p.count)
          throw InputError(in.path + ": context.shard: " + p.context["shard"].dump() +
                          ": index must be in [0, count) and count >= 1");
      }
      std::string key = machine_key(p.context);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
      if (it == groups.end()) {
        groups.push_back({key, {}});
        it = groups.end() - 1;
      }
      it->pieces.push_back(std::move(p));
    }
  if (groups.empty()) throw InputError("merge: no input files");

  std::vector<json> merged;  // one per group
  for (auto& g : groups) {
    std::stable_sort(g.pieces.begin(), g.pieces.end(), [](const Piece& a, const Piece& b) { return a.index < b.index; });
    int count = 0;
    std::map<int, std::string> seen_shard;
    for (const auto& p : g.pieces) {
      if (p.count == 1 && g.pieces.size() == 1) break;
      if (p.count > 1) {
        if (count && p.count != count)
          throw InputError(p.path + ": context.shard.count: " + std::to_string(p.count) + ": other shards of machine " +
                          g.key + " say " + std::to_string(count) + "; merge shards of one run");
        count = p.count;
        auto [it, fresh] = seen_shard.emplace(p.index, p.path);
        if (!fresh)
          throw InputError(p.path + ": context.shard.index: " + std::to_string(p.index) + ": shard " +
                          std::to_string(p.index) + "/" + std::to_string(p.count) + " of machine " + g.key +
                          " is also in " + it->second);
      }
    }
    if (count > 1 && int(seen_shard.size()) < count && warnings) {
      std::string missing;
      for (int i = 0; i < count; ++i)
        if (!seen_shard.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
      warnings->push_back("machine " + g.key + ": shard(s) " + missing + " of " + std::to_string(count) +
                          " missing: the merged point set is incomplete");
    }
    json ctx = g.pieces.front().context;
    json from = json::array();
    bool interrupted = false;
    std::map<std::string, std::string> where;
    json benches = json::array();
    for (const auto& p : g.pieces) {
      from.push_back({{"file", p.path},
                      {"host_name", p.context.value("host_name", std::string())},
                      {"date", p.context.value("date", std::string())},
                      {"shard", {{"index", p.index}, {"count", p.count}}}});
      interrupted |= p.context.value("interrupted", false);
      for (const auto& e : p.benchmarks) {
        std::string name = e.value("name", std::string());
        auto [it, fresh] = where.emplace(name, p.path);
        if (!fresh)
          throw InputError(p.path + ": benchmarks: " + name + ": also in " + it->second + " (machine " + g.key +
                          "); merge shards of one run, or runs of different machines");
        benches.push_back(e);
      }
    }
    bool complete = count <= 1 || int(seen_shard.size()) == count;
    ctx["shard"] = {{"index", 0}, {"count", complete ? 1 : count}};
    if (!complete) {
      json idx = json::array();
      for (auto& [i, _] : seen_shard) idx.push_back(i);
      ctx["shard"]["merged_indices"] = idx;
    }
    ctx["interrupted"] = interrupted;
    if (g.pieces.size() > 1 || count > 1) ctx["merged_from"] = from;
    merged.push_back({{"context", ctx}, {"benchmarks", benches}});
  }
  if (merged.size() == 1) return merged.front();

  json machines = json::array();
  json benches = json::array();
  for (size_t i = 0; i < groups.size(); ++i) {
    machines.push_back({{"key", groups[i].key}, {"context", merged[i]["context"]}});
    for (auto e : merged[i]["benchmarks"]) {
      e["machine"] = groups[i].key;
      benches.push_back(std::move(e));
    }
  }
  const json& c0 = merged.front()["context"];
  json ctx = {{"date", c0.value("date", std::string())},
              {"host_name", "merged"},
              {"json_schema_version", c0.value("json_schema_version", 1)},
              {"kex_version", c0.value("kex_version", std::string())},
              {"library_build_type", c0.value("library_build_type", std::string("release"))},
              {"merged", true},
              {"machines", machines}};
  return {{"context", ctx}, {"benchmarks", benches}};
}

std::string machine_table(const json& merged, const std::string& filter, bool per_point) {
  const std::optional<std::regex> re = filter_regex(filter);
  auto runs = split_machines(merged);
  std::ostringstream o;
  char buf[1024];
  o << "machines:\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const json ctx = runs[i].value("context", json::object());
    std::set<std::string> hosts;
    if (ctx.contains("merged_from"))
      for (const auto& f : ctx["merged_from"]) hosts.insert(f.value("host_name", std::string()));
    else hosts.insert(ctx.value("host_name", std::string()));
    std::string hs;
    for (const auto& h : hosts) hs += (hs.empty() ? "" : ", ") + h;
    size_t ok = 0, total = 0;
    for (const auto& e : runs[i]["benchmarks"]) {
      ++total;
      ok += entry_ok(e);
    }
    const json shard = ctx.value("shard", json::object());
    std::snprintf(buf, sizeof buf, "  M%zu  %s\n      hosts: %s; %zu of %zu entries measured; shards: %s\n", i + 1,
                  machine_key(ctx).c_str(), hs.c_str(), ok, total,
                  shard.value("count", 1) == 1 ? "complete" : shard.dump().c_str());
    o << buf;
  }
  // key (kernel or entry) -> per machine: size -> gbps
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::map<double, double>>> data;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& e : runs[i]["benchmarks"]) {
      if (!entry_ok(e)) continue;
      std::string key = per_point ? e.value("name", std::string()) : e.value("kernel", e.value("name", std::string()));
      if (re && !std::regex_search(key, *re)) continue;
      auto g = entry_gbps(e);
      if (!g) continue;
      auto [it, fresh] = data.emplace(key, std::vector<std::map<double, double>>(runs.size()));
      if (fresh) order.push_back(key);
      it->second[i][num(e, "size").value_or(0)] = *g;
    }
  size_t w = per_point ? 9 : 6;
  for (const auto& k : order) w = std::max(w, k.size());
  o << "\n"
    << (per_point ? "median GB/s per entry" : "GB/s per kernel: geometric mean of median GB/s over the sizes every machine measured")
    << " (10^9 bytes/s; - = not measured):\n";
  std::snprintf(buf, sizeof buf, "%-*s", int(w), per_point ? "benchmark" : "kernel");
  o << buf;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::snprintf(buf, sizeof buf, " %10s", ("M" + std::to_string(i + 1)).c_str());
    o << buf;
  }
  if (runs.size() > 1) o << "   M2/M1";
  o << "\n";
  for (const auto& k : order) {
    const auto& per = data[k];
    std::set<double> common;
    bool firstset = true;
    for (const auto& m : per) {
      if (m.empty()) continue;
      std::set<double> s;
      for (auto& [size, _] : m) s.insert(size);
      if (firstset) common = s;
      else {
        std::set<double> x;
        std::set_intersection(common.begin(), common.end(), s.begin(), s.end(), std::inserter(x, x.begin()));
        common = x;
      }
      firstset = false;
    }
    std::vector<double> vals(per.size(), NAN);
    for (size_t i = 0; i < per.size(); ++i) {
      if (per[i].empty() || common.empty()) continue;
      double ls = 0;
      for (double s : common) ls += std::log(per[i].at(s));
      vals[i] = std::exp(ls / double(common.size()));
    }
    std::snprintf(buf, sizeof buf, "%-*s", int(w), k.c_str());
    o << buf;
    for (double v : vals) {
      if (std::isnan(v)) std::snprintf(buf, sizeof buf, " %10s", "-");
      else std::snprintf(buf, sizeof buf, " %10.3f", v);
      o << buf;
    }
    if (vals.size() > 1) {
      if (std::isnan(vals[0]) || std::isnan(vals[1])) std::snprintf(buf, sizeof buf, " %7s", "-");
      else std::snprintf(buf, sizeof buf, " %7.3f", vals[1] / vals[0]);
      o << buf;
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace kex
