#include <doctest/doctest.h>

#include <set>

#include <filesystem>
#include <map>

#include "src/core/error.hpp"
#include "src/model/noise.hpp"
#include "src/results/merge.hpp"
#include "src/model/result_json.hpp"
#include "src/results/results.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;
using nlohmann::json;

static std::map<std::string, kex::Result> results_by_name(const kex::RunDoc& doc) {
  std::map<std::string, kex::Result> m;
  for (const auto& e : doc.results) m[e.name()] = e;
  return m;
}

static std::vector<kex::RunDoc> shard(int i, int n, const std::string& host = "node") {
  synth::Options o;
  o.shard_index = i;
  o.shard_count = n;
  o.host = host + std::to_string(i);  // a scheduler puts shards on different, identical nodes
  return {synth::run(o)};
}

TEST_CASE("merging the shards of a run gives the unsharded point set") {
  const kex::RunDoc full = synth::run();
  for (int n : {1, 2, 3, 7}) {
    std::vector<MergeInput> in;
    for (int i = n - 1; i >= 0; --i) in.push_back({"s" + std::to_string(i) + ".json", shard(i, n)});  // any order
    std::vector<std::string> warnings;
    auto merged = merge_results(in, &warnings);
    CHECK(warnings.empty());
    REQUIRE(merged.size() == 1);
    const kex::RunDoc& m = merged.front();
    CHECK(results_by_name(m) == results_by_name(full));
    CHECK(m.results.size() == full.results.size());
    CHECK(m.context.shard_index == 0);
    CHECK(m.context.shard_count == 1);
    const json j = kex::to_json(merged);
    CHECK(!j["context"].contains("machines"));
    if (n > 1) CHECK(m.context.merged_from.size() == size_t(n));
  }
}

TEST_CASE("merge: repeated - inconsistent or missing shards") {
  std::vector<std::string> w;
  CHECK_THROWS_AS(merge_results({{"a", shard(1, 3)}, {"b", shard(1, 3)}}, &w), InputError);
  CHECK_THROWS_AS(merge_results({{"a", shard(0, 3)}, {"b", shard(1, 2)}}, &w), InputError);
  // Two whole runs of different configs on one machine: their points collide.
  kex::RunDoc other = synth::run();
  other.context.configs.push_back({"x.json", nlohmann::ordered_json{{"sizes", {1}}}});
  CHECK_THROWS_AS(merge_results({{"a", {synth::run()}}, {"b", {other}}}, &w), InputError);
  w.clear();
  auto m = merge_results({{"a", shard(0, 3)}, {"c", shard(2, 3)}}, &w);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("shard(s) 1 of 3 missing") != std::string::npos);
  const json j = kex::to_json(m);
  CHECK(j["context"]["shard"]["count"] == 3);
  CHECK(j["context"]["shard"]["merged_indices"] == json({0, 2}));
}

TEST_CASE("merge pools whole runs of one machine and the same configs as extra repetitions") {
  std::vector<std::string> w;
  kex::RunDoc a = synth::run(), b = synth::run(), c = synth::run();
  b.context.date = "2025-01-01T00:01:00Z";
  c.context.date = "2025-01-01T00:02:00Z";
  auto m = merge_results({{"a.json", {a}}, {"b.json", {b}}, {"c.json", {c}}}, &w);
  REQUIRE(m.size() == 1);
  CHECK(m[0].results.size() == a.results.size());
  for (const auto& r : m[0].results)
    if (r.ok()) CHECK_MESSAGE(r.reps.size() == 3, r.name());
  CHECK(kex::to_json(m)["context"]["pooled_runs"] == 3);
  // A pool merged with another run counts the pool's runs.
  kex::RunDoc d = synth::run();
  d.context.date = "2025-01-01T00:03:00Z";
  auto again = merge_results({{"m.json", {m[0]}}, {"d.json", {d}}}, &w);
  REQUIRE(again.size() == 1);
  CHECK(kex::to_json(again)["context"]["pooled_runs"] == 4);
  // The same run twice (the same file, or a copy of it) is refused: its repetitions would count twice.
  try {
    merge_results({{"a.json", {a}}, {"copy.json", {a}}}, &w);
    FAIL("merged a run with itself");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "copy.json: the same run as a.json (host alpha, date 2025-01-01T00:00:00Z): "
                                   "pooling a run with itself would count its repetitions twice");
  }
  // Inside an earlier merge: m.json holds a, b and c; each of them again is refused,
  // not only its first (the merge's own context is a's).
  for (const auto& [name, run] : {std::pair{"b.json", b}, std::pair{"c.json", c}})
    CHECK_THROWS_WITH_AS(merge_results({{"m.json", {m[0]}}, {name, {run}}}, &w),
                         (std::string(name) + ": the same run as m.json (host alpha, date " + run.context.date +
                          "): pooling a run with itself would count its repetitions twice").c_str(),
                         InputError);
  // The pool's provenance is the runs, not the files of an earlier merge.
  const json mj = kex::to_json(again);
  REQUIRE(mj["context"]["merged_from"].size() == 4);
  CHECK(mj["context"]["merged_from"][1]["file"] == "b.json");
  CHECK(mj["context"]["merged_from"][3]["file"] == "d.json");
  // Run ids tell apart two runs that started in the same second with the same seed,
  // and find one run under two dates' worth of copies.
  kex::RunDoc s1 = synth::run(), s2 = synth::run();
  s1.context.run_id = "00000000000000a1";
  s2.context.run_id = "00000000000000a2";
  auto both = merge_results({{"s1.json", {s1}}, {"s2.json", {s2}}}, &w);
  CHECK(kex::to_json(both)["context"]["pooled_runs"] == 2);
  CHECK(kex::to_json(both)["context"]["merged_from"][1]["run_id"] == "00000000000000a2");
  CHECK_FALSE(kex::to_json(both)["context"].contains("run_id"));  // several runs: each named in merged_from
  CHECK_THROWS_AS(merge_results({{"pool.json", both}, {"s2.json", {s2}}}, &w), InputError);
}

