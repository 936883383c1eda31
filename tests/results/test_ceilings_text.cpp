// The ceilings as text: a row per level with its cache size and where that size came from
// (reported by the CPU, or measured), and the knee when the CPU's LLC was not believed; the
// report's Why section carries the same text.
#include <doctest/doctest.h>

#include <string>

#include "src/model/cache_knee.hpp"
#include "src/results/ceilings_text.hpp"
#include "src/results/report_html.hpp"

using namespace kex;

namespace {

constexpr uint64_t kTextMiB = 1ull << 20;

/// A run of this VM's shape: the CPU reports 508 MiB of L3 for 2 CPUs; the knee found 16 MiB.
RunDoc measured_run() {
  RunDoc run;
  run.context.host_name = "vm";
  run.context.machine.cache_source = "cpuid 0x80000005/6";
  Ceilings c;
  c.rounds = 5;
  c.seconds = 4.2;
  c.levels = {{"L1d", 48 * 1024, 24 * 1024, 210.5, 105.2, 30.1, "r1", "w1", "n1", SizeSource::reported},
              {"L2", kTextMiB, kTextMiB / 2, 120.4, 60.3, 28.7, "r2", "w2", "n2", SizeSource::reported},
              {"LLC", 16 * kTextMiB, 8 * kTextMiB, 44.9, 30.2, 20.4, "r3", "w3", "n3", SizeSource::measured},
              {"DRAM", 0, 64 * kTextMiB, 18.1, 12.5, 16.3, "r4", "w4", "n4\x1b[2J", std::nullopt}};
  CacheKnee k{508 * kTextMiB, llc_size_doubt(508 * kTextMiB, 2), "r1", {}, 0, 0};
  const std::vector<double> gbps = {45.1, 44.0, 43.2, 41.7, 26.0, 18.3, 18.0};
  const std::vector<uint64_t> at = knee_footprints(kTextMiB, 256 * kTextMiB);
  for (size_t i = 0; i < at.size(); ++i) k.points.push_back({at[i], gbps[i]});
  find_knee(k);
  c.knee = k;
  run.context.ceilings = c;
  return run;
}

}  // namespace

TEST_CASE("ceilings text: each level's size and where it came from, and the knee" * doctest::test_suite("results")) {
  const std::string t = ceilings_text(measured_run());
  CHECK(t ==
        "\none core's ceilings (GB/s, bytes counted once; best probe per kind, 5 paired rounds, probe 4.2 s):\n"
        "level      cache size from  probed at     read    write  nt write  fastest read / write / nt write\n"
        "L1d       48 KiB reported      24 KiB    210.5    105.2      30.1  r1 / w1 / n1\n"
        "L2         1 MiB reported     512 KiB    120.4     60.3      28.7  r2 / w2 / n2\n"
        "LLC       16 MiB measured       8 MiB     44.9     30.2      20.4  r3 / w3 / n3\n"
        "DRAM           - -             64 MiB     18.1     12.5      16.3  r4 / w4 / n4\\x1b[2J\n"
        "size from: reported by the CPU (cpuid 0x80000005/6), or measured where one read probe's bandwidth falls "
        "(below)\n"
        "the CPU reports an LLC of 508 MiB for 2 CPUs, more than 64 MiB per CPU; measured instead: one read probe (r1) "
        "ran 45.1 GB/s at 2 MiB, 44.0 GB/s at 4 MiB, 43.2 GB/s at 8 MiB, 41.7 GB/s at 16 MiB, 26.0 GB/s at 32 MiB, "
        "18.3 GB/s at 64 MiB, 18.0 GB/s at 256 MiB: the LLC holds at least 16 MiB (the largest footprint at or above "
        "28.5 GB/s, between the first's speed and DRAM's)\n");
  // A file of kex before the sources were recorded: every cache's size is the CPU's report, no knee.
  RunDoc old = measured_run();
  old.context.ceilings->knee.reset();
  for (CeilingLevel& l : old.context.ceilings->levels) l.size_from.reset();
  const std::string o = ceilings_text(old);
  CHECK(o.find("LLC       16 MiB reported  ") != std::string::npos);
  CHECK(o.find("size from: reported by the CPU (cpuid 0x80000005/6)\n") != std::string::npos);
  CHECK(o.find("measured") == std::string::npos);
  CHECK(ceilings_text(RunDoc{}).empty());
}

TEST_CASE("ceilings text: the report's Why section says which levels were measured" * doctest::test_suite("results")) {
  const std::string page = report_html({{"vm.json", measured_run(), std::nullopt}}, {});
  CHECK(page.find("<section id=\"why\"") != std::string::npos);
  CHECK(page.find("LLC       16 MiB measured       8 MiB") != std::string::npos);
  CHECK(page.find("more than 64 MiB per CPU; measured instead: one read probe (r1) ran 45.1 GB/s at 2 MiB") !=
        std::string::npos);
  CHECK(page.find("\x1b") == std::string::npos);
}
