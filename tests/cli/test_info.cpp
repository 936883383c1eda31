// kex info and kex --version as a user sees them.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/cpu_features.hpp"
#include "src/cli/info.hpp"
#include "src/core/version.hpp"
#include "src/run/counters.hpp"
#include "src/run/machine.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/shell.hpp"

using namespace kex;

namespace {
struct Out {
  int status;
  std::string text;
};
/// Runs a shell command line with stdout and stderr captured together.
Out run_info(const std::string& cmd) {
  Out r{0, {}};
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.text.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("kex info names the hypervisor, the pinned CPU's caches, the PMU state and every counter" * doctest::test_suite("info")) {
  const Out r = run_info(kKex + " info");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.rfind("kex:            " + kex_version_line() + "\n", 0) == 0);
  const CpuIdentity& id = cpu_identity();
  if (id.hypervisor.empty()) CHECK(has(r.text, "virtualization: none detected\n"));
  else CHECK(has(r.text, "virtualization: " + id.hypervisor + " (CPUID signature \"" + id.hypervisor_signature + "\")\n"));
  CHECK(has(r.text, "caches:         CPU " + std::to_string(default_pin_cpu()) + ", from "));
  const PmuStatus& pmu = pmu_status();
  CHECK(has(r.text, "pmu:            " + (pmu.available ? std::string("available") : pmu.message)));
  for (const auto& a : counter_aliases()) CHECK(has(r.text, "\n  " + std::string(a.name) + " "));
  CHECK(has(r.text, "\n  task-clock "));
  // The no-PMU note is said once, on the pmu line; each counter gives a short reason.
  if (!pmu.available) {
    size_t n = 0;
    for (size_t p = 0; (p = r.text.find(pmu.message, p)) != std::string::npos; ++p) ++n;
    CHECK(n == 1);
    CHECK(has(r.text, "  cycles                 perf::PERF_COUNT_HW_CPU_CYCLES; no: no PMU (" + pmu.error_name + ")\n"));
  }
  CHECK(has(r.text, "\navx-512:        "));
  CHECK(has(r.text, std::string("erms ") + (host_features().has(Feature::erms) ? "yes" : "no")));
  CHECK(has(r.text, std::string("movdir64b ") + (host_features().has(Feature::movdir64b) ? "yes" : "no")));
  CHECK(has(r.text, "\nload average:   "));
  CHECK(has(r.text, "\ncpu scaling:    "));
  CHECK(has(r.text, kCpuScalingWarning) == machine().cpu_scaling_enabled);
}

TEST_CASE("kex info --json carries the same" * doctest::test_suite("info")) {
  const Out r = run_info(kKex + " info --json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const auto j = nlohmann::json::parse(r.text);
  const CpuIdentity& id = cpu_identity();
  CHECK(j["virtualization"] == (id.hypervisor.empty() ? "none" : id.hypervisor));
  CHECK(j["hypervisor_signature"] == id.hypervisor_signature);
  CHECK(j["kex_git_commit"] == std::string(kex_git_commit()));
  CHECK(j["kex_build_type"] == std::string(kex_build_type()));
  CHECK(j["cache_cpu"] == default_pin_cpu());
  CHECK(!j["cache_levels"].empty());
  CHECK(j["load_avg"].size() == 3);
  CHECK(j["pmu_available"] == pmu_status().available);
  CHECK(j["pmu_note"] == pmu_status().message);
  CHECK(j["counters"].size() == counter_aliases().size() + 4);
  CHECK(j["counters"][0]["name"] == "cycles");
  CHECK(j["counters"][0]["available"] == pmu_status().available);
  for (const auto& f : j["cpu_features"]) CHECK(!f.get<std::string>().empty());
}

TEST_CASE("kex info --cpu describes that CPU, and refuses one outside the mask with one line" * doctest::test_suite("info")) {
  const std::vector<int> allowed = allowed_cpus();
  REQUIRE(!allowed.empty());
  const Out ok = run_info(kKex + " info --json --cpu " + std::to_string(allowed.front()));
  REQUIRE_MESSAGE(ok.status == 0, ok.text);
  const auto j = nlohmann::json::parse(ok.text);
  CHECK(j["cache_cpu"] == allowed.front());
  CHECK(j["allowed_cpus"] == cpu_list_text(allowed));
  const Out bad = run_info(kKex + " info --cpu 4095");
  CHECK(bad.status == 2);
  CHECK(bad.text == "kex: --cpu: 4095 is not a CPU this process may run on (allowed: " + cpu_list_text(allowed) + ")\n");
}

TEST_CASE("kex counter names pick each AMD Zen table's own events (libpfm4 forced to that table)" * doctest::test_suite("info")) {
  if (cpu_identity().vendor != "AuthenticAMD") {
    MESSAGE("not an AMD CPU: libpfm4 cannot be forced to the Zen tables here");
    return;
  }
  struct Want { const char* table; const char* l2; const char* dram; };
  const Want wants[] = {
      {"amd64_fam17h_zen2", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C",
       "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM"},
      {"amd64_fam19h_zen3", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C",
       "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL:MEM_IO_RMT"},
      {"amd64_fam19h_zen4", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C",
       "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR"},
  };
  for (const Want& w : wants) {
    CAPTURE(w.table);
    const Out r = run_info("LIBPFM_FORCE_PMU=" + std::string(w.table) + " " + kKex + " info --json");
    REQUIRE_MESSAGE(r.status == 0, r.text);
    const auto j = nlohmann::json::parse(r.text);
    std::map<std::string, std::string> event;
    for (const auto& c : j["counters"]) event[c["name"]] = c["event"];
    const std::string prefix = std::string(w.table) + "::";
    CHECK(event["l2-misses"] == prefix + w.l2);
    CHECK(event["dram-fills"] == prefix + w.dram);
    CHECK(event["llc-misses"].rfind(prefix, 0) == 0);
    CHECK(event["l2-prefetch-misses-l3"].rfind(prefix + "L2_PREFETCH_MISS_L3", 0) == 0);
    CHECK(event["stores"] == prefix + "LS_DISPATCH:STORE_DISPATCH");
    CHECK(event["cycles"] == "");  // a forced libpfm4 has no generic perf table
    CHECK(event["task-clock"] == "");
  }
}

TEST_CASE("kex info's JSON and text writers on fixed facts (golden)" * doctest::test_suite("info")) {
  Machine m;
  m.vendor = "AuthenticAMD";
  m.model_name = "Test CPU 64-Core";
  m.family = 26;
  m.model = 2;
  m.stepping = 1;
  m.microcode = "0x1000065";
  m.feature_set = FeatureSet{} | Feature::sse2 | Feature::avx2 | Feature::erms | Feature::fsrm;
  m.fsgsbase_enabled = true;
  m.cache_cpu = 1;
  m.cache_levels.cpu = 1;
  m.cache_levels.source = "sysfs";
  m.cache_levels.levels = {{1, "Data", 48 << 10, 64, 12, 1, {1}}, {2, "Unified", 1 << 20, 64, 16, 1, {1}},
                           {3, "Unified", 32 << 20, 64, 16, 2, {0, 1}}};
  m.caches = {48 << 10, 1 << 20, 32 << 20, "sysfs"};
  m.tsc_hz = 2.5e9;
  m.tsc_source = "cpuid 0x15";
  m.cpuinfo_mhz = 2500;
  m.kernel = "Linux 6.1.0";
  m.kernel_version = "#1 SMP \x1b[31mDebian";  // a control byte from uname: escaped in the text
  m.hypervisor = "KVM";
  m.hypervisor_signature = "KVMKVMKVM";
  m.thp = "always [madvise] never";
  m.num_cpus = 2;
  InfoFacts f(m);
  f.allowed = {0, 1};
  f.counters = {{"cycles", "", true, false, "no PMU (ENOENT)"}, {"task-clock", "perf::TASK-CLOCK", false, true, ""}};
  f.load = {0.5, 0.25, 0.125};
  f.pmu_note = "no PMU here";
  f.pfm_pmus = {"perf", "perf_raw"};
  f.ifunc = {"__memcpy_avx_unaligned_erms", "__memmove_avx_unaligned_erms", "__memset_avx2_unaligned_erms", {}};
  f.version = "0.1.0";
  f.git_commit = "abcdef0";
  f.build_type = "Release";
  CHECK(golden::check("info.json", info_json(f).dump(2) + "\n") == "");
  const std::string text = info_text(f, 1);
  CHECK(text.find("features:       sse2, avx2, erms, fsrm, fsgsbase(hwcap2)\n") != std::string::npos);
  CHECK(text.find("L3 32 MiB, 16-way, 64 B lines, CPUs 0-1\n") != std::string::npos);
  CHECK(text.find("\x1b") == std::string::npos);
  CHECK(text.find("  task-clock             perf::TASK-CLOCK; yes\n") != std::string::npos);
  CHECK(text.find("  cycles                 -; no: no PMU (ENOENT)\n") != std::string::npos);
  CHECK(text.find("ifunc picks:    memcpy __memcpy_avx_unaligned_erms, memmove __memmove_avx_unaligned_erms, memset "
                  "__memset_avx2_unaligned_erms\n") != std::string::npos);
  CHECK(text.find("cpus:           2 online; allowed 0-1; a run pins to CPU 1\n") != std::string::npos);
}

TEST_CASE("kex info --json: with frequency scaling on, the warning sits between load_avg and pmu_note" * doctest::test_suite("info")) {
  Machine m;
  m.cpu_scaling_enabled = true;
  InfoFacts f(m);
  const std::string text = info_json(f).dump();
  const size_t load = text.find("\"load_avg\""), warning = text.find("\"cpu_scaling_warning\""),
               note = text.find("\"pmu_note\"");
  REQUIRE(warning != std::string::npos);
  CHECK(load < warning);
  CHECK(warning < note);
  CHECK(text.find(nlohmann::json(kCpuScalingWarning).dump()) != std::string::npos);
  m.cpu_scaling_enabled = false;
  CHECK(info_json(f).dump().find("cpu_scaling_warning") == std::string::npos);
}