namespace {
/// A run whose context holds sentinel readings (L1 loop figures, memory 50) and the noise computed from them.
kex::RunDoc with_readings(const std::vector<double>& l1, size_t tasks, size_t remeasured) {
  static int runs = 0;  // each a run of its own (merge refuses a run given twice)
  kex::RunDoc d = synth::run();
  d.context.date = "2025-01-02T00:00:0" + std::to_string(runs++ % 10) + "Z";
  std::vector<double> mem(l1.size(), 50.0);
  for (double v : l1) d.context.sentinel_readings.push_back({{v, 50.0, 0, 0, false}, 8, false});
  d.context.protocol = kex::ProtocolRecord{};
  d.context.protocol->noise = compute_noise(l1, mem, 1, tasks, remeasured, 0.25, tasks / 4, {});
  return d;
}
}  // namespace

TEST_CASE("merge pools the runs' sentinel readings: the merged noise describes every run, not the first") {
  std::vector<std::string> w;
  // A core-shared run (L1 loop 22.3 ticks/KiB) and two quiet ones (18.9), as seen on the Zen 5 VM.
  auto m = merge_results({{"a.json", {with_readings({22.3, 22.3, 22.3}, 40, 8)}},
                          {"b.json", {with_readings({18.9, 18.9}, 40, 4)}},
                          {"c.json", {with_readings({18.9, 18.9}, 40, 0)}}},
                         &w);
  REQUIRE(m.size() == 1);
  const std::optional<Noise> n = run_noise(m[0].context);
  REQUIRE(n.has_value());
  CHECK(n->l1.median == doctest::Approx(18.9));
  CHECK(n->readings == 7);
  CHECK(n->disturbed == 3);
  CHECK(n->tasks_measured == 120);
  CHECK(n->remeasured_tasks == 12);
  CHECK(n->budget_tasks == 30);
  CHECK(m[0].context.sentinel_readings.size() == 7);
  // A piece without readings: nothing true can be said of the merged run's noise, but the
  // readings that were taken stay.
  kex::RunDoc bare = with_readings({18.9}, 40, 0);
  bare.context.sentinel_readings.clear();
  auto m2 = merge_results({{"a.json", {with_readings({22.3}, 40, 0)}}, {"b.json", {bare}}}, &w);
  REQUIRE(m2.size() == 1);
  CHECK_FALSE(run_noise(m2[0].context).has_value());
  CHECK(m2[0].context.sentinel_readings.size() == 1);
}

TEST_CASE("merge keeps the noise of runs without a sentinel: they took no readings, so none is missing") {
  // kex run --no-sentinel: a noise record with 0 readings and no context.sentinel_readings.
  std::vector<std::string> w;
  kex::RunDoc a = with_readings({}, 40, 2), b = with_readings({}, 30, 0);
  for (kex::RunDoc* d : {&a, &b}) d->context.sentinel_readings.clear();
  auto m = merge_results({{"a.json", {a}}, {"b.json", {b}}}, &w);
  REQUIRE(m.size() == 1);
  const std::optional<Noise> n = run_noise(m[0].context);
  REQUIRE(n.has_value());
  CHECK(n->readings == 0);
  CHECK(n->tasks_measured == 70);
  CHECK(n->remeasured_tasks == 2);
  // A run that took readings but lists none (a file from before they were listed) still drops the record.
  kex::RunDoc old = with_readings({18.9}, 40, 0);
  old.context.sentinel_readings.clear();
  CHECK_FALSE(run_noise(merge_results({{"a.json", {a}}, {"old.json", {old}}}, &w)[0].context).has_value());
}

