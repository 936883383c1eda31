// The results context's records (src/model/context_json.cpp): written by their field
// tables, read back equal, files from before a field still read, bad values named.
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// The golden run with every record of a finished sweep's context filled in.
RunDoc full_run() {
  RunDoc d = golden::run();
  RunContext& c = d.context;
  c.sentinel_readings.push_back({{18.5, 52.25, 0.5, 8, false}, 8, false});
  c.sentinel_readings.push_back({{24.0, 70.0, 1.0, 16, true}, 8, true});
  c.buffers = BufferRecord{0, {{4194304, 4194304, true, 2097152, {0}}, {0, 8388608, false, -1, {}}}};
  c.incomplete_points.push_back({"copy/sse/unroll:64/scratch:4/t/fwd/4096", "the measuring worker was killed by SIGKILL",
                                 9, 2, 3});
  c.totals = RunTotals{std::vector<double>{0.5, 0.25, 0.125}, 12, 11, 3.5};
  return d;
}

nlohmann::json context_of(const RunDoc& d) { return nlohmann::json(to_json(d))["context"]; }

RunContext read_context(const nlohmann::json& ctx) {
  nlohmann::json doc = nlohmann::json(to_json(golden::run()));
  doc["context"] = ctx;
  return docs_from_json(doc, "f.json").at(0).context;
}

}  // namespace

TEST_CASE("context: readings, buffers, incomplete points and totals are written where a run writes them and read back equal" *
          doctest::test_suite("model")) {
  const RunDoc d = full_run();
  const nlohmann::ordered_json j = to_json(d)["context"];
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  auto at = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  // The order of a kex run's context: readings, incomplete points, protocol, buffers, totals.
  CHECK(at("shard") < at("sentinel_readings"));
  CHECK(at("sentinel_readings") < at("incomplete_points"));
  CHECK(at("incomplete_points") < at("protocol"));
  CHECK(at("protocol") < at("buffers"));
  CHECK(at("buffers") < at("load_avg_end"));
  CHECK(at("load_avg_end") < at("points_planned"));
  CHECK(at("points_written") < at("elapsed_s"));
  CHECK(j["sentinel_readings"][1].dump() ==
        R"({"l1_ticks_per_kib":24.0,"mem_ticks_per_kib":70.0,"at_s":1.0,"after_task":16,"disturbed":true,)"
        R"("window":8,"requeued":true})");
  CHECK(j["incomplete_points"][0].dump() ==
        R"({"point":"copy/sse/unroll:64/scratch:4/t/fwd/4096","message":"the measuring worker was killed by SIGKILL",)"
        R"("signal":9,"repetitions":2,"repetitions_asked":3})");
  CHECK(j["buffers"].dump() ==
        R"({"worker_cpu_numa_node":0,"plans":[{"bytes":4194304,"planned_bytes":4194304,"huge_pages_advised":true,)"
        R"("huge_page_bytes":2097152,"numa_nodes":[0]},{"bytes":0,"planned_bytes":8388608,)"
        R"("huge_pages_advised":false,"huge_page_bytes":-1,"numa_nodes":[]}]})");
  const RunContext back = read_context(context_of(d));
  CHECK(back.sentinel_readings == d.context.sentinel_readings);
  CHECK(back.buffers == d.context.buffers);
  CHECK(back.incomplete_points == d.context.incomplete_points);
  CHECK(back.totals == d.context.totals);
  CHECK(to_json(RunDoc{back, d.results}) == to_json(d));
}

TEST_CASE("context: a file from before load_avg_end, or from a run that did not finish, still reads" *
          doctest::test_suite("model")) {
  nlohmann::json ctx = context_of(full_run());
  ctx.erase("load_avg_end");
  RunContext c = read_context(ctx);
  REQUIRE(c.totals.has_value());
  CHECK_FALSE(c.totals->load_avg_end.has_value());
  CHECK(c.totals->points_planned == 12);
  CHECK(c.totals->elapsed_s == 3.5);
  CHECK_FALSE(nlohmann::json(to_json(RunDoc{c, {}}))["context"].contains("load_avg_end"));
  for (const char* k : {"points_planned", "points_written", "elapsed_s", "incomplete_points", "sentinel_readings",
                        "buffers"})
    ctx.erase(k);
  c = read_context(ctx);
  CHECK_FALSE(c.totals.has_value());
  CHECK_FALSE(c.buffers.has_value());
  CHECK(c.incomplete_points.empty());
  CHECK(c.sentinel_readings.empty());
}

