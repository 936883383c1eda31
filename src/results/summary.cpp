#include "src/results/summary.hpp"

#include <cstdio>
#include <map>
#include <tuple>

#include "src/core/units.hpp"

namespace kex {

std::string summary_table(const nlohmann::ordered_json& doc) {
  struct Row {
    std::string best;
    double best_gbps = 0, libc = 0, rep = 0;
  };
  // key: op, cache, size
  std::map<std::tuple<std::string, std::string, uint64_t>, Row> rows;
  size_t skipped = 0, failed = 0;
  for (const auto& e : doc.at("benchmarks")) {
    if (e.value("skipped", false)) { ++skipped; continue; }
    if (e.value("error_occurred", false)) { ++failed; continue; }
    if (!e.contains("stats") || !e.contains("params")) continue;
    const auto& p = e["params"];
    std::string op = p.value("op", "");
    auto key = std::make_tuple(op, p.value("cache", std::string("warm")), e["size"].get<uint64_t>());
    Row& r = rows[key];
    double g = e["stats"]["gbps"].get<double>();
    std::string k = e["kernel"].get<std::string>();
    if (k == "memcpy" || k == "memset") r.libc = g;
    else if (k == "rep_movsb" || k == "rep_stosb") r.rep = g;
    if (e["kind"] != "baseline" && g > r.best_gbps) {
      r.best_gbps = g;
      r.best = k;
    }
  }
  if (rows.empty()) return {};
  std::string s;
  char line[512];
  std::string cur;
  for (const auto& [key, r] : rows) {
    const auto& [op, cache, size] = key;
    std::string head = op + " (" + cache + ")";
    if (head != cur) {
      cur = head;
      snprintf(line, sizeof line, "\n%-16s %-60s %9s %9s %7s %9s\n", head.c_str(), "fastest kernel", "GB/s",
               op == "copy" ? "memcpy" : "memset", "ratio", op == "copy" ? "rep movsb" : "rep stosb");
      s += line;
    }
    std::string best = r.best.empty() ? "-" : r.best;
    if (best.size() > 60) best = best.substr(0, 57) + "...";
    char ratio[16] = "-";
    if (r.libc > 0 && r.best_gbps > 0) snprintf(ratio, sizeof ratio, "%.2fx", r.best_gbps / r.libc);
    auto num = [](double v) {
      char b[32] = "-";
      if (v > 0) snprintf(b, sizeof b, "%.2f", v);
      return std::string(b);
    };
    snprintf(line, sizeof line, "%16s %-60s %9s %9s %7s %9s\n", format_bytes(size).c_str(), best.c_str(),
             num(r.best_gbps).c_str(), num(r.libc).c_str(), ratio, num(r.rep).c_str());
    s += line;
  }
  snprintf(line, sizeof line, "\nGB/s = 1e9 bytes/s of median time per call, bytes counted once; ratio = fastest / libc.\n");
  s += line;
  if (skipped || failed) {
    snprintf(line, sizeof line, "%zu points skipped (CPU lacks a feature), %zu failed (see error_message in the JSON)\n",
             skipped, failed);
    s += line;
  }
  return s;
}

}  // namespace kex
