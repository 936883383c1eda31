#include <doctest/doctest.h>

#include <sched.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "src/run/machine.hpp"
#include "src/run/topology.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {
std::string describe(const CpuCaches& c) {
  std::ostringstream o;
  o << "cpu " << c.cpu << " from " << c.source << ":";
  for (const auto& l : c.levels)
    o << " L" << l.level << " " << l.type << " " << (l.size >> 10) << "K/" << l.line_size << "B/" << l.ways
      << "w/[" << cpu_list_text(l.cpus) << "]";
  return o.str();
}

/// Restores the calling thread's affinity mask when the test ends.
struct KeepAffinity {
  cpu_set_t saved;
  KeepAffinity() { sched_getaffinity(0, sizeof saved, &saved); }
  ~KeepAffinity() { sched_setaffinity(0, sizeof saved, &saved); }
};
}  // namespace

TEST_CASE("hwloc and sysfs agree on every cache of every CPU, sharing sets included" * doctest::test_suite("machine")) {
  const std::vector<int> cpus = allowed_cpus();
  REQUIRE(!cpus.empty());
  for (int cpu : cpus) {
    const CpuCaches sys = caches_from_sysfs(cpu), hw = caches_from_hwloc(cpu);
    CAPTURE(describe(sys));
    CAPTURE(describe(hw));
    if (sys.levels.empty()) {
      // Some VMs have no /sys/.../cache (docs/methodology.md §0): hwloc's CPUID
      // backend or kex's own CPUID reading must still give the caches.
      MESSAGE("no sysfs caches for cpu " << cpu << "; " << describe(caches_of(cpu)));
      CHECK(!caches_of(cpu).levels.empty());
      continue;
    }
    CHECK(hw.source == "hwloc");
    CHECK(hw.levels == sys.levels);
    // Each level's sharing set holds the CPU itself.
    for (const auto& l : sys.levels) CHECK(std::find(l.cpus.begin(), l.cpus.end(), cpu) != l.cpus.end());
    CHECK(caches_of(cpu).levels == hw.levels);
  }
  const CpuCaches pinned = caches_of(default_pin_cpu());
  MESSAGE(describe(pinned));
  CHECK(pinned.l1d() > 0);
  CHECK(pinned.l2() > pinned.l1d());
  CHECK(pinned.llc() >= pinned.l2());
}

TEST_CASE("CPUID caches are read on the CPU asked for and agree with sysfs on L1d" * doctest::test_suite("machine")) {
  KeepAffinity keep;
  const int cpu = default_pin_cpu();
  const CpuCaches id = caches_from_cpuid(cpu);
  MESSAGE(describe(id));
  REQUIRE(!id.levels.empty());
  CHECK(id.source.find("(read on CPU") == std::string::npos);  // the mask allows `cpu`
  CHECK(id.levels.front().cpus.empty());                       // CPUID gives counts, not lists
  const CpuCaches sys = caches_from_sysfs(cpu);
  if (!sys.levels.empty()) {
    CHECK(id.l1d() == sys.l1d());
    CHECK(id.data_level(1)->line_size == sys.data_level(1)->line_size);
  }
  // The caller's mask is untouched.
  cpu_set_t now;
  sched_getaffinity(0, sizeof now, &now);
  CHECK(CPU_EQUAL(&now, &keep.saved));
}

TEST_CASE("the machine's caches are those of the CPU a run pins to" * doctest::test_suite("machine")) {
  const Machine& m = machine();
  CHECK(m.cache_cpu >= 0);
  const CpuCaches c = caches_of(m.cache_cpu);
  CHECK(m.cache_levels.levels == c.levels);
  CHECK(m.caches.l1d == c.l1d());
  CHECK(m.caches.llc == c.llc());
  CHECK(m.caches.source == c.source);
  const auto j = to_json(machine_info(m));
  CHECK(j["cache_cpu"] == m.cache_cpu);
  CHECK(j["cache_levels"].size() == c.levels.size());
  CHECK(j["virtualization"].get<std::string>() == (m.hypervisor.empty() ? "none" : m.hypervisor));
  CHECK(j["cpu_scaling_enabled"] == m.cpu_scaling_enabled);
  utsname u{};
  REQUIRE(uname(&u) == 0);
  CHECK(m.kernel_version == u.version);
  // microcode: /proc/cpuinfo's line for that CPU.
  std::ifstream ci("/proc/cpuinfo");
  std::string line, microcode;
  int block = -1;
  while (std::getline(ci, line)) {
    if (line.rfind("processor", 0) == 0) block = std::stoi(line.substr(line.find(':') + 1));
    if (block == m.cache_cpu && line.rfind("microcode", 0) == 0) microcode = line.substr(line.find(':') + 2);
  }
  CHECK(m.microcode == microcode);
}

