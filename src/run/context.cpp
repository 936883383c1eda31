#include "src/run/context.hpp"

#include <unistd.h>

#include <CLI/Version.hpp>
#include <capstone/capstone.h>
#include <cstdio>
#include <ctime>
#include <random>

#include <xbyak/xbyak.h>

#include "src/core/version.hpp"
#include "src/model/result_json.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"

namespace kex {

using nlohmann::ordered_json;

MachineInfo this_machine() { return machine_info(machine()); }

RunContext make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index, size_t shard_count) {
  const Machine& m = machine();
  RunContext ctx;
  ordered_json c;
  char date[64];
  time_t now = time(nullptr);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  ctx.date = date;
  ctx.host_name = host;
  std::random_device rd;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", unsigned(rd()), unsigned(rd()));
  ctx.run_id = id;
  c["date"] = date;
  c["host_name"] = host;
  c["executable"] = "kex";
  c["num_cpus"] = m.num_cpus;
  c["mhz_per_cpu"] = static_cast<int64_t>(m.tsc_hz / 1e6 + 0.5);
  // Google Benchmark's context fields, read as its tools read them.
  const CpuScaling scaling = cpu_scaling();
  c["cpu_scaling_enabled"] = scaling.enabled;
  if (scaling.enabled) c["cpu_scaling_warning"] = kCpuScalingWarning;
  ordered_json caches = ordered_json::array();
  for (const auto& l : m.cache_levels.levels)
    caches.push_back({{"type", l.type}, {"level", l.level}, {"size", l.size}, {"num_sharing", l.num_sharing}});
  c["caches"] = caches;
  const auto load = load_average();
  c["load_avg"] = load;
  c["library_build_type"] = std::string(kex_build_type());
  c["json_schema_version"] = kResultsSchemaVersion;
  c["kex_version"] = std::string(kex_version());
  c["kex_git_commit"] = std::string(kex_git_commit());
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
  c["machine"] = nullptr;  // placeholder: keeps the field's place; the typed machine is written there
  c["pinned_cpu"] = pinned_cpu;
  c["timer"] = {{"source", "lfence; rdtsc; lfence"},
                {"overhead_ticks", timer_overhead_ticks()},
                {"units", "real_time in ns from TSC ticks; cycles are estimated core cycles"}};
  c["config"] = nullptr;
  for (const auto& cfg : configs) ctx.configs.push_back({cfg.source, ordered_json(cfg.raw)});
  ordered_json policies = ordered_json::array();
  for (const auto& cfg : configs) {
    const Policy& p = cfg.policy;
    policies.push_back({{"source", cfg.source},
                        {"precision", p.precision},
                        {"max_time_per_point_s", p.max_time_per_point},
                        {"min_time_per_point_s", p.min_time_per_point},
                        {"min_samples", p.min_samples},
                        {"max_samples", p.max_samples},
                        {"sample_us", p.sample_us},
                        {"warmup", ">= 3 calls and >= 2 ms"},
                        {"statistic", "median of per-call ticks; 95% CI by order statistics n/2 +- 0.98 sqrt(n)"},
                        {"cold", "cold samples flush src and dst (clflushopt + mfence) before one call"},
                        {"bytes_counted", "once per byte copied or cleared"},
                        {"gbps", "1e9 bytes per second"}});
  }
  c["policy"] = policies;
  c["shard"] = nullptr;
  ctx.shard_index = shard_index;
  ctx.shard_count = shard_count;
  ctx.machine = this_machine();
  ctx.rest = c;
  return ctx;
}

}  // namespace kex
