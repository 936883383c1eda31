// The results document: a run's (or a merge's machines') context, entries and group
// answers as JSON, and back (the entries: result_json.cpp).
#include <cmath>
#include <cstdio>

#include "src/core/error.hpp"
#include "src/model/paired.hpp"
#include "src/model/result_json.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

std::string run_label(const RunContext& c) {
  const std::string& host = c.host_name;
  const std::string& model = c.machine.cpu_model;
  if (host.empty()) return model.empty() ? "unknown" : model;
  return model.empty() ? host : host + " (" + model + ")";
}

namespace {
std::string binary_size(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = double(b);
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f %s" : "%.3g %s", v, units[u]);
  return buf;
}
}  // namespace

std::string machine_key(const MachineInfo& m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " [%d/%d/%d]", m.family, m.model, m.stepping);
  std::string key = (m.cpu_model.empty() ? std::string("unknown CPU") : m.cpu_model) + buf;
  if (m.l1d_bytes || m.l2_bytes || m.llc_bytes)
    key += " L1d " + binary_size(m.l1d_bytes) + ", L2 " + binary_size(m.l2_bytes) + ", LLC " + binary_size(m.llc_bytes);
  return key;
}

std::vector<std::pair<std::string, double>> cache_marks(const MachineInfo& m) {
  std::vector<std::pair<std::string, double>> out;
  if (m.l1d_bytes) out.emplace_back("L1d", double(m.l1d_bytes));
  if (m.l2_bytes) out.emplace_back("L2", double(m.l2_bytes));
  if (m.llc_bytes) out.emplace_back("LLC", double(m.llc_bytes));
  return out;
}

namespace {

ordered_json ratio_json(const PairedRatio& r) {
  return {{"ratio", r.ratio}, {"low", r.low}, {"high", r.high}, {"rounds", r.rounds}};
}

/// The answers of a run's groups, written for readers outside kex (kex reads them
/// back from the repetitions' rounds, not from here).
ordered_json groups_json(const RunDoc& d) {
  ordered_json list = ordered_json::array();
  for (const GroupAnswer& g : answer_groups(d)) {
    ordered_json j;
    j["group"] = group_label(g.key);
    j["op"] = to_string(g.key.op);
    j["size"] = g.key.at.size;
    j["rounds"] = g.rounds;
    j["resolution"] = g.resolution;
    j["winner"] = d.results[g.members[0].result].name();
    ordered_json ties = ordered_json::array();
    for (const RankedMember& m : g.members)
      if (m.tie) ties.push_back(d.results[m.result].name());
    j["ties"] = ties;
    const auto next = g.next();
    j["next"] = next ? ordered_json(d.results[g.members[*next].result].name()) : ordered_json(nullptr);
    j["lead"] = next ? ratio_json(g.members[*next].vs_winner) : ordered_json(nullptr);
    ordered_json members = ordered_json::array();
    for (const RankedMember& m : g.members) {
      ordered_json e;
      e["name"] = d.results[m.result].name();
      e["score"] = m.score;
      e["tie"] = m.tie;
      e["vs_winner"] = ratio_json(m.vs_winner);
      if (m.vs_libc) e["vs_libc"] = ratio_json(*m.vs_libc);
      members.push_back(std::move(e));
    }
    j["members"] = members;
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace

ordered_json to_json(const RunDoc& d) {
  ordered_json doc;
  doc["context"] = to_json(d.context);
  ordered_json b = ordered_json::array();
  for (const auto& r : d.results) b.push_back(to_json(r));
  doc["benchmarks"] = b;
  if (ordered_json g = groups_json(d); !g.empty()) doc["groups"] = g;
  return doc;
}

ordered_json to_json(const std::vector<RunDoc>& machines) {
  if (machines.size() == 1) return to_json(machines.front());
  ordered_json list = ordered_json::array();
  ordered_json benches = ordered_json::array();
  for (const auto& d : machines) {
    const std::string key = machine_key(d.context.machine);
    list.push_back({{"key", key}, {"context", to_json(d.context)}});
    for (const auto& r : d.results) {
      ordered_json e = to_json(r);
      e["machine"] = key;
      benches.push_back(std::move(e));
    }
  }
  const RunContext& c0 = machines.empty() ? RunContext{} : machines.front().context;
  ordered_json ctx;
  ctx["date"] = c0.date;
  ctx["host_name"] = "merged";
  ctx["json_schema_version"] = kResultsSchemaVersion;
  ctx["kex_version"] = c0.build.kex_version.value_or("");
  ctx["library_build_type"] = c0.gbench.library_build_type.value_or("release");
  ctx["merged"] = true;
  ctx["machines"] = list;
  ordered_json groups = ordered_json::array();
  for (const auto& d : machines)
    for (ordered_json g : groups_json(d)) {
      g["machine"] = machine_key(d.context.machine);
      groups.push_back(std::move(g));
    }
  ordered_json doc = {{"context", ctx}, {"benchmarks", benches}};
  if (!groups.empty()) doc["groups"] = groups;
  return doc;
}

std::vector<RunDoc> docs_from_json(const json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw InputError(where, "benchmarks: missing: a results file from `kex run` (Google Benchmark envelope) is needed");
  const json ctx = doc.contains("context") ? doc["context"] : json::object();
  if (!ctx.is_object()) throw InputError(where + ": context", "not an object: an object describing the run is needed");
  auto entries = [&](const std::string& machine, RunDoc& d) {
    const auto& b = doc["benchmarks"];
    for (size_t i = 0; i < b.size(); ++i) {
      const std::string at = where + ": /benchmarks/" + std::to_string(i);
      if (!b[i].is_object()) throw InputError(at, "expected an object (a benchmark entry)");
      if (!machine.empty() && b[i].value("machine", "") != machine) continue;
      // A file without a TSC rate (hand-made, or from another tool) keeps its ns: ticks = ns.
      const double hz = d.context.machine.tsc_hz > 0 ? d.context.machine.tsc_hz : 1e9;
      d.results.push_back(result_from_json(b[i], hz, at));
    }
  };
  std::vector<RunDoc> out;
  if (ctx.contains("machines") && ctx["machines"].is_array()) {
    for (size_t i = 0; i < ctx["machines"].size(); ++i) {
      const json& m = ctx["machines"][i];
      const std::string at = where + ": context/machines/" + std::to_string(i);
      if (!m.is_object() || !m.contains("key") || !m["key"].is_string())
        throw InputError(at, "expected {key, context}");
      RunDoc d;
      d.context = context_from_json(m.value("context", json::object()), at + "/context");
      entries(m["key"].get<std::string>(), d);
      out.push_back(std::move(d));
    }
    return out;
  }
  RunDoc d;
  d.context = context_from_json(ctx, where + ": context");
  entries("", d);
  out.push_back(std::move(d));
  return out;
}

}  // namespace kex
