// `kex info`: what kex sees of this machine.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/cpu_features.hpp"
#include "src/core/version.hpp"
#include "src/model/result_json.hpp"
#include "src/run/counters.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/machine.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

// Software events listed beside the kex names: they count without a PMU.
const std::vector<std::string> kSoftwareCounters = {"task-clock", "context-switches", "cpu-migrations", "page-faults"};

std::string human(uint64_t b) {
  if (!b) return "unknown";
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

std::string cache_line(const CacheLevel& l) {
  std::string s = "L" + std::to_string(l.level) + (l.type == "Data" ? "d" : l.type == "Instruction" ? "i" : "") +
                  " " + human(l.size);
  if (l.ways > 0) s += ", " + std::to_string(l.ways) + "-way";
  else if (l.ways < 0) s += ", fully associative";
  if (l.line_size) s += ", " + std::to_string(l.line_size) + " B lines";
  if (!l.cpus.empty()) s += ", CPUs " + cpu_list_text(l.cpus);
  else if (l.num_sharing) s += ", shared by " + std::to_string(l.num_sharing) + " CPUs";
  return s;
}

std::string yes_no(Feature f) { return std::string(feature_name(f)) + (host_features().has(f) ? " yes" : " no"); }

}  // namespace

Action add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show what kex sees of this machine (CPU, caches, TSC, PMU, counters)");
  auto json = std::make_shared<bool>(false);
  auto cpu = std::make_shared<std::optional<int>>();
  cmd->add_flag("--json", *json, "Print the machine context as JSON");
  cmd->add_option("--cpu", *cpu, "Pin to this CPU first and describe its caches (default: the CPU a run pins to)");
  return [json, cpu]() {
    const std::vector<int> allowed = allowed_cpus();  // before pinning narrows the mask
    if (*cpu) pin_to_cpu(**cpu);  // before machine(): its caches are then this CPU's
    const Machine& m = machine();
    std::vector<std::string> names;
    for (const auto& a : counter_aliases()) names.emplace_back(a.name);
    CounterSet set = open_counters(names);  // kex names never throw
    std::vector<Counter> counters = set.counters();
    for (const std::string& name : kSoftwareCounters) {
      try {
        counters.push_back(open_counters({name}).counters().front());
      } catch (const InputError&) {  // a libpfm4 without its generic table (LIBPFM_FORCE_PMU)
        counters.push_back({name, "", false, false, "not a libpfm4 event here"});
      }
    }
    const std::vector<double> load = load_average();
    const CpuScaling scaling{m.cpu_scaling_enabled, m.scaling_governors};
    if (*json) {
      nlohmann::ordered_json j = machine_json(m);
      j["kex_version"] = kex_version();
      j["kex_git_commit"] = kex_git_commit();
      j["kex_build_type"] = kex_build_type();
      j["allowed_cpus"] = cpu_list_text(allowed);
      j["load_avg"] = load;
      if (scaling.enabled) j["cpu_scaling_warning"] = kCpuScalingWarning;
      j["pmu_note"] = pmu_status().message;
      j["libpfm4_pmus"] = pfm_pmu_names();
      nlohmann::ordered_json cs = nlohmann::ordered_json::array();
      for (const auto& c : counters)
        cs.push_back({{"name", c.name}, {"event", c.event}, {"hardware", c.hardware}, {"available", c.ok},
                      {"reason", c.reason}});
      j["counters"] = cs;
      j["ifunc"] = to_json(ifunc_record());
      write_stdout(j.dump(2) + "\n");
      return 0;
    }
    std::printf("kex:            %s\n", kex_version_line().c_str());
    // Text the machine reports (CPUID strings, /proc, sysfs, uname; a hypervisor chooses
    // its signature) is escaped for the terminal like text from a file.
    const auto t = [](const std::string& s) { return terminal_text(s); };
    std::printf("cpu:            %s (%s, family %d model %d stepping %d, microcode %s)\n", t(m.model_name).c_str(),
                t(m.vendor).c_str(), m.family, m.model, m.stepping, m.microcode.empty() ? "unknown" : t(m.microcode).c_str());
    std::string feats = feature_list(m.feature_set);
    if (m.features.fsgsbase_enabled) feats += ", fsgsbase(hwcap2)";
    std::printf("features:       %s\n", feats.c_str());
    std::string avx512;
    for (const auto& row : feature_table())
      if (row.name.rfind("avx512", 0) == 0 && m.feature_set.has(row.feature))
        avx512 += (avx512.empty() ? "" : ", ") + std::string(row.name);
    std::printf("avx-512:        %s\n", avx512.empty() ? "none" : avx512.c_str());
    std::printf("copy, clear:    %s, %s, %s, %s, %s, %s, %s, %s\n", yes_no(Feature::erms).c_str(),
                yes_no(Feature::fsrm).c_str(), yes_no(Feature::fzlrm).c_str(), yes_no(Feature::fsrs).c_str(),
                yes_no(Feature::fsrcs).c_str(), yes_no(Feature::clzero).c_str(), yes_no(Feature::movdir64b).c_str(),
                yes_no(Feature::movdiri).c_str());
    std::printf("caches:         CPU %d, from %s\n", m.cache_cpu, m.caches.source.empty() ? "nowhere" : t(m.caches.source).c_str());
    for (const auto& l : m.cache_levels.levels) std::printf("                %s\n", cache_line(l).c_str());
    std::printf("numa:           %d node%s; CPU %d on node %d\n", m.numa_nodes, m.numa_nodes == 1 ? "" : "s", m.cache_cpu,
                m.numa_node);
    std::printf("tsc:            %.3f MHz, %s; /proc/cpuinfo says %.3f MHz\n", m.tsc_hz / 1e6, t(m.tsc_source).c_str(),
                m.cpuinfo_mhz);
    std::printf("core cycles:    %.2f per TSC tick (estimated, imul chain)\n", core_cycles_per_tick());
    std::printf("pmu:            %s\n", m.pmu_available ? "available (perf_event_open cycles)" : pmu_status().message.c_str());
    std::printf("counters:       name, libpfm4 event, available\n");
    for (const auto& c : counters)
      std::printf("  %-22s %s; %s\n", c.name.c_str(), c.event.empty() ? "-" : c.event.c_str(), c.ok ? "yes" : ("no: " + c.reason).c_str());
    std::string pmus;
    for (const auto& p : pfm_pmu_names()) pmus += (pmus.empty() ? "" : ", ") + p;
    std::printf("libpfm4 tables: %s\n", pmus.empty() ? "none" : pmus.c_str());
    const IfuncRecord ifunc = ifunc_record();
    std::printf("ifunc picks:    memcpy %s, memmove %s, memset %s%s\n", ifunc.memcpy_impl.c_str(), ifunc.memmove_impl.c_str(),
                ifunc.memset_impl.c_str(), ifunc.missing ? ("; " + *ifunc.missing).c_str() : "");
    std::printf("kernel:         %s %s\n", t(m.kernel).c_str(), t(m.kernel_version).c_str());
    if (m.hypervisor.empty()) std::printf("virtualization: none detected\n");
    else std::printf("virtualization: %s (CPUID signature \"%s\")\n", t(m.hypervisor).c_str(), t(m.hypervisor_signature).c_str());
    if (m.scaling_governors.empty()) std::printf("cpu scaling:    disabled (no cpufreq governors)\n");
    else {
      std::string g;
      for (const auto& s : m.scaling_governors) g += (g.empty() ? "" : " ") + t(s);
      std::printf("cpu scaling:    %s (%s)\n", scaling.enabled ? "enabled" : "disabled", g.c_str());
    }
    if (scaling.enabled) std::printf("%s\n", kCpuScalingWarning);
    if (load.size() == 3) std::printf("load average:   %.2f, %.2f, %.2f\n", load[0], load[1], load[2]);
    else std::printf("load average:   unknown\n");
    std::printf("thp:            %s\n", t(m.thp).c_str());
    std::printf("cpus:           %d online; allowed %s; a run pins to CPU %d\n", m.num_cpus, cpu_list_text(allowed).c_str(),
                *cpu ? **cpu : default_pin_cpu());
    return 0;
  };
}

}  // namespace kex