TEST_CASE("context: a malformed record names its path, the value and what is allowed" * doctest::test_suite("model")) {
  auto error = [](const char* key, const nlohmann::json& v) {
    nlohmann::json ctx = context_of(full_run());
    ctx[nlohmann::json::json_pointer(key)] = v;
    try {
      read_context(ctx);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("/incomplete_points/0/repetitions", "two") ==
        "f.json: context/incomplete_points/0/repetitions: \"two\": expected an integer in 0..18446744073709551615");
  CHECK(error("/incomplete_points", 3) == "f.json: context/incomplete_points: 3: expected a list of 0 to 16777216 entries");
  CHECK(error("/elapsed_s", -1) == "f.json: context/elapsed_s: -1: expected a number >= 0");
  CHECK(error("/load_avg_end", {1, 2, 3, 4}) ==
        "f.json: context/load_avg_end: [1,2,3,4]: expected a list of 0 to 3 entries");
  CHECK(error("/buffers/plans/1/huge_page_bytes", -2) ==
        "f.json: context/buffers/plans/1/huge_page_bytes: -2: expected an integer in -1..9223372036854775807");
  CHECK(error("/sentinel_readings/0/disturbed", "no") ==
        "f.json: context/sentinel_readings/0/disturbed: \"no\": expected true or false");
}

TEST_CASE("results: a free-text field longer than 4096 bytes refuses the file, naming its path and the limit" *
          doctest::test_suite("model")) {
  // A 2 MB host name took kex plot seconds and gnuplot gigabytes, and a 100 MB one minutes.
  const std::string big(2'000'000, 'H');
  auto error = [](nlohmann::json doc) {
    try {
      docs_from_json(doc, "f.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const nlohmann::json doc = nlohmann::json(to_json(full_run()));
  for (const char* at : {"/context/host_name", "/context/machine/cpu_model", "/context/date",
                         "/context/incomplete_points/0/message", "/benchmarks/14/error_message"}) {
    CAPTURE(at);
    nlohmann::json d = doc;
    d[nlohmann::json::json_pointer(at)] = big;
    const std::string e = error(d);
    CHECK(e.find(std::string(at).substr(1) + ": \"HHHH") != std::string::npos);
    CHECK(e.find("...: longer than 4096 bytes") != std::string::npos);
    CHECK(e.size() < 200);  // the value is shown cut, not whole
    d[nlohmann::json::json_pointer(at)] = std::string(4096, 'h');  // the limit itself is allowed
    CHECK(error(d) == "no error");
  }
  nlohmann::json d = doc;
  d["context"]["seed_tables"] = {{{"source", "fastc"}, {"harness", "fastc"}, {"text", std::string(1'100'000, 'x')}}};
  CHECK(error(d).find("f.json: context/seed_tables/0/text: \"xxx") == 0);
  CHECK(error(d).find(": longer than 1048576 bytes") != std::string::npos);
  d["context"]["seed_tables"][0]["text"] = std::string(100'000, 'x');  // a seed program's whole table
  CHECK(error(d) == "no error");
}

TEST_CASE("context: a kex run's own fields are typed and read back equal, and keys of another kex are kept as written" *
          doctest::test_suite("model")) {
  RunDoc d = full_run();
  RunContext& c = d.context;
  c.gbench.cpu_scaling_enabled = false;
  c.gbench.caches = std::vector<GbenchCache>{{"Data", 1, 32768, 2}, {"Unified", 3, 33554432, 16}};
  c.gbench.load_avg = std::vector<double>{0.5, 0.25, 0.125};
  c.gbench.library_build_type = "release";
  c.build.git_commit = "abc1234";
  c.build.libraries = std::vector<std::pair<std::string, std::string>>{{"xbyak", "7.07"}, {"cli11", "2.4.1"}};
  c.pinned_cpu = 1;
  c.timer = TimerRecord{};
  c.timer->overhead_ticks = 36;
  c.policies.push_back(PolicyRecord{});
  c.policies.back().source = "golden.json";
  c.policies.back().policy.min_time_per_point = 0.01;
  c.counters = std::vector<CounterRecord>{{"cycles", "perf::PERF_COUNT_HW_CPU_CYCLES", true, false, "no PMU (ENOENT)"}};
  c.filter = "^copy/";
  c.pooled_runs = 3;
  const nlohmann::ordered_json j = to_json(d)["context"];
  std::string keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys += it.key() + " ";
  CHECK(keys ==
        "date host_name executable num_cpus mhz_per_cpu cpu_scaling_enabled caches load_avg library_build_type "
        "json_schema_version kex_version kex_git_commit libraries machine pinned_cpu timer config policy shard "
        "sentinel_readings incomplete_points protocol buffers load_avg_end points_planned points_written elapsed_s "
        "counters filter pooled_runs interrupted ");
  CHECK(j["libraries"].dump() == R"({"xbyak":"7.07","cli11":"2.4.1"})");
  CHECK(j["timer"].dump() == R"({"source":"lfence; rdtsc; lfence","overhead_ticks":36,)"
                             R"("units":"real_time in ns from TSC ticks; cycles are estimated core cycles"})");
  nlohmann::json in = context_of(d);
  in["a_newer_field"] = {{"x", 1}};
  in["policy"][0]["cache_modes"] = {"warm", "cold"};  // the first kex wrote it
  const RunContext back = read_context(in);
  CHECK(back.gbench == c.gbench);
  CHECK(back.build.libraries->size() == 2);  // read in the file's key order (a parsed file's keys are sorted)
  CHECK(back.pinned_cpu == 1);
  CHECK(back.timer == c.timer);
  CHECK(back.counters == c.counters);
  CHECK(back.filter == "^copy/");
  CHECK(back.pooled_runs == 3);
  REQUIRE(back.policies.size() == 1);
  CHECK(back.policies[0].policy.min_time_per_point == 0.01);
  CHECK(back.policies[0].min_time_recorded);
  CHECK(back.policies[0].unknown == nlohmann::ordered_json{{"cache_modes", {"warm", "cold"}}});
  CHECK(back.unknown == nlohmann::ordered_json{{"a_newer_field", {{"x", 1}}}});
  const nlohmann::ordered_json again = to_json(RunDoc{back, {}})["context"];
  CHECK(again["a_newer_field"]["x"] == 1);
  CHECK(again["policy"][0]["cache_modes"][1] == "cold");
  CHECK(again["policy"][0]["min_time_per_point_s"] == 0.01);
  nlohmann::json old = context_of(d);
  old["policy"][0].erase("min_time_per_point_s");  // a file of a kex before the field
  const RunContext before = read_context(old);
  CHECK(!before.policies[0].min_time_recorded);
  CHECK(before.policies[0].policy.max_time_per_point == 0.25);
  CHECK(!to_json(RunDoc{before, {}})["context"]["policy"][0].contains("min_time_per_point_s"));  // written back without it
}

TEST_CASE("context: a Google Benchmark context gives the machine its caches and TSC rate" * doctest::test_suite("model")) {
  const nlohmann::json gb = nlohmann::json::parse(R"({"context": {"date": "2024-05-01T10:00:00+00:00",
    "host_name": "box", "executable": "./bench", "num_cpus": 8, "mhz_per_cpu": 3000, "cpu_scaling_enabled": false,
    "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 2},
               {"type": "Instruction", "level": 1, "size": 65536, "num_sharing": 2},
               {"type": "Unified", "level": 2, "size": 1048576, "num_sharing": 2},
               {"type": "Unified", "level": 3, "size": 33554432, "num_sharing": 16}],
    "load_avg": [1.5, 1.0, 0.5], "library_version": "v1.8.3", "library_build_type": "release",
    "json_schema_version": 1}, "benchmarks": []})");
  const RunContext c = docs_from_json(gb, "gb.json").at(0).context;
  CHECK(c.machine.l1d_bytes == 32768);
  CHECK(c.machine.l2_bytes == 1048576);
  CHECK(c.machine.llc_bytes == 33554432);
  CHECK(c.machine.tsc_hz == 3e9);
  CHECK(c.gbench.executable == "./bench");
  CHECK(c.unknown == nlohmann::ordered_json{{"library_version", "v1.8.3"}});
  nlohmann::json bad = gb;
  bad["context"]["caches"][1]["size"] = "64K";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "gb.json"),
                       "gb.json: context/caches/1/size: \"64K\": expected an integer in 0..1099511627776", InputError);
  bad = gb;
  bad["context"]["libraries"] = {{"xbyak", 7}};
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "gb.json"), "gb.json: context/libraries/xbyak: 7: expected a string",
                       InputError);
}

