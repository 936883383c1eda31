// The sweep over layout axes, run for real: an aliasing study in one config.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "src/model/config.hpp"
#include "src/model/result_json.hpp"
#include "src/results/compare.hpp"
#include "src/results/summary.hpp"
#include "src/run/sweep.hpp"
#include "src/run/topology.hpp"

using namespace kex;

namespace {
RunDoc sweep(const std::string& config, bool paired = true) {
  RunOptions o;
  o.progress = false;
  o.protocol.paired = paired;
  return run_sweep({parse_config(config, "t.json")}, o).doc;
}
const Result* result_named(const RunDoc& d, const std::string& name) {
  for (const auto& r : d.results)
    if (r.name() == name) return &r;
  return nullptr;
}
}  // namespace

TEST_CASE("an aliasing sweep in one config: unique names, placements, self-compare, a block per layout" * doctest::test_suite("sweep")) {
  const RunDoc d = sweep(R"({"sizes": [4096, 8192, 65536],
    "kernels": [{"op": "copy", "regs": "string", "unroll": 1}, {"op": "copy", "regs": "avx"}],
    "layout": {"distance": [65536, 65544, 65600, 69632, 69696, 131072, 131080, 1048640]},
    "baselines": ["memcpy", "rep_movsb"], "max_time_per_point": 0.003, "min_samples": 5})");
  // 2 kernels + memcpy + rep_movsb, 8 distances, 3 sizes
  REQUIRE(d.results.size() == 4 * 8 * 3);
  std::set<std::string> names;
  std::map<int64_t, std::set<uint32_t>> rel;
  for (const auto& r : d.results) {
    CHECK_MESSAGE(names.insert(r.name()).second, r.name());
    CHECK_MESSAGE(r.ok(), r.name() << ": " << r.status.message);
    CHECK(parse_point_name(r.name()) == r.point);
    REQUIRE(r.placed);
    const int64_t dist = *r.point.at.layout.distance;
    CHECK(r.placed->relative_offset == uint32_t(((dist % 4096) + 4096) % 4096));
    CHECK(r.placed->dst_offset - r.placed->src_offset == dist);
    rel[dist].insert(r.placed->relative_offset);
  }
  CHECK(rel[65544] == std::set<uint32_t>{8});
  CHECK(rel[69696] == std::set<uint32_t>{64});
  CHECK(rel[131072] == std::set<uint32_t>{0});
  // The typed params carry the relative offset (what a results file holds).
  const auto j = to_json(*result_named(d, "copy/string/unroll:1/t/fwd/4096/dist:65544"));
  CHECK(j["params"]["relative_offset"] == 8);
  CHECK(j["params"]["distance"] == 65544);
  // A self-compare matches every point, one to one.
  const Comparison c = compare_results(d, d);
  CHECK(c.rows.size() == d.results.size());
  CHECK(c.only_a.empty());
  for (const auto& row : c.rows) CHECK(row.speedup == doctest::Approx(1.0));
  // The summary has a block per layout; the layout table a column per distance.
  const std::string s = summary_table(d);
  for (const char* block : {"copy (dist:65536)", "copy (dist:65544)", "copy (dist:1048640)"})
    CHECK_MESSAGE(s.find(block) != std::string::npos, block);
  const std::string lt = layout_table(d);
  CHECK(lt.find("dist:69696") != std::string::npos);
  CHECK(lt.find("worst/best") != std::string::npos);
}