TEST_CASE("merge of two machines keeps each run and splits back") {
  synth::Options ob;
  ob.host = "beta";
  ob.cpu = "Synthetic CPU B";
  ob.time_scale = 1.3;
  const kex::RunDoc a = synth::run(), b = synth::run(ob);
  // machine B arrives as two shards
  synth::Options b0 = ob, b1 = ob;
  b0.shard_count = b1.shard_count = 2;
  b1.shard_index = 1;
  std::vector<std::string> w;
  auto m = merge_results({{"a.json", {a}}, {"b0.json", {synth::run(b0)}}, {"b1.json", {synth::run(b1)}}}, &w);
  CHECK(w.empty());
  const json j = kex::to_json(m);
  REQUIRE(j["context"]["machines"].size() == 2);
  CHECK(j["benchmarks"].size() == a.results.size() + b.results.size());
  // the multi-machine document reads back as the two runs
  auto runs = kex::docs_from_json(j, "m.json");
  REQUIRE(runs.size() == 2);
  CHECK(results_by_name(runs[0]) == results_by_name(a));
  CHECK(results_by_name(runs[1]) == results_by_name(b));
  CHECK(runs[1].context.machine.cpu_model == "Synthetic CPU B");
  // merging the merged file again with nothing new gives the same runs
  auto again = merge_results({{"m.json", runs}}, &w);
  CHECK(results_by_name(again[1]) == results_by_name(b));
  CHECK(w.empty());
  // The merged file (two machines of one config) with a third machine of that config:
  // one set of configs in both files, so no "different configs" warning.
  synth::Options oc;
  oc.host = "gamma";
  oc.cpu = "Synthetic CPU C";
  kex::RunDoc c = synth::run(oc);
  for (kex::RunDoc* r : {&runs[0], &runs[1], &c}) r->context.configs = {{"c.json", nlohmann::ordered_json{{"sizes", {1}}}}};
  merge_results({{"m.json", runs}, {"c.json", {c}}}, &w);
  CHECK(w.empty());
  // 1 and 1.0 are one JSON value: the same config, as pooling also takes it.
  c.context.configs = {{"c.json", nlohmann::ordered_json{{"sizes", {1.0}}}}};
  merge_results({{"m.json", runs}, {"c.json", {c}}}, &w);
  CHECK(w.empty());
  // A third machine run from another config: said once, naming both files.
  c.context.configs = {{"d.json", nlohmann::ordered_json{{"sizes", {2}}}}};
  merge_results({{"m.json", runs}, {"c.json", {c}}}, &w);
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "m.json and c.json were run from different configs");

  std::string t = machine_table(m, "^memcpy$");
  CHECK(t.find("M1  Synthetic CPU A") != std::string::npos);
  CHECK(t.find("M2  Synthetic CPU B") != std::string::npos);
  // memcpy: B's times are 1.3x A's at every size, so B's GB/s is A's / 1.3
  CHECK(t.find(" 0.769\n") != std::string::npos);
  CHECK(t.find("rep_movsb") == std::string::npos);
}

TEST_CASE("kex merge: writes the merged file - prints the table and crossovers - refuses to overwrite") {
  TmpDir d;
  for (int i = 0; i < 3; ++i) spit(d / ("s" + std::to_string(i) + ".json"), kex::to_json(shard(i, 3)).dump());
  std::string k = KEX_BINARY;
  std::string files = d / "s0.json" + " " + d / "s1.json" + " " + d / "s2.json";
  REQUIRE(run_sh(k + " merge " + files + " -o " + d / "m.json" + " >" + d / "out.txt") == 0);
  CHECK(results_by_name(load_results(d / "m.json").at(0)) == results_by_name(synth::run()));
  std::string out = slurp(d / "out.txt");
  CHECK(out.find("GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=67108863") != std::string::npos);
  CHECK(run_sh(k + " merge " + files + " -o " + d / "m.json" + " >/dev/null 2>&1") == 2);
  CHECK(run_sh(k + " merge " + files + " -o " + d / "m.json" + " --force -q") == 0);
  // stdout carries the table: -o - is refused, and no file named "-" appears.
  CHECK(run_sh("cd " + d.path + " && " + k + " merge " + files + " -o - >/dev/null 2>" + d / "err") == 2);
  CHECK(slurp(d / "err") == "kex: -o: '-': merge writes a file (stdout carries its table); give a file name\n");
  CHECK_FALSE(std::filesystem::exists(d / "-"));
}