TEST_CASE("context and repetitions: where the workers of threads > 1 ran is written, read back equal, and checked" *
          doctest::test_suite("model")) {
  RunDoc d = full_run();
  if (!d.context.protocol) d.context.protocol.emplace();
  d.context.protocol->placement.mode = kex::PlacementMode::spread;
  d.context.protocol->threads = {{1, 1, 0, 0}, {0, 0, 0, -1}};
  Result& r = d.results.at(0);
  r.point.at.threads = 2;
  r.reps.at(0).threads = {{1, 400.5, 390}, {0, 410, 401}};
  r.reps.at(0).start_spread_ticks = 120;
  const nlohmann::json j = to_json(d);
  CHECK(j["context"]["protocol"]["threads"][1] == nlohmann::json{{"cpu", 0}, {"core", 0}, {"l3", 0}, {"numa", -1}});
  CHECK(j["benchmarks"][0]["params"]["threads"] == 2);
  const RunDoc back = docs_from_json(j, "f.json").at(0);
  CHECK(back.context.protocol == d.context.protocol);
  CHECK(back.results.at(0) == d.results.at(0));
  auto error = [&](const char* key, const nlohmann::json& v) {
    nlohmann::json bad = j;
    bad[nlohmann::json::json_pointer(key)] = v;
    try {
      docs_from_json(bad, "f.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("/context/protocol/placement", "wide") ==
        "f.json: context/protocol/placement: \"wide\": allowed: spread, compact or list");
  CHECK(error("/context/protocol/threads/0/cpu", "x").find("context/protocol/threads/0/cpu: \"x\": expected an integer") !=
        std::string::npos);
  CHECK(error("/benchmarks/0/reps/0/threads/1/cpu", -7).find("threads/1/cpu: -7: expected an integer in -1..1048575") !=
        std::string::npos);
  CHECK(error("/benchmarks/0/reps/0/threads", "two").find("threads: \"two\": expected a list of 0 to 1048576 entries") !=
        std::string::npos);
  // A point's workers are as many as its threads, each with a time > 0.
  CHECK(error("/benchmarks/0/reps/0/threads/2", {{"cpu", 3}, {"median_ticks", 5}, {"min_ticks", 5}})
            .find("reps/0/threads: 3 workers for a point of 2 threads") != std::string::npos);
  CHECK(error("/benchmarks/0/reps/0/threads/0/median_ticks", -4).find("median_ticks: -4.000000: expected ticks per operation > 0") !=
        std::string::npos);
  CHECK(error("/benchmarks/0/reps/0/threads/0/min_ticks", 1e9).find("min_ticks") != std::string::npos);
  CHECK(error("/benchmarks/0/reps/0/start_spread_ticks", -1e308).find("start_spread_ticks") != std::string::npos);
  nlohmann::json one = j;
  one["benchmarks"][0]["name"] = d.results.at(0).point.kernel + "/" + std::to_string(d.results.at(0).point.at.size);
  one["benchmarks"][0]["params"].erase("threads");
  CHECK_THROWS_WITH_AS(docs_from_json(one, "f.json"), doctest::Contains("2 workers for a point of 1 thread"), InputError);
}
