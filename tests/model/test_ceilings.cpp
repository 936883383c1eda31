// The ceilings per cache level: the probe sizes from cache sizes, the probe kernels for a
// CPU's classes, the ceilings of synthetic probe results with a known answer, where a
// point stands against them (and its line), and the record's round trip through the
// results reader.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/core/units.hpp"
#include "src/model/ceilings.hpp"
#include "src/model/group.hpp"
#include "src/model/result_json.hpp"

using namespace kex;

namespace {

/// A measured point of `name` at `size` bytes: one repetition whose median call moves
/// the size at `gbps` (bytes counted once), 2 core cycles per TSC tick at 1 GHz.
Result ceiling_point(const std::string& name, uint64_t size, double gbps) {
  Result r;
  r.spec = parse_spec_name(name);
  r.op = r.spec->op;
  r.point = {spec_name(*r.spec), {}};
  r.point.at.size = size;
  r.kind = KernelKind::generated;
  r.tsc_hz = 1e9;
  Repetition rep;
  rep.per_call.n = 8;
  rep.per_call.median = double(size) / gbps;  // ticks at 1 GHz = ns
  rep.cycles_per_tick = 2;
  rep.stop_reason = "precision";
  r.reps.push_back(rep);
  return r;
}

const std::vector<ProbeLevel> kLevels = {
    {"L1d", 49152, 24576}, {"L2", 1048576, 524288}, {"LLC", 33554432, 16777216}, {"DRAM", 0, 134217728}};

/// Probes at L1d (read 200 and 150 GB/s, write 100, nt 20) and DRAM (read 20, write 10, nt 16).
RunDoc probe_run() {
  RunDoc run;
  run.results = {ceiling_point("read/avx512/unroll:256", 24576, 200), ceiling_point("read/avx/unroll:128", 24576, 150),
                 ceiling_point("clear/avx512/unroll:256", 24576, 100), ceiling_point("clear/avx512/unroll:256/nt", 24576, 20),
                 ceiling_point("read/avx512/unroll:256", 134217728, 20), ceiling_point("clear/avx512/unroll:256", 134217728, 10),
                 ceiling_point("clear/avx512/unroll:256/nt", 134217728, 16)};
  return run;
}

}  // namespace

TEST_CASE("ceilings: probe sizes at half of each cache and 4x the LLC" * doctest::test_suite("model")) {
  CHECK(probe_levels(49152, 1048576, 33554432) == kLevels);
  // An unknown L2 is left out; an LLC no larger than the L2 too; 4x the largest known.
  CHECK(probe_levels(32768, 0, 8388608) ==
        std::vector<ProbeLevel>{{"L1d", 32768, 16384}, {"LLC", 8388608, 4194304}, {"DRAM", 0, 33554432}});
  CHECK(probe_levels(32768, 524288, 524288) ==
        std::vector<ProbeLevel>{{"L1d", 32768, 16384}, {"L2", 524288, 262144}, {"DRAM", 0, 2097152}});
  CHECK(probe_levels(0, 0, 0).empty());
  // A VM reporting its host socket's L3 (508 MiB): the probes stop at 64 MiB and 256 MiB.
  CHECK(probe_levels(49152, 1048576, 508ull << 20) ==
        std::vector<ProbeLevel>{{"L1d", 49152, 24576}, {"L2", 1048576, 524288}, {"LLC", 508ull << 20, 64ull << 20},
                                {"DRAM", 0, 256ull << 20}});
}

TEST_CASE("ceilings: the probe kernels of the two widest vector classes a CPU runs" * doctest::test_suite("model")) {
  auto names = [](const std::vector<KernelSpec>& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(spec_name(s));
    return out;
  };
  const auto no_avx512 = [](const KernelSpec& s) { return s.regs != RegClass::avx512; };
  CHECK(names(probe_kernels(no_avx512)) == std::vector<std::string>{
                                              "read/avx/unroll:128/scratch:4/fwd",
                                              "clear/avx/unroll:128/scratch:4/t/fwd",
                                              "clear/avx/unroll:128/scratch:4/nt/fwd",
                                              "read/avx/unroll:256/scratch:8/fwd",
                                              "clear/avx/unroll:256/scratch:4/t/fwd",
                                              "clear/avx/unroll:256/scratch:4/nt/fwd",
                                              "read/sse/unroll:64/scratch:4/fwd",
                                              "clear/sse/unroll:64/scratch:4/t/fwd",
                                              "clear/sse/unroll:64/scratch:4/nt/fwd",
                                          });
  CHECK(probe_kernels([](const KernelSpec&) { return false; }).empty());
}

