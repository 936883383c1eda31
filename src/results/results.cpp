#include "src/results/results.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "src/core/error.hpp"

namespace kex {

using nlohmann::json;

json load_results(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file: a results file from `kex run` is needed");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open: a results file from `kex run` is needed");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": not JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw InputError(path + ": benchmarks: missing: a results file from `kex run` (Google Benchmark envelope) is needed");
  if (doc.contains("context") && !doc["context"].is_object())
    throw InputError(path + ": context: not an object: an object describing the run is needed");
  size_t i = 0;
  for (const auto& e : doc["benchmarks"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string())
      throw InputError(path + ": benchmarks[" + std::to_string(i) + "].name: missing: every entry needs a string name");
    ++i;
  }
  return doc;
}

std::optional<double> num(const json& o, const char* key) {
  if (!o.is_object()) return std::nullopt;
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

static bool flag(const json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_boolean() && it->get<bool>();
}

bool entry_ok(const json& e) {
  if (flag(e, "error_occurred") || flag(e, "skipped")) return false;
  return entry_median_ns(e).has_value();
}

std::string entry_op(const json& e) {
  if (e.contains("params") && e["params"].is_object() && e["params"].contains("op") && e["params"]["op"].is_string())
    return e["params"]["op"].get<std::string>();
  std::string k = e.value("kernel", e.value("name", std::string()));
  if (k.rfind("memcpy", 0) == 0 || k.rfind("rep_movs", 0) == 0 || k.rfind("copy", 0) == 0) return "copy";
  if (k.rfind("memset", 0) == 0 || k.rfind("rep_stos", 0) == 0 || k.rfind("clear", 0) == 0) return "clear";
  return "";
}

std::string entry_cache(const json& e) {
  if (e.contains("params") && e["params"].is_object() && e["params"].contains("cache") && e["params"]["cache"].is_string())
    return e["params"]["cache"].get<std::string>();
  return "warm";
}

std::optional<double> entry_median_ns(const json& e) {
  if (e.contains("stats"))
    if (auto m = num(e["stats"], "median_ns")) return m;
  auto t = num(e, "real_time");
  if (!t) return std::nullopt;
  std::string unit = e.value("time_unit", std::string("ns"));
  double f = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : NAN;
  if (std::isnan(f)) return std::nullopt;
  return *t * f;
}

std::optional<double> entry_gbps(const json& e) {
  if (e.contains("stats"))
    if (auto g = num(e["stats"], "gbps")) return g;
  if (auto b = num(e, "bytes_per_second")) return *b / 1e9;
  auto s = num(e, "size");
  auto t = entry_median_ns(e);
  if (s && t && *t > 0) return *s / *t;
  return std::nullopt;
}

std::optional<std::pair<double, double>> entry_ci_ns(const json& e) {
  if (!e.contains("stats")) return std::nullopt;
  auto lo = num(e["stats"], "ci95_low_ns"), hi = num(e["stats"], "ci95_high_ns");
  if (!lo || !hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

std::string machine_key(const json& ctx) {
  const json m = ctx.is_object() ? ctx.value("machine", json::object()) : json::object();
  std::string model = m.value("cpu_model", std::string());
  if (model.empty()) model = ctx.is_object() ? ctx.value("host_name", std::string("unknown")) : "unknown";
  char buf[128];
  std::snprintf(buf, sizeof buf, " [%d/%d/%d]", m.value("cpu_family", 0), m.value("cpu_model_number", 0),
                m.value("cpu_stepping", 0));
  std::string key = model + buf;
  if (m.contains("caches") && m["caches"].is_object()) {
    const auto& c = m["caches"];
    key += " L1d " + human_bytes(c.value("l1d_bytes", 0.0)) + ", L2 " + human_bytes(c.value("l2_bytes", 0.0)) +
           ", LLC " + human_bytes(c.value("llc_bytes", 0.0));
  }
  return key;
}

std::string run_label(const json& ctx) {
  if (!ctx.is_object()) return "unknown";
  std::string host = ctx.value("host_name", std::string());
  std::string model;
  if (ctx.contains("machine") && ctx["machine"].is_object()) model = ctx["machine"].value("cpu_model", std::string());
  if (host.empty()) return model.empty() ? "unknown" : model;
  return model.empty() ? host : host + " (" + model + ")";
}

std::vector<json> split_machines(const json& doc) {
  const json ctx = doc.value("context", json::object());
  if (!ctx.contains("machines") || !ctx["machines"].is_array()) return {doc};
  std::vector<json> out;
  for (const auto& m : ctx["machines"]) {
    json d;
    d["context"] = m.value("context", json::object());
    d["benchmarks"] = json::array();
    std::string key = m.value("key", std::string());
    for (const auto& e : doc["benchmarks"])
      if (e.value("machine", std::string()) == key) {
        json c = e;
        c.erase("machine");
        d["benchmarks"].push_back(std::move(c));
      }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::pair<std::string, double>> cache_marks(const json& ctx) {
  std::vector<std::pair<std::string, double>> out;
  if (!ctx.is_object()) return out;
  if (ctx.contains("machine") && ctx["machine"].is_object() && ctx["machine"].contains("caches")) {
    const auto& c = ctx["machine"]["caches"];
    for (auto [key, label] : {std::pair{"l1d_bytes", "L1d"}, {"l2_bytes", "L2"}, {"llc_bytes", "LLC"}})
      if (auto b = num(c, key); b && *b > 0) out.emplace_back(label, *b);
    if (!out.empty()) return out;
  }
  if (ctx.contains("caches") && ctx["caches"].is_array())
    for (const auto& c : ctx["caches"]) {
      std::string type = c.value("type", std::string());
      if (type == "Instruction") continue;
      auto size = num(c, "size");
      if (!size || *size <= 0) continue;
      int level = c.value("level", 0);
      out.emplace_back("L" + std::to_string(level) + (type == "Data" ? "d" : ""), *size);
    }
  return out;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  if (std::fabs(b - std::round(b)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f %s", b, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", b, units[u]);
  return buf;
}

std::optional<std::regex> filter_regex(const std::string& filter) {
  if (filter.empty()) return std::nullopt;
  try {
    return std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    throw InputError("--filter: " + filter + ": not a valid regular expression (ECMAScript syntax)");
  }
}

}  // namespace kex
