// The field tables of a results entry's records (src/model/result_fields.hpp): written
// in one order, read back equal, and the fields no kex ever left out required.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "src/core/error.hpp"
#include "src/model/field_records.hpp"
#include "src/model/result_fields.hpp"
#include "src/model/result_json.hpp"

namespace kex {

namespace {

Repetition full_repetition() {
  Repetition r;
  r.calls_per_sample = 8;
  r.sample_ticks = {800, 810, 790};
  r.per_call = {3, 98.75, 99, 100, 101, 101.25, 98.75, 101.25, 0.0125};
  r.stop_reason = "precision";
  r.cycles_per_tick = 1.25;
  r.cycles_method = "perf";
  r.context_switches = 2;
  r.migrations = 1;
  r.seconds = 0.5;
  r.steal_s = 0.01;
  r.order = 7;
  r.round = 3;
  r.previous = "copy/sse/unroll:64/scratch:4/t/fwd/4KiB";
  r.disturbed = true;
  r.counters = {{"cycles", 30, 0.5}, {"instructions", 12.5, 1}};
  r.threads = {{0, 100, 99}, {2, 102, 100}};
  r.start_spread_ticks = 40;
  return r;
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

}  // namespace

TEST_CASE("a repetition's field table: written in its order, read back equal, required fields refused when missing") {
  const Repetition r = full_repetition();
  const nlohmann::ordered_json j = to_json(r);
  CHECK(keys_of(j) == std::vector<std::string>{"calls_per_sample", "n", "min_ticks", "p10_ticks", "median_ticks",
                                               "p90_ticks", "max_ticks", "ci95_low_ticks", "ci95_high_ticks",
                                               "ci_rel_halfwidth", "stop_reason", "cycles_per_tick", "cycles_method",
                                               "context_switches", "cpu_migrations", "seconds", "steal_s", "order",
                                               "round", "previous", "disturbed", "counters", "threads",
                                               "start_spread_ticks", "samples_ticks"});
  // Counters are an object of records by name (a reader of the file sees them in name order).
  CHECK(j["counters"].dump() == R"({"cycles":{"per_op":30.0,"running":0.5},"instructions":{"per_op":12.5,"running":1.0}})");
  CHECK(repetition_from_json(nlohmann::json::parse(j.dump()), "w") == r);

  // Written only when there are some: no round, counters or workers.
  Repetition plain = r;
  plain.round = 0;
  plain.counters.clear();
  plain.threads.clear();
  plain.start_spread_ticks = 0;
  const nlohmann::ordered_json p = to_json(plain);
  CHECK(!p.contains("round"));
  CHECK(!p.contains("counters"));
  CHECK(!p.contains("threads"));
  CHECK(!p.contains("start_spread_ticks"));
  CHECK(repetition_from_json(nlohmann::json(p), "w") == plain);

  const auto error = [&](auto edit) {
    nlohmann::json bad(j);
    edit(bad);
    try {
      repetition_from_json(bad, "f.json: /benchmarks/0/reps/0");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error([](auto& b) { b.erase("calls_per_sample"); }) == "f.json: /benchmarks/0/reps/0/calls_per_sample: missing");
  CHECK(error([](auto& b) { b["median_ticks"] = nullptr; }) == "f.json: /benchmarks/0/reps/0/median_ticks: null: a value is required");
  CHECK(error([](auto& b) { b["counters"] = {1, 2}; }) ==
        "f.json: /benchmarks/0/reps/0/counters: [1,2]: expected an object of at most 4096 records by name");
  CHECK(error([](auto& b) { b["counters"]["cycles"]["per_op"] = "many"; }) ==
        "f.json: /benchmarks/0/reps/0/counters/cycles/per_op: \"many\": expected a number");
  CHECK(error([](auto& b) { b["threads"][0].erase("cpu"); }) == "f.json: /benchmarks/0/reps/0/threads/0/cpu: missing");
  // Older files: a field kex added later keeps its default, a key kex does not know is passed over.
  CHECK(error([](auto& b) { b.erase("steal_s"); b["from_a_newer_kex"] = 1; }) == "no error");
}

TEST_CASE("a kernel spec's params: every field required but those older files lack") {
  const KernelSpec s = parse_spec_name("clear/avx/unroll:128/scratch:2/pf:nta@512/nt/bwd/fill:0x5a");
  nlohmann::json p = spec_params(s);
  CHECK(p["fill"] == 0x5a);
  CHECK(spec_from_params(p, "p") == s);
  for (const char* older : {"edges", "block_bytes", "block_order", "fill"}) {
    nlohmann::json q = p;
    q.erase(older);
    CHECK_NOTHROW(spec_from_params(q, "p"));
  }
  p.erase("scratch");
  CHECK_THROWS_WITH_AS(spec_from_params(p, "f.json: /benchmarks/3/params"), "f.json: /benchmarks/3/params/scratch: missing",
                       InputError);
  p = spec_params(s);
  p["fill"] = 256;
  CHECK_THROWS_WITH_AS(spec_from_params(p, "p"), "p/fill: 256: expected an integer in 0..255", InputError);
}

}  // namespace kex

namespace kex {

TEST_CASE("an entry's stats: written in the table's order, read back to the same JSON, a counter that is no number "
          "refused by path") {
  EntryFigures f;
  f.a.repetitions = 3;
  f.a.median_ns = 100;
  f.a.stop_reason = "precision";
  f.a.cycles_method = "perf";
  f.gbps = 40.96;
  f.ticks_per_page = 250;
  f.counters_per_op = {{"cycles", 300}, {"instructions", 125}};
  f.counters_per_byte = {{"cycles", 0.075}, {"instructions", 0.03}};
  auto map = [](auto& io, auto& x) { result_fields::map_entry_stats(io, x); };
  const nlohmann::ordered_json j = record_json(f, map);
  const std::vector<std::string> keys = keys_of(j);
  REQUIRE(keys.size() == 32);
  CHECK(std::vector<std::string>(keys.begin(), keys.begin() + 4) ==
        std::vector<std::string>{"repetitions", "disturbed_repetitions", "n", "median_ns"});
  CHECK(keys.back() == "counters_per_byte");
  CHECK(keys_of(j["counters_per_op"]) == std::vector<std::string>{"cycles", "instructions"});  // the counters' order
  const nlohmann::json read = nlohmann::json::parse(j.dump());
  const EntryFigures back = record_from<EntryFigures>(read, "f.json: /benchmarks/0/stats", Keys::exact, map);
  CHECK(record_json(back, map) == j);
  CHECK(back.counters_per_op == f.counters_per_op);

  nlohmann::json bad = read;
  bad["counters_per_op"]["cycles"] = "300";
  try {
    record_from<EntryFigures>(bad, "f.json: /benchmarks/0/stats", Keys::exact, map);
    FAIL("a text counter was read");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("f.json: /benchmarks/0/stats/counters_per_op/cycles: \"300\"", 0) == 0);
  }
  f.counters_per_op.clear();  // no counters: neither object
  CHECK(keys_of(record_json(f, map)).size() == 30);
}

}  // namespace kex
