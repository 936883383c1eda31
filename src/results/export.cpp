#include "src/results/export.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "src/results/results.hpp"

namespace kex {

using nlohmann::json;

json to_gbench(const json& results) {
  json out;
  json ctx = results.value("context", json::object());
  // Keep the context (GB tools read only date/host/caches-style fields and ignore the rest),
  // except big per-run blobs that are not about the machine.
  ctx.erase("config");
  if (!ctx.contains("json_schema_version")) ctx["json_schema_version"] = 1;
  if (!ctx.contains("library_build_type")) ctx["library_build_type"] = "release";
  ctx["kex_export"] = "gbench";
  json not_measured = json::array();
  json benches = json::array();
  std::map<std::string, int> family;  // kernel -> family_index
  std::map<std::string, int> instance;
  for (const auto& e : results.value("benchmarks", json::array())) {
    std::string name = e.value("name", std::string());
    if (!entry_ok(e)) {
      std::string msg = e.value("error_message", e.value("skip_message", std::string("no time recorded")));
      not_measured.push_back({{"name", name}, {"message", msg}});
      continue;
    }
    std::string kernel = e.value("kernel", name);
    if (e.contains("machine")) {
      // A multi-machine merge: names must stay unique for compare.py, so prefix the machine.
      kernel = e["machine"].get<std::string>() + "|" + kernel;
      name = e["machine"].get<std::string>() + "|" + name;
    }
    auto [fi, fresh] = family.emplace(kernel, int(family.size()));
    (void)fresh;
    int inst = instance[kernel]++;
    double t = *entry_median_ns(e);
    json b;
    b["name"] = name;
    b["family_index"] = fi->second;
    b["per_family_instance_index"] = inst;
    b["run_name"] = name;
    b["run_type"] = "iteration";
    b["repetitions"] = 1;
    b["repetition_index"] = 0;
    b["threads"] = 1;
    b["iterations"] = e.value("iterations", int64_t(1));
    b["real_time"] = t;
    b["cpu_time"] = num(e, "cpu_time").value_or(t);
    if (auto u = e.value("time_unit", std::string("ns")); u != "ns") b["cpu_time"] = t;  // keep units consistent
    b["time_unit"] = "ns";
    b["label"] = e.value("kind", std::string("generated"));
    if (auto g = entry_gbps(e)) b["bytes_per_second"] = *g * 1e9;
    if (auto s = num(e, "size")) b["size"] = *s;
    if (auto c = num(e, "cycles_per_page")) b["cycles_per_page"] = *c;
    if (e.contains("stats") && e["stats"].is_object())
      for (const char* k : {"gbps", "gbps_best", "gbps_p10", "gbps_p90", "min_ns", "p10_ns", "p90_ns", "max_ns",
                            "ci95_low_ns", "ci95_high_ns", "ci_rel_halfwidth", "cycles_per_page", "bytes_per_cycle"})
        if (auto v = num(e["stats"], k)) b[k] = *v;
    benches.push_back(std::move(b));
  }
  if (!not_measured.empty()) ctx["kex_not_measured"] = not_measured;
  out["context"] = ctx;
  out["benchmarks"] = benches;
  return out;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v.get<double>());
    return buf;
  }
  return v.dump();
}

}  // namespace

std::string to_csv(const json& results) {
  static const char* param_cols[] = {"op", "regs", "unroll", "scratch", "prefetch", "pf_distance", "pf_every",
                                     "store", "direction", "align", "block_bytes", "fill", "src_offset",
                                     "dst_offset", "cache"};
  static const char* stat_cols[] = {"n", "median_ns", "min_ns", "p10_ns", "p90_ns", "max_ns", "ci95_low_ns",
                                    "ci95_high_ns", "ci_rel_halfwidth", "stop_reason", "gbps", "gbps_best",
                                    "gbps_p10", "gbps_p90", "cycles_per_page", "bytes_per_cycle", "cycles_method"};
  std::ostringstream o;
  const auto& benches = results.value("benchmarks", json::array());
  bool has_machine = false;
  for (const auto& e : benches) has_machine |= e.contains("machine");
  std::vector<std::string> header = {"name", "kernel", "kind", "size", "status", "message"};
  if (has_machine) header.insert(header.begin(), "machine");
  for (auto c : param_cols) header.push_back(c);
  for (auto c : stat_cols) header.push_back(c);
  header.push_back("preset");
  for (size_t i = 0; i < header.size(); ++i) o << (i ? "," : "") << header[i];
  o << "\r\n";
  for (const auto& e : benches) {
    std::vector<std::string> row;
    if (has_machine) row.push_back(e.value("machine", std::string()));
    row.push_back(e.value("name", std::string()));
    row.push_back(e.value("kernel", std::string()));
    row.push_back(e.value("kind", std::string()));
    row.push_back(cell(e.value("size", json())));
    bool skipped = e.value("skipped", false), failed = e.value("error_occurred", false);
    row.push_back(failed ? "error" : skipped ? "skipped" : entry_ok(e) ? "ok" : "no time");
    row.push_back(e.value("error_message", e.value("skip_message", std::string())));
    const json params = e.value("params", json::object());
    for (auto c : param_cols) row.push_back(cell(params.value(c, json())));
    json stats = e.value("stats", json::object());
    if (!stats.contains("median_ns") && entry_ok(e)) stats["median_ns"] = *entry_median_ns(e);
    if (!stats.contains("gbps"))
      if (auto g = entry_gbps(e); g && entry_ok(e)) stats["gbps"] = *g;
    if (!stats.contains("cycles_per_page") && e.contains("cycles_per_page")) stats["cycles_per_page"] = e["cycles_per_page"];
    for (auto c : stat_cols) row.push_back(cell(stats.value(c, json())));
    row.push_back(e.contains("preset") && e["preset"].is_object() ? e["preset"].value("printed", std::string()) : "");
    for (size_t i = 0; i < row.size(); ++i) o << (i ? "," : "") << csv_field(row[i]);
    o << "\r\n";
  }
  return o.str();
}

}  // namespace kex
