// `kex info`: what kex sees of this machine.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/run/machine.hpp"

namespace kex {

Action add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show what kex sees of this machine (CPU, caches, TSC, PMU)");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the machine context as JSON");
  return [json]() {
    const Machine& m = machine();
    if (*json) {
      write_stdout(machine_json(m).dump(2) + "\n");
      return 0;
    }
    auto kib = [](uint64_t b) { return b ? std::to_string(b >> 10) + " KiB" : std::string("unknown"); };
    std::printf("cpu:            %s (%s, family %d model %d stepping %d)\n", m.model_name.c_str(), m.vendor.c_str(),
                m.family, m.model, m.stepping);
    std::string feats;
    const auto mj = machine_json(m);
    for (const auto& f : mj["cpu_features"]) feats += f.get<std::string>() + " ";
    std::printf("features:       %s\n", feats.c_str());
    std::printf("caches:         L1d %s, L2 %s, LLC %s (%s)\n", kib(m.caches.l1d).c_str(), kib(m.caches.l2).c_str(),
                kib(m.caches.llc).c_str(), m.caches.source.c_str());
    std::printf("tsc:            %.3f MHz, %s; /proc/cpuinfo says %.3f MHz\n", m.tsc_hz / 1e6, m.tsc_source.c_str(),
                m.cpuinfo_mhz);
    std::printf("core cycles:    %.2f per TSC tick (estimated, imul chain)\n", core_cycles_per_tick());
    std::printf("pmu:            %s\n", m.pmu_available ? "available (perf_event_open cycles)" : ("not available: " + m.pmu_error).c_str());
    std::printf("kernel:         %s\n", m.kernel.c_str());
    std::printf("virtualization: %s\n", m.hypervisor.empty() ? "none detected" : m.hypervisor.c_str());
    std::printf("thp:            %s\n", m.thp.c_str());
    std::printf("cpus:           %d\n", m.num_cpus);
    return 0;
  };
}

}  // namespace kex