TEST_CASE("ceilings: the best probe of each kind per level, and the L1d's bytes per core cycle" *
          doctest::test_suite("model")) {
  const Ceilings c = ceilings_from(probe_run(), kLevels, 5, 3.5);
  REQUIRE(c.levels.size() == 4);
  CHECK(c.levels[0] == CeilingLevel{"L1d", 49152, 24576, 200, 100, 20, "read/avx512/unroll:256/scratch:4/fwd",
                                    "clear/avx512/unroll:256/scratch:4/t/fwd", "clear/avx512/unroll:256/scratch:4/nt/fwd",
                                    SizeSource::reported});
  CHECK(c.levels[1] == CeilingLevel{"L2", 1048576, 524288, 0, 0, 0, "", "", "", SizeSource::reported});  // nothing measured there
  CHECK(c.levels[3].read_gbps == doctest::Approx(20));
  CHECK(c.levels[3].nt_write_gbps == doctest::Approx(16));
  // 200 GB/s at 1 GHz TSC and 2 core cycles per tick: 100 bytes per core cycle.
  CHECK(c.l1d_load_bytes_per_cycle == doctest::Approx(100));
  CHECK(c.l1d_store_bytes_per_cycle == doctest::Approx(50));
  CHECK(c.rounds == 5);
  CHECK(c.seconds == 3.5);
}

TEST_CASE("ceilings: where a point stands, and its line" * doctest::test_suite("model")) {
  const Ceilings c = ceilings_from(probe_run(), kLevels, 5, 3.5);
  // A 64 MiB copy touches 128 MiB: DRAM. 12 GB/s: 0.60 of the read, 0.75 of the nt write.
  const auto copy = standing_of(ceiling_point("copy/avx/nt", 64 << 20, 12), c);
  REQUIRE(copy.has_value());
  CHECK(copy->level == "DRAM");
  CHECK(*copy->of_read == doctest::Approx(0.6));
  CHECK(*copy->of_write == doctest::Approx(0.75));
  CHECK(standing_text(*copy) ==
        "at 64 MiB this copy moves 12.0 GB/s (6.00 bytes per core cycle) from DRAM: 0.60 of one core's read "
        "bandwidth here, 0.75 of its non-temporal write bandwidth");
  // A 16 KiB copy touches 32 KiB: the L1d; a temporal clear compares with the temporal write only.
  const auto clear = standing_of(ceiling_point("clear/sse", 16384, 50), c);
  REQUIRE(clear.has_value());
  CHECK(clear->level == "L1d");
  CHECK(!clear->of_read);
  CHECK(*clear->of_write == doctest::Approx(0.5));
  // At the L2, where nothing was measured, the line says so.
  const auto l2 = standing_of(ceiling_point("read/sse", 262144, 50), c);
  CHECK(standing_text(*l2) == "at 256 KiB this read moves 50.0 GB/s (25.00 bytes per core cycle) from L2: no "
                              "ceiling of its kind was measured");
  CHECK(!standing_of(ceiling_point("read/sse", 4096, 50), Ceilings{}).has_value());
  // Above a ceiling (a VM's reported LLC probed in DRAM: 30 GB/s over DRAM's read 20) the line says why it can be.
  auto above = standing_of(ceiling_point("copy/avx/nt", 64 << 20, 30), c);
  REQUIRE(above.has_value());
  above->sizes_from = "sysfs";
  CHECK(standing_text(*above) ==
        "at 64 MiB this copy moves 30.0 GB/s (15.00 bytes per core cycle) from DRAM: 1.50 of one core's read "
        "bandwidth here, 1.88 of its non-temporal write bandwidth; above the ceiling: the DRAM ceilings are what its "
        "probes reached at " + format_bytes(c.levels.back().size) + ", and the levels' sizes are the machine's report "
        "(sysfs), not measured: a faster level serves this point than its size says, or the reported sizes are not "
        "where the bandwidth changes (a VM may report its host's L3)");
}

