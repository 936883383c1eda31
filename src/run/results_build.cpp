#include "src/run/results_build.hpp"

#include <unistd.h>

#include <CLI/Version.hpp>
#include <capstone/capstone.h>
#include <ctime>

#include <xbyak/xbyak.h>

#include "src/run/machine.hpp"

namespace kex {

using nlohmann::ordered_json;

ordered_json entry_head(const std::string& name) {
  ordered_json e;
  e["name"] = name;
  e["run_name"] = name;
  e["run_type"] = "iteration";
  e["repetitions"] = 1;
  e["repetition_index"] = 0;
  e["threads"] = 1;
  return e;
}

ordered_json spec_params(const KernelSpec& s) {
  ordered_json p;
  p["op"] = to_string(s.op);
  p["regs"] = to_string(s.regs);
  p["unroll"] = s.unroll;
  p["scratch"] = s.scratch;
  p["prefetch"] = to_string(s.prefetch);
  p["pf_distance"] = s.pf_distance;
  p["pf_every"] = s.pf_every;
  p["store"] = to_string(s.store);
  p["direction"] = to_string(s.direction);
  p["align"] = to_string(s.align);
  p["block_bytes"] = s.block.bytes;
  p["block_order"] = to_string(s.block.order);
  p["fill"] = s.fill;
  return p;
}

ordered_json make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index, size_t shard_count) {
  const Machine& m = machine();
  ordered_json c;
  char date[64];
  time_t now = time(nullptr);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  c["date"] = date;
  c["host_name"] = host;
  c["executable"] = "kex";
  c["num_cpus"] = m.num_cpus;
  c["mhz_per_cpu"] = static_cast<int64_t>(m.tsc_hz / 1e6 + 0.5);
  c["cpu_scaling_enabled"] = false;
  ordered_json caches = ordered_json::array();
  if (m.caches.l1d) caches.push_back({{"type", "Data"}, {"level", 1}, {"size", m.caches.l1d}, {"num_sharing", 0}});
  if (m.caches.l2) caches.push_back({{"type", "Unified"}, {"level", 2}, {"size", m.caches.l2}, {"num_sharing", 0}});
  if (m.caches.llc) caches.push_back({{"type", "Unified"}, {"level", 3}, {"size", m.caches.llc}, {"num_sharing", 0}});
  c["caches"] = caches;
  c["library_build_type"] = "release";
  c["json_schema_version"] = 1;
  c["kex_version"] = KEX_VERSION;
  int cs_major = 0, cs_minor = 0;
  cs_version(&cs_major, &cs_minor);
  char xv[16];
  snprintf(xv, sizeof xv, "%x.%02x", Xbyak::VERSION >> 12, (Xbyak::VERSION >> 4) & 0xff);
  c["libraries"] = {{"xbyak", xv},
                    {"cli11", CLI11_VERSION},
                    {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                          std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                          std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
                    {"capstone", std::to_string(cs_major) + "." + std::to_string(cs_minor)}};
  c["machine"] = machine_json(m);
  c["pinned_cpu"] = pinned_cpu;
  c["timer"] = {{"source", "lfence; rdtsc; lfence"},
                {"overhead_ticks", timer_overhead_ticks()},
                {"units", "real_time in ns from TSC ticks; cycles are estimated core cycles"}};
  ordered_json cfgs = ordered_json::array();
  for (const auto& cfg : configs) cfgs.push_back({{"source", cfg.source}, {"config", cfg.raw}});
  c["config"] = cfgs;
  ordered_json policies = ordered_json::array();
  for (const auto& cfg : configs) {
    const Policy& p = cfg.policy;
    policies.push_back({{"source", cfg.source},
                        {"precision", p.precision},
                        {"max_time_per_point_s", p.max_time_per_point},
                        {"min_samples", p.min_samples},
                        {"max_samples", p.max_samples},
                        {"sample_us", p.sample_us},
                        {"warmup", ">= 3 calls and >= 2 ms"},
                        {"statistic", "median of per-call ticks; 95% CI by order statistics n/2 +- 0.98 sqrt(n)"},
                        {"cache_modes", [&] {
                           ordered_json a = ordered_json::array();
                           for (auto cm : cfg.caches) a.push_back(to_string(cm));
                           return a;
                         }()},
                        {"cold", "cold samples flush src and dst (clflushopt + mfence) before one call"},
                        {"bytes_counted", "once per byte copied or cleared"},
                        {"gbps", "1e9 bytes per second"}});
  }
  c["policy"] = policies;
  c["shard"] = {{"index", shard_index}, {"count", shard_count}};
  return c;
}

ordered_json make_entry(const KernelEntry& k, const Config& c, const Point& p, const Measurement* m) {
  const Machine& mach = machine();
  std::string name = k.key + "/" + std::to_string(p.size);
  if (p.cache == CacheMode::cold) name += "/cold";
  ordered_json e = entry_head(name);
  e["kernel"] = k.key;
  e["kind"] = k.kind;
  e["size"] = p.size;
  ordered_json params = k.params;
  params["src_offset"] = c.layout.src_offset;
  params["dst_offset"] = c.layout.dst_offset;
  if (c.layout.distance) params["distance"] = *c.layout.distance;
  params["huge_pages"] = c.layout.huge_pages;
  params["cache"] = to_string(p.cache);
  e["params"] = params;
  for (auto it = k.extra.begin(); it != k.extra.end(); ++it) e[it.key()] = it.value();
  if (!k.code_hash.empty()) e["code"] = {{"bytes", k.code_bytes}, {"fnv1a", k.code_hash}};
  if (!m) {
    if (!k.skip.empty()) {
      e["skipped"] = true;
      e["skip_message"] = k.skip;
    } else {
      e["error_occurred"] = true;
      e["error_message"] = k.error.empty() ? "not run" : k.error;
    }
    return e;
  }
  const double ns_per_tick = 1e9 / mach.tsc_hz;
  const auto& s = m->per_call;
  const double size = static_cast<double>(p.size);
  auto gbps = [&](double ticks) { return ticks > 0 ? size / (ticks * ns_per_tick) : 0.0; };
  e["iterations"] = static_cast<uint64_t>(m->calls_per_sample) * m->sample_ticks.size();
  e["real_time"] = s.median * ns_per_tick;
  e["cpu_time"] = s.median * ns_per_tick;
  e["time_unit"] = "ns";
  e["bytes_per_second"] = gbps(s.median) * 1e9;
  const double cyc = m->cycles_per_tick;
  ordered_json st;
  st["n"] = s.n;
  st["calls_per_sample"] = m->calls_per_sample;
  st["min_ns"] = s.min * ns_per_tick;
  st["p10_ns"] = s.p10 * ns_per_tick;
  st["median_ns"] = s.median * ns_per_tick;
  st["p90_ns"] = s.p90 * ns_per_tick;
  st["max_ns"] = s.max * ns_per_tick;
  st["ci95_low_ns"] = s.ci_low * ns_per_tick;
  st["ci95_high_ns"] = s.ci_high * ns_per_tick;
  st["ci_rel_halfwidth"] = s.ci_rel;
  st["stop_reason"] = m->stop_reason;
  st["median_ticks"] = s.median;
  st["min_ticks"] = s.min;
  st["gbps"] = gbps(s.median);
  st["gbps_best"] = gbps(s.min);
  st["gbps_p10"] = gbps(s.p90);  // the 10th percentile of bandwidth is the 90th of time
  st["gbps_p90"] = gbps(s.p10);
  st["est_cycles"] = s.median * cyc;
  st["bytes_per_cycle"] = s.median > 0 ? size / (s.median * cyc) : 0;
  st["cycles_per_page"] = size > 0 ? s.median * cyc * 4096 / size : 0;
  st["ticks_per_page"] = size > 0 ? s.median * 4096 / size : 0;
  st["cycles_per_tick"] = cyc;
  st["cycles_method"] = m->cycles_method;
  st["context_switches"] = m->context_switches;
  st["cpu_migrations"] = m->migrations;
  st["seconds"] = m->seconds;
  e["stats"] = st;
  e["samples_ticks"] = m->sample_ticks;
  return e;
}

}  // namespace kex