TEST_CASE("overlapping src and dst: a forward loop that breaks is refused, rep movsb backward is memmove" * doctest::test_suite("sweep")) {
  const RunDoc d = sweep(R"({"sizes": [4096], "layout": {"distance": [64, -64]},
    "kernels": [{"op": "copy", "regs": "avx"}, {"op": "copy", "regs": "string", "unroll": 1, "direction": ["forward", "backward"]}],
    "baselines": false, "max_time_per_point": 0.003, "min_samples": 5})");
  auto at = [&](const char* n) {
    const Result* r = result_named(d, n);
    REQUIRE_MESSAGE(r, n);
    return *r;
  };
  // dst above src by 64 bytes: a forward copy overwrites source bytes it has not read yet.
  const Result fwd = at("copy/avx/unroll:128/scratch:4/t/fwd/4096/dist:64");
  CHECK(fwd.status.kind == StatusKind::skipped);
  CHECK(fwd.status.message.find("does not give memmove's result") != std::string::npos);
  CHECK(fwd.status.message.find("size 4096, distance 64") != std::string::npos);
  CHECK(at("copy/string/unroll:1/t/fwd/4096/dist:64").status.kind == StatusKind::skipped);
  // Copied from the top down, the same overlap is a correct memmove: measured.
  const Result bwd = at("copy/string/unroll:1/t/bwd/4096/dist:64");
  CHECK_MESSAGE(bwd.ok(), bwd.status.message);
  // dst below src: forward loops that load before they store are fine.
  CHECK(at("copy/string/unroll:1/t/fwd/4096/dist:-64").ok());
  CHECK(at("copy/avx/unroll:128/scratch:4/t/fwd/4096/dist:-64").ok());
}

TEST_CASE("an aligned kernel never gets a pointer it cannot take (the distance crash)" * doctest::test_suite("sweep")) {
  const RunDoc d = sweep(R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "gpr"},
    {"op": "copy", "regs": "sse", "align": "aligned"}], "baselines": false, "layout": {"distance": [4168, 4176]},
    "max_time_per_point": 0.003, "min_samples": 5})");
  REQUIRE(d.results.size() == 4);
  const Result* bad = result_named(d, "copy/sse/unroll:64/scratch:4/t/fwd/aligned/4096/dist:4168");
  REQUIRE(bad);
  CHECK(bad->status.kind == StatusKind::skipped);
  CHECK(bad->status.message == "this kernel needs src and dst aligned to 16 bytes; distance 4168 is not a multiple of 16");
  const Result* good = result_named(d, "copy/sse/unroll:64/scratch:4/t/fwd/aligned/4096/dist:4176");
  REQUIRE(good);
  CHECK(good->ok());
  CHECK(good->placed->src_page_offset % 16 == 0);
  CHECK(good->placed->dst_page_offset % 16 == 0);
  CHECK(result_named(d, "copy/gpr/unroll:64/scratch:8/t/fwd/4096/dist:4168")->ok());
}

TEST_CASE("offsets are rounded up for aligned kernels and recorded" * doctest::test_suite("sweep")) {
  const RunDoc d = sweep(R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse", "align": "aligned"}],
    "baselines": false, "layout": {"src_offset": 3, "dst_offset": 5}, "max_time_per_point": 0.003, "min_samples": 5})");
  REQUIRE(d.results.size() == 1);
  const Result& r = d.results.front();
  REQUIRE(r.ok());
  CHECK(r.placed->src_offset == 16);
  CHECK(r.placed->dst_offset == 16);
  CHECK(r.placed->rounded_to == 16);
  CHECK(r.name() == "copy/sse/unroll:64/scratch:4/t/fwd/aligned/4096/src:3/dst:5");
}

TEST_CASE("chunked calls, read-back and prefill are measured and named" * doctest::test_suite("sweep")) {
  const RunDoc d = sweep(R"({"sizes": ["64KiB"], "kernels": [{"op": "clear", "regs": "string", "unroll": 8}],
    "baselines": false, "chunk": ["none", "4KiB"], "consume": [false, true], "prefill": [255],
    "max_time_per_point": 0.003, "min_samples": 5})");
  REQUIRE(d.results.size() == 4);
  for (const auto& r : d.results) CHECK_MESSAGE(r.ok(), r.name());
  CHECK(result_named(d, "clear/string/unroll:8/t/fwd/65536/chunk:4096/prefill:0xff/consume"));
  CHECK(result_named(d, "clear/string/unroll:8/t/fwd/65536/prefill:0xff"));
}