TEST_CASE("ceilings: an explained point finds its result by kernel, size and group" * doctest::test_suite("model")) {
  RunDoc run = probe_run();
  run.results.push_back(ceiling_point("copy/avx/nt", 64 << 20, 12));
  ExplainPoint p;
  p.kernel = run.results.back().point.kernel;
  p.size = 64 << 20;
  p.group = group_label(*group_of(Op::copy, 0, run.results.back().point.at));
  CHECK(!point_standing(run, p).has_value());  // no ceilings in the run
  run.context.ceilings = ceilings_from(run, kLevels, 5, 1);
  REQUIRE(point_standing(run, p).has_value());
  CHECK(point_standing(run, p)->level == "DRAM");
  p.group = "copy 4096";
  CHECK(!point_standing(run, p).has_value());
}

TEST_CASE("ceilings: the record round-trips through the results reader" * doctest::test_suite("model")) {
  RunDoc run = probe_run();
  run.context.ceilings = ceilings_from(run, kLevels, 5, 3.5);
  const nlohmann::json j = nlohmann::json(to_json(run));
  REQUIRE(j["context"].contains("ceilings"));
  const RunDoc back = docs_from_json(j, "c.json").at(0);
  REQUIRE(back.context.ceilings.has_value());
  CHECK(*back.context.ceilings == *run.context.ceilings);
  nlohmann::json without = j;
  without["context"].erase("ceilings");
  CHECK(!docs_from_json(without, "c.json").at(0).context.ceilings.has_value());
  nlohmann::json bad = j;
  bad["context"]["ceilings"]["levels"][0]["read_gbps"] = -1;
  CHECK_THROWS_AS(docs_from_json(bad, "c.json"), InputError);
}

TEST_CASE("ceilings: measured levels and the knee round-trip, and a file without them reads as reported" *
          doctest::test_suite("model")) {
  RunDoc run = probe_run();
  std::vector<ProbeLevel> levels = kLevels;
  levels[2].from = SizeSource::measured;
  run.context.ceilings = ceilings_from(run, levels, 5, 3.5);
  CHECK(run.context.ceilings->levels[1].size_from == SizeSource::reported);
  CHECK(run.context.ceilings->levels[2].size_from == SizeSource::measured);
  CHECK(!run.context.ceilings->levels[3].size_from);  // DRAM: no size to come from anywhere
  run.context.ceilings->knee = CacheKnee{508ull << 20, "the CPU reports ...", "read/avx512/unroll:256/scratch:4/fwd",
                                         {{2 << 20, 45}, {64 << 20, 30}, {256 << 20, 18}}, 28.5, 32 << 20};
  const nlohmann::json j = nlohmann::json(to_json(run));
  CHECK(j["context"]["ceilings"]["levels"][2]["size_from"] == "measured");
  CHECK(!j["context"]["ceilings"]["levels"][3].contains("size_from"));
  CHECK(j["context"]["ceilings"]["knee"]["measured_llc"] == 32 << 20);
  CHECK(*docs_from_json(j, "c.json").at(0).context.ceilings == *run.context.ceilings);
  nlohmann::json old = j;  // a file of kex before the sources were recorded
  old["context"]["ceilings"].erase("knee");
  for (auto& l : old["context"]["ceilings"]["levels"]) l.erase("size_from");
  const Ceilings back = *docs_from_json(old, "c.json").at(0).context.ceilings;
  CHECK(!back.knee);
  CHECK(!back.levels[2].size_from);
  nlohmann::json bad = j;
  bad["context"]["ceilings"]["levels"][0]["size_from"] = "guessed";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "c.json"), doctest::Contains("allowed: reported, measured"), InputError);
}

TEST_CASE("ceilings: above a measured level's ceiling the line says the size was measured" *
          doctest::test_suite("model")) {
  std::vector<ProbeLevel> levels = kLevels;
  levels[2].from = SizeSource::measured;
  const Ceilings c = ceilings_from(probe_run(), levels, 5, 3.5);
  // A 64 MiB copy (128 MiB: DRAM, bounded by the measured LLC) at 30 GB/s, over DRAM's read 20.
  const auto above = standing_of(ceiling_point("copy/avx/nt", 64 << 20, 30), c);
  REQUIRE(above.has_value());
  CHECK(above->bounded_by == "LLC");
  CHECK(above->bound_from == SizeSource::measured);
  CHECK(standing_text(*above).ends_with(
      "; above the ceiling: the DRAM ceilings are what its probes reached at 128 MiB, and the LLC's size was measured "
      "(the largest footprint one read probe ran at its speed, in steps of 2x): a faster level serves this point than "
      "its size says, or the level ends between two footprints probed"));
}