TEST_CASE("examples/slurm-array.sh is valid bash and derives the shard from SLURM's variables") {
  std::string script = std::string(KEX_SOURCE_DIR) + "/examples/slurm-array.sh";
  CHECK(run_sh("bash -n " + script) == 0);
  TmpDir d;
  // A stand-in kex that prints its arguments: task 12 of an array 10-13 is shard 2/4.
  spit(d / "kex", "#!/bin/sh\necho \"$@\"\n");
  run_sh("chmod +x " + d / "kex");
  CHECK(run_sh("cd " + d.path + " && SLURM_ARRAY_TASK_ID=12 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=4 "
               "SLURM_ARRAY_JOB_ID=99 KEX=" + d / "kex" + " bash " + script + " >" + d / "out") == 0);
  CHECK(slurp(d / "out") == "run --shard 2/4 -o results/99/shard-2-of-4.json\n");
}

TEST_CASE("golden: kex merge's document of three shards, of two runs of one config, of two machines" *
          doctest::test_suite("golden")) {
  const kex::RunDoc run = golden::run();
  const auto merged = [](const std::vector<MergeInput>& in) {
    std::vector<std::string> w;
    const auto m = merge_results(in, &w);
    CHECK(w.empty());
    return m;
  };
  // The shards of the fixed run, each with its own sentinel readings, given in reverse order.
  std::vector<kex::RunDoc> parts = golden::shards(run, 3);
  for (size_t i = 0; i < parts.size(); ++i)
    parts[i] = golden::with_readings(parts[i], {100.0 + double(i), 101}, {400, 404.0 + double(i)}, {false, i == 1}, 8,
                                     i == 1 ? 2 : 0);
  const auto shards = merged({{"shard-2.json", {parts[2]}}, {"shard-1.json", {parts[1]}}, {"shard-0.json", {parts[0]}}});
  CHECK(golden::check("merge-shards.json", kex::to_json(shards).dump(1) + "\n") == "");
  // Two runs of one config on one machine, pooled as repetitions: the second
  // (golden::contender) lacks a point and measured one the first could not; their
  // sentinel readings give the merged noise.
  kex::RunDoc first = golden::with_readings(run, {100, 101, 99}, {400, 410, 395}, {false, false, false}, 16, 0);
  kex::RunDoc second = golden::with_readings(golden::contender(run), {100, 130, 102}, {402, 600, 398},
                                             {false, true, false}, 24, 8);
  first.context.run_id = "0000000000000a01";
  second.context.run_id = "0000000000000a02";
  CHECK(golden::check("merge-pooled.json", kex::to_json(merged({{"a.json", {first}}, {"b.json", {second}}})).dump(1) +
                                               "\n") == "");
  // Two machines: the multi-machine document, and the table kex merge prints.
  kex::RunDoc other = golden::contender(run);
  other.context.machine.cpu_model = "Other CPU";
  other.context.machine.l2_bytes = 1 << 20;
  const auto machines = merged({{"golden.json", {run}}, {"other.json", {other}}});
  REQUIRE(machines.size() == 2);
  CHECK(golden::check("merge-machines.json", kex::to_json(machines).dump(1) + "\n") == "");
  CHECK(golden::check("merge-machines.txt", machine_table(machines)) == "");
}

TEST_CASE("merged runs keep their rounds apart, and runs whose workers ran elsewhere are not merged") {
  kex::RunDoc a = synth::run(), b = synth::run();
  b.context.date = "2025-01-02T00:00:00Z";  // another run of the same configs
  for (kex::RunDoc* d : {&a, &b})
    for (kex::Result& r : d->results)
      for (size_t k = 0; k < r.reps.size(); ++k) r.reps[k].round = k + 1;  // each run numbers its rounds from 1
  uint64_t last_a = 0;
  for (const kex::Result& r : a.results)
    for (const kex::Repetition& rep : r.reps) last_a = std::max(last_a, rep.round);
  std::vector<std::string> w;
  const auto m = merge_results({{"a.json", {a}}, {"b.json", {b}}}, &w);  // pooled: the same configs
  REQUIRE(m.size() == 1);
  const kex::Result& r = m[0].results.at(0);
  REQUIRE(r.reps.size() == 2 * a.results[0].reps.size());
  std::set<uint64_t> rounds;
  for (const kex::Repetition& rep : r.reps) rounds.insert(rep.round);
  CHECK(rounds.size() == r.reps.size());  // no round of a paired with one of b
  CHECK(*rounds.rbegin() == last_a + b.results[0].reps.size());
  // Workers placed on other CPUs: refused, naming both files.
  a.context.protocol.emplace();
  b.context.protocol.emplace();
  a.context.protocol->threads = {{1, 1, 0, 0}, {0, 0, 0, 0}};
  b.context.protocol->threads = {{0, 0, 0, 0}, {1, 1, 0, 0}};
  CHECK_THROWS_WITH_AS(merge_results({{"a.json", {a}}, {"b.json", {b}}}, &w),
                       doctest::Contains("b.json: context/protocol/threads: its workers ran on other CPUs than those of a.json"),
                       kex::InputError);
}