TEST_CASE("the context says where the buffers are: NUMA node and huge pages of each mapping" * doctest::test_suite("sweep")) {
  const RunDoc doc = sweep(R"({"sizes": [4096, 2097152], "kernels": [{"op": "copy", "regs": "gpr"}], "baselines": false,
    "max_time_per_point": 0.002, "layout": {"huge_pages": [true, false]}})");
  REQUIRE(doc.context.buffers.has_value());
  const BufferRecord& b = *doc.context.buffers;
  const int node = b.worker_cpu_numa_node;
  REQUIRE(doc.context.protocol.has_value());
  CHECK(node == numa_node_of_cpu(doc.context.protocol->cpu));
  REQUIRE(b.plans.size() == 2);
  for (const BufferPlacement& p : b.plans) {
    INFO(to_json(p).dump());
    CHECK(p.bytes >= 2 * 2097152);
    if (node >= 0) CHECK(p.numa_nodes == std::vector<int>{node});  // prefaulted by the pinned worker
    CHECK(p.huge_page_bytes <= int64_t(p.bytes));
    if (!p.huge_pages_advised) CHECK(p.huge_page_bytes == 0);  // MADV_NOHUGEPAGE: none
    else CHECK(p.huge_page_bytes >= 0);
  }
}

TEST_CASE("min_time_per_point: a repetition samples that long before the precision may stop it" * doctest::test_suite("sweep")) {
  const RunDoc doc = sweep(R"({"sizes": [256], "kernels": [{"op": "copy", "regs": "gpr"}], "baselines": false,
    "precision": 0.5, "min_samples": 3, "max_time_per_point": 0.05, "min_time_per_point": 0.012})",
                            /*paired=*/false);  // the policy of the separate protocol
  size_t reps = 0;
  for (const auto& r : doc.results)
    for (const auto& rep : r.reps) {
      ++reps;
      CHECK(rep.stop_reason == "precision");
      // What measure() guarantees: a warm-up of at least 2 ms, then sampling until 12 ms
      // have passed. How much of that span the samples fill depends on the build (under
      // AddressSanitizer the bookkeeping between samples took a quarter of it), so the
      // samples' own sum is not asserted; that sampling went on past the 3 that the
      // precision alone would take is.
      CHECK(rep.seconds >= 0.0139);  // 2 ms + 12 ms, less a tick of rounding
      CHECK(rep.sample_ticks.size() > 3);
    }
  CHECK(reps == 1);
}

TEST_CASE("the sweep returns the context complete: the run id, filter and counters it was given" * doctest::test_suite("sweep")) {
  RunOptions o;
  o.progress = false;
  o.protocol.sentinel.enabled = false;
  o.run_id = "0123456789abcdef";  // a resumed journal's: the same run
  o.filter = "sse";
  o.counters = std::vector<CounterRecord>{{"cycles", "cycles", true, false, "no PMU"}};
  Config c = parse_config(R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": ["sse", "gpr"]}],
    "max_time_per_point": 0.003, "min_samples": 5})", "t.json");
  c.filter = parse_name_filter("sse", "--filter");
  const RunDoc d = run_sweep({c}, o).doc;
  CHECK(d.context.run_id == "0123456789abcdef");
  CHECK(d.context.filter == "sse");
  REQUIRE(d.context.counters);
  CHECK(d.context.counters->at(0).reason == "no PMU");
  REQUIRE(d.context.protocol);
  CHECK(d.context.protocol->journal == "");  // no journal: said, not left out
  for (const Result& r : d.results) CHECK_MESSAGE(r.name().find("/gpr/") == std::string::npos, r.name());  // filtered out
  // Without one, the sweep draws a fresh id of 16 hex digits.
  o.run_id.clear();
  const std::string drawn = run_sweep({c}, o).doc.context.run_id;
  CHECK(drawn.size() == 16);
  CHECK(drawn.find_first_not_of("0123456789abcdef") == std::string::npos);
}
