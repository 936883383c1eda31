// `kex info`: what kex sees of this machine.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "src/cli/cli.hpp"
#include "src/cli/info.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/cpu_features.hpp"
#include "src/core/version.hpp"
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

InfoFacts info_facts(const std::vector<int>& allowed) {
  InfoFacts f(machine());
  f.allowed = allowed;
  std::vector<std::string> names;
  for (const auto& a : counter_aliases()) names.emplace_back(a.name);
  f.counters = open_counters(names).counters();  // kex names never throw
  for (const std::string& name : kSoftwareCounters) {
    try {
      f.counters.push_back(open_counters({name}).counters().front());
    } catch (const InputError&) {  // a libpfm4 without its generic table (LIBPFM_FORCE_PMU)
      f.counters.push_back({name, "", false, false, "not a libpfm4 event here"});
    }
  }
  f.load = load_average();
  f.pmu_note = pmu_status().message;
  f.pfm_pmus = pfm_pmu_names();
  f.ifunc = ifunc_record();
  f.version = kex_version();
  f.git_commit = kex_git_commit();
  f.build_type = kex_build_type();
  return f;
}

InfoRecord info_record(const InfoFacts& f) {
  InfoRecord r;
  r.machine = machine_info(f.m);
  r.kex_version = f.version;
  r.kex_git_commit = f.git_commit;
  r.kex_build_type = f.build_type;
  r.allowed_cpus = cpu_list_text(f.allowed);
  r.load_avg = f.load;
  if (f.m.cpu_scaling_enabled) r.cpu_scaling_warning = kCpuScalingWarning;
  r.pmu_note = f.pmu_note;
  r.libpfm4_pmus = f.pfm_pmus;
  for (const Counter& c : f.counters) r.counters.push_back({c.name, c.event, c.hardware, c.ok, c.reason});
  r.ifunc = f.ifunc;
  return r;
}

