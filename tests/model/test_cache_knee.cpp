// When the CPU's LLC size is not believed and the level is found by measurement: the
// doubts (too large per CPU; no faster than DRAM), the knee probe's footprints, the knee
// of synthetic read figures with a known answer, the levels probed after it and the text.
#include <doctest/doctest.h>

#include "src/model/cache_knee.hpp"

using namespace kex;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

/// A knee record of read figures at 2, 4, ..., 64 MiB and 256 MiB.
CacheKnee knee_of(std::vector<double> gbps) {
  CacheKnee k;
  k.reported_llc = 508 * kMiB;
  k.doubt = "the CPU reports an LLC of 508 MiB for 2 CPUs, more than 64 MiB per CPU";
  k.kernel = "read/avx512/unroll:256/scratch:4/fwd";
  const std::vector<uint64_t> at = knee_footprints(kMiB, 256 * kMiB);
  REQUIRE(at.size() == gbps.size());
  for (size_t i = 0; i < at.size(); ++i) k.points.push_back({at[i], gbps[i]});
  find_knee(k);
  return k;
}

std::string same(const std::string& s) { return s; }

}  // namespace

TEST_CASE("cache knee: an LLC over 64 MiB per CPU sharing it is not believed" * doctest::test_suite("model")) {
  CHECK(llc_size_doubt(508 * kMiB, 2) == "the CPU reports an LLC of 508 MiB for 2 CPUs, more than 64 MiB per CPU");
  CHECK(llc_size_doubt(65 * kMiB, 1) == "the CPU reports an LLC of 65 MiB for 1 CPU, more than 64 MiB per CPU");
  CHECK(llc_size_doubt(64 * kMiB, 1).empty());
  CHECK(llc_size_doubt(32 * kMiB, 16).empty());   // a Zen 5 CCD
  CHECK(llc_size_doubt(768 * kMiB, 16).empty());  // 48 MiB per core (AMD's 3D V-Cache with 16 cores)
  CHECK(llc_size_doubt(0, 2).empty());            // unknown
  CHECK(!llc_size_doubt(508 * kMiB, 0).empty());  // no count: one CPU
}

TEST_CASE("cache knee: a reported LLC whose probe reads no faster than DRAM is not believed" *
          doctest::test_suite("model")) {
  Ceilings c;
  c.levels = {{"L1d", 48 * 1024, 24 * 1024, 200, 100, 20, "", "", ""},
              {"LLC", 400 * kMiB, 64 * kMiB, 19.5, 10, 12, "", "", ""},
              {"DRAM", 0, 256 * kMiB, 18, 10, 12, "", "", ""}};
  CHECK(llc_speed_doubt(c) ==
        "the reported LLC (400 MiB) read 19.5 GB/s at 64 MiB, less than 1.2x DRAM's 18.0 GB/s at 256 MiB");
  c.levels[1].read_gbps = 21.6;  // 1.2x: a level
  CHECK(llc_speed_doubt(c).empty());
  c.levels[1].read_gbps = 0;  // not measured: no doubt
  CHECK(llc_speed_doubt(c).empty());
  c.levels.erase(c.levels.begin() + 1);  // no LLC
  CHECK(llc_speed_doubt(c).empty());
}

TEST_CASE("cache knee: the footprints from twice the L2 to the DRAM-sized one" * doctest::test_suite("model")) {
  CHECK(knee_footprints(kMiB, 256 * kMiB) ==
        std::vector<uint64_t>{2 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB, 64 * kMiB, 256 * kMiB});
  CHECK(knee_footprints(0, 8 * kMiB) == std::vector<uint64_t>{kMiB, 2 * kMiB, 4 * kMiB, 8 * kMiB});
  CHECK(knee_footprints(64 * kMiB, 256 * kMiB) == std::vector<uint64_t>{256 * kMiB});
}

TEST_CASE("cache knee: the LLC is the last footprint of the first speed's run" * doctest::test_suite("model")) {
  // An L3 plateau near 45 GB/s to 16 MiB, half in at 32 MiB, DRAM's 18 from 64 MiB.
  const CacheKnee k = knee_of({45.1, 44.0, 43.2, 41.7, 26.0, 18.3, 18.0});
  CHECK(k.threshold_gbps == doctest::Approx(28.49).epsilon(0.001));  // sqrt(45.1 x 18.0)
  CHECK(k.measured_llc == 16 * kMiB);
  // A footprint back above the threshold after the run has ended does not extend it.
  CHECK(knee_of({45, 44, 20, 40, 19, 18, 18}).measured_llc == 4 * kMiB);
  // Every footprint but DRAM's at the first speed: the LLC holds at least 64 MiB.
  CHECK(knee_of({45, 45, 45, 45, 45, 44, 18}).measured_llc == 64 * kMiB);
  // Flat from above the L2 (this VM: its L3 not seen): no level, no threshold.
  const CacheKnee flat = knee_of({19.0, 18.7, 18.2, 18.5, 18.1, 18.0, 17.9});
  CHECK(flat.measured_llc == 0);
  CHECK(flat.threshold_gbps == 0);
  // DRAM's footprint not measured: no level.
  CHECK(knee_of({45, 45, 45, 45, 45, 44, 0}).measured_llc == 0);
}

TEST_CASE("cache knee: the levels probed after it, and its text" * doctest::test_suite("model")) {
  const CacheKnee k = knee_of({45.1, 44.0, 43.2, 41.7, 26.0, 18.3, 18.0});
  CHECK(knee_levels(48 * 1024, kMiB, k) ==
        std::vector<ProbeLevel>{{"L1d", 48 * 1024, 24 * 1024},
                                {"L2", kMiB, kMiB / 2},
                                {"LLC", 16 * kMiB, 8 * kMiB, SizeSource::measured},
                                {"DRAM", 0, 256 * kMiB}});  // where the knee read DRAM's speed
  CHECK(knee_text(k, same) ==
        "the CPU reports an LLC of 508 MiB for 2 CPUs, more than 64 MiB per CPU; measured instead: one read probe "
        "(read/avx512/unroll:256/scratch:4/fwd) ran 45.1 GB/s at 2 MiB, 44.0 GB/s at 4 MiB, 43.2 GB/s at 8 MiB, "
        "41.7 GB/s at 16 MiB, 26.0 GB/s at 32 MiB, 18.3 GB/s at 64 MiB, 18.0 GB/s at 256 MiB: the LLC holds at least "
        "16 MiB (the largest footprint at or above 28.5 GB/s, between the first's speed and DRAM's)");
  // No level: the L1d and L2 as reported, DRAM at the knee's DRAM-sized footprint.
  const CacheKnee flat = knee_of({19.0, 18.7, 18.2, 18.5, 18.1, 18.0, 17.9});
  CHECK(knee_levels(48 * 1024, kMiB, flat) ==
        std::vector<ProbeLevel>{{"L1d", 48 * 1024, 24 * 1024}, {"L2", kMiB, kMiB / 2}, {"DRAM", 0, 256 * kMiB}});
  const std::string t = knee_text(flat, same);
  CHECK(t.ends_with(": no level between the L2 and DRAM (the first footprint read less than 1.2x the last)"));
}