TEST_CASE("pin_to_cpu pins to an allowed CPU and names --cpu and the allowed ones otherwise" * doctest::test_suite("machine")) {
  KeepAffinity keep;
  const std::vector<int> allowed = allowed_cpus();
  REQUIRE(!allowed.empty());
  const std::string list = cpu_list_text(allowed);
  for (int bad : {-1, 4096, allowed.back() + 1}) {
    try {
      pin_to_cpu(bad);
      FAIL("pinned to " << bad);
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) ==
            "--cpu: " + std::to_string(bad) + " is not a CPU this process may run on (allowed: " + list + ")");
    }
  }
  CHECK(pin_to_cpu(allowed.front()) == allowed.front());
  CHECK(sched_getcpu() == allowed.front());
  CHECK(allowed_cpus() == std::vector<int>{allowed.front()});
  CHECK(default_pin_cpu() == allowed.front());
}

TEST_CASE("CPU lists read and write as the kernel writes them" * doctest::test_suite("machine")) {
  CHECK(parse_cpu_list("0-3,6", "x") == std::vector<int>{0, 1, 2, 3, 6});
  CHECK(parse_cpu_list("5", "x") == std::vector<int>{5});
  CHECK(parse_cpu_list("", "x").empty());
  CHECK(cpu_list_text({0, 1, 2, 3, 6, 8, 9}) == "0-3,6,8-9");
  CHECK(cpu_list_text({}) == "");
  CHECK_THROWS_WITH_AS(parse_cpu_list("3-1", "f"), "f: bad CPU list \"3-1\" (range 3-1 runs backwards)", InputError);
  CHECK_THROWS_AS(parse_cpu_list("1,,2", "f"), InputError);
  CHECK_THROWS_AS(parse_cpu_list("a", "f"), InputError);
}

TEST_CASE("a page has a NUMA node once faulted in, the node of the CPU that touched it" * doctest::test_suite("machine")) {
  KeepAffinity keep;
  pin_to_one_cpu();
  char* p = static_cast<char*>(mmap(nullptr, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(p != MAP_FAILED);
  const PageNode before = numa_node_of(p);
  CHECK(before.node == -1);
  CHECK(before.reason.rfind("ENOENT", 0) == 0);
  CHECK(numa_nodes_of(p, 4 * 4096).empty());
  p[0] = 1;
  p[2 * 4096 + 7] = 1;
  const PageNode after = numa_node_of(p + 100);
  CHECK(after.reason == "");
  CHECK(after.node >= 0);
  CHECK(after.node < numa_node_count());
  CHECK(after.node == numa_node_of_cpu(sched_getcpu()));
  CHECK(numa_nodes_of(p + 1, 4 * 4096 - 1) == std::vector<int>{after.node});
  CHECK(numa_node_of(p + 4096).node == -1);  // the page between was never touched
  munmap(p, 4 * 4096);
}

TEST_CASE("CPU scaling is Google Benchmark's judgement: any readable governor but performance" * doctest::test_suite("machine")) {
  CHECK(std::string(kCpuScalingWarning) ==
        "***WARNING*** CPU scaling is enabled, the benchmark real time measurements may be noisy and will incur "
        "extra overhead.");
  TmpDir d;
  auto governor = [&](int cpu, const std::string& g) {
    std::filesystem::create_directories(d / ("cpu" + std::to_string(cpu) + "/cpufreq"));
    spit(d / ("cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor"), g + "\n");
  };
  spit(d / "online", "0-2\n");
  CpuScaling none = cpu_scaling(d.path);  // no cpufreq at all (a VM)
  CHECK_FALSE(none.enabled);
  CHECK(none.governors.empty());
  governor(0, "performance");
  governor(1, "performance");
  CpuScaling perf = cpu_scaling(d.path);
  CHECK_FALSE(perf.enabled);
  CHECK(perf.governors == std::vector<std::string>{"cpu0:performance", "cpu1:performance"});
  governor(2, "schedutil");
  CHECK(cpu_scaling(d.path).enabled);
  governor(2, "powersave");
  CHECK(cpu_scaling(d.path).enabled);
  spit(d / "online", "0-1\n");  // an offline CPU's governor does not count
  CHECK_FALSE(cpu_scaling(d.path).enabled);
  // This machine: what its sysfs says, and what machine() recorded.
  const CpuScaling here = cpu_scaling();
  MESSAGE("governors here: " << here.governors.size() << std::string(here.enabled ? ", scaling enabled" : ", no scaling"));
  CHECK(machine().cpu_scaling_enabled == here.enabled);
  bool any_other = false;
  for (const auto& g : here.governors) any_other |= g.substr(g.find(':') + 1) != "performance";
  CHECK(here.enabled == any_other);
}

TEST_CASE("the load average is the kernel's 1, 5 and 15 minute figures" * doctest::test_suite("machine")) {
  const std::vector<double> la = load_average();
  REQUIRE(la.size() == 3);
  std::ifstream f("/proc/loadavg");
  double one = -1, five = -1, fifteen = -1;
  f >> one >> five >> fifteen;
  CHECK(la[0] == doctest::Approx(one).epsilon(0.5));
  CHECK(la[1] == doctest::Approx(five).epsilon(0.2));
  CHECK(la[2] == doctest::Approx(fifteen).epsilon(0.1));
  for (double v : la) CHECK(v >= 0);
}