namespace {

/// The CPU lines: identity, features, AVX-512 and the copy and clear features.
std::string cpu_text(const Machine& m) {
  const auto t = [](const std::string& s) { return terminal_text(s); };
  std::string feats = feature_list(m.feature_set);
  if (m.fsgsbase_enabled) feats += ", fsgsbase(hwcap2)";
  std::string avx512;
  for (const auto& row : feature_table())
    if (row.name.rfind("avx512", 0) == 0 && m.feature_set.has(row.feature))
      avx512 += (avx512.empty() ? "" : ", ") + std::string(row.name);
  return fmt::format("cpu:            {} ({}, family {} model {} stepping {}, microcode {})\n", t(m.model_name),
                     t(m.vendor), m.family, m.model, m.stepping, m.microcode.empty() ? "unknown" : t(m.microcode)) +
         "features:       " + feats + "\n" + "avx-512:        " + (avx512.empty() ? "none" : avx512) + "\n" +
         fmt::format("copy, clear:    {}, {}, {}, {}, {}, {}, {}, {}\n", yes_no(Feature::erms), yes_no(Feature::fsrm),
                     yes_no(Feature::fzlrm), yes_no(Feature::fsrs), yes_no(Feature::fsrcs), yes_no(Feature::clzero),
                     yes_no(Feature::movdir64b), yes_no(Feature::movdiri));
}

/// The memory lines: caches, NUMA, TSC, core cycles, PMU and its counters, libpfm4's tables.
std::string memory_text(const InfoFacts& f) {
  const Machine& m = f.m;
  const auto t = [](const std::string& s) { return terminal_text(s); };
  std::string o = fmt::format("caches:         CPU {}, from {}\n", m.cache_cpu,
                              m.caches.source.empty() ? "nowhere" : t(m.caches.source));
  for (const auto& l : m.cache_levels.levels) o += "                " + cache_line(l) + "\n";
  o += fmt::format("numa:           {} node{}; CPU {} on node {}\n", m.numa_nodes, m.numa_nodes == 1 ? "" : "s",
                   m.cache_cpu, m.numa_node);
  o += fmt::format("tsc:            {:.3f} MHz, {}; /proc/cpuinfo says {:.3f} MHz\n", m.tsc_hz / 1e6, t(m.tsc_source),
                   m.cpuinfo_mhz);
  o += fmt::format("core cycles:    {:.2f} per TSC tick (estimated, imul chain)\n", core_cycles_per_tick());
  o += "pmu:            " + (m.pmu_available ? std::string("available (perf_event_open cycles)") : f.pmu_note) + "\n";
  o += "counters:       name, libpfm4 event, available\n";
  for (const auto& c : f.counters)
    o += fmt::format("  {:<22} {}; {}\n", c.name, c.event.empty() ? "-" : c.event, c.ok ? "yes" : "no: " + c.reason);
  std::string pmus;
  for (const auto& p : f.pfm_pmus) pmus += (pmus.empty() ? "" : ", ") + p;
  return o + "libpfm4 tables: " + (pmus.empty() ? "none" : pmus) + "\n";
}

/// The system lines: ifunc's picks, kernel, virtualization, scaling, load, THP, CPUs.
std::string system_text(const InfoFacts& f, int pin_cpu) {
  const Machine& m = f.m;
  const auto t = [](const std::string& s) { return terminal_text(s); };
  std::string o = fmt::format("ifunc picks:    memcpy {}, memmove {}, memset {}{}\n", f.ifunc.memcpy_impl,
                              f.ifunc.memmove_impl, f.ifunc.memset_impl, f.ifunc.missing ? "; " + *f.ifunc.missing : "");
  o += "kernel:         " + t(m.kernel) + " " + t(m.kernel_version) + "\n";
  o += m.hypervisor.empty() ? "virtualization: none detected\n"
                            : "virtualization: " + t(m.hypervisor) + " (CPUID signature \"" + t(m.hypervisor_signature) +
                                  "\")\n";
  if (m.scaling_governors.empty()) {
    o += "cpu scaling:    disabled (no cpufreq governors)\n";
  } else {
    std::string g;
    for (const auto& s : m.scaling_governors) g += (g.empty() ? "" : " ") + t(s);
    o += "cpu scaling:    " + std::string(m.cpu_scaling_enabled ? "enabled" : "disabled") + " (" + g + ")\n";
  }
  if (m.cpu_scaling_enabled) o += std::string(kCpuScalingWarning) + "\n";
  o += f.load.size() == 3 ? fmt::format("load average:   {:.2f}, {:.2f}, {:.2f}\n", f.load[0], f.load[1], f.load[2])
                          : "load average:   unknown\n";
  o += "thp:            " + t(m.thp) + "\n";
  return o + fmt::format("cpus:           {} online; allowed {}; a run pins to CPU {}\n", m.num_cpus,
                         cpu_list_text(f.allowed), pin_cpu);
}

}  // namespace

std::string info_text(const InfoFacts& f, int pin_cpu) {
  // Text the machine reports (CPUID strings, /proc, sysfs, uname; a hypervisor chooses
  // its signature) is escaped for the terminal like text from a file.
  return "kex:            " + kex_version_line() + "\n" + cpu_text(f.m) + memory_text(f) + system_text(f, pin_cpu);
}

Action add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show what kex sees of this machine (CPU, caches, TSC, PMU, counters)");
  auto json = std::make_shared<bool>(false);
  auto cpu = std::make_shared<std::optional<int>>();
  cmd->add_flag("--json", *json, "Print the machine context as JSON");
  cmd->add_option("--cpu", *cpu, "Pin to this CPU first and describe its caches (default: the CPU a run pins to)");
  return [json, cpu]() {
    const std::vector<int> allowed = allowed_cpus();  // before pinning narrows the mask
    if (*cpu) pin_to_cpu(**cpu);  // before machine(): its caches are then this CPU's
    const InfoFacts f = info_facts(allowed);
    write_stdout(*json ? info_json(f).dump(2) + "\n" : info_text(f, *cpu ? **cpu : default_pin_cpu()));
    return 0;
  };
}

}  // namespace kex
