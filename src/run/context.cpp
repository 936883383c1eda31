#include "src/run/context.hpp"

#include <unistd.h>

#include <CLI/Version.hpp>
#include <capstone/capstone.h>
#include <cstdio>
#include <ctime>
#include <random>

#include <xbyak/xbyak.h>

#include "src/core/version.hpp"
#include "src/model/config_json.hpp"
#include "src/model/json_text.hpp"
#include "src/model/result_json.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"

namespace kex {

MachineInfo this_machine() { return machine_info(machine()); }

namespace {

/// Google Benchmark's fields of the context, as its tools read them.
GbenchFields gbench_fields(const Machine& m) {
  GbenchFields g;
  g.executable = "kex";
  g.num_cpus = m.num_cpus;
  g.mhz_per_cpu = static_cast<int64_t>(m.tsc_hz / 1e6 + 0.5);
  const CpuScaling scaling = cpu_scaling();
  g.cpu_scaling_enabled = scaling.enabled;
  if (scaling.enabled) g.cpu_scaling_warning = kCpuScalingWarning;
  g.caches.emplace();
  for (const auto& l : m.cache_levels.levels) g.caches->push_back({l.type, l.level, l.size, l.num_sharing});
  g.load_avg = load_average();
  g.library_build_type = std::string(kex_build_type());
  return g;
}

/// This kex: its version, commit and the libraries it was built with.
BuildRecord this_build() {
  BuildRecord b;
  b.kex_version = std::string(kex_version());
  b.git_commit = std::string(kex_git_commit());
  int cs_major = 0, cs_minor = 0;
  cs_version(&cs_major, &cs_minor);
  char xv[16];
  snprintf(xv, sizeof xv, "%x.%02x", Xbyak::VERSION >> 12, (Xbyak::VERSION >> 4) & 0xff);
  b.libraries = {{"xbyak", xv},
                 {"cli11", CLI11_VERSION},
                 json_library(),
                 {"capstone", std::to_string(cs_major) + "." + std::to_string(cs_minor)}};
  return b;
}

PolicyRecord policy_record(const Config& cfg) {
  PolicyRecord r;  // the texts that say what the figures mean are the record's defaults
  r.source = cfg.source;
  r.policy = cfg.policy;
  return r;
}

}  // namespace

std::string new_run_id() {
  std::random_device rd;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", unsigned(rd()), unsigned(rd()));
  return id;
}

RunContext make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index, size_t shard_count,
                        const std::string& run_id) {
  RunContext ctx;
  char date[64];
  time_t now = time(nullptr);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  ctx.date = date;
  ctx.host_name = host;
  ctx.run_id = run_id;
  ctx.gbench = gbench_fields(machine());
  ctx.build = this_build();
  ctx.machine = this_machine();
  ctx.pinned_cpu = pinned_cpu;
  ctx.timer = TimerRecord{};
  ctx.timer->overhead_ticks = timer_overhead_ticks();
  ctx.ifunc = ifunc_record();
  for (const auto& cfg : configs) {
    ctx.configs.push_back({cfg.source, config_as_written(cfg)});
    ctx.policies.push_back(policy_record(cfg));
  }
  ctx.shard_index = shard_index;
  ctx.shard_count = shard_count;
  return ctx;
}

}  // namespace kex
