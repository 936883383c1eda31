#include <doctest/doctest.h>

#include <map>

#include "src/core/error.hpp"
#include "src/results/merge.hpp"
#include "src/results/results.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;
using nlohmann::json;

static std::map<std::string, json> by_name(const json& doc) {
  std::map<std::string, json> m;
  for (const auto& e : doc["benchmarks"]) m[e["name"].get<std::string>()] = e;
  return m;
}

static json shard(int i, int n, const std::string& host = "node") {
  synth::Options o;
  o.shard_index = i;
  o.shard_count = n;
  o.host = host + std::to_string(i);  // a scheduler puts shards on different, identical nodes
  return synth::results(o);
}

TEST_CASE("merging the shards of a run gives the unsharded point set") {
  json full = synth::results();
  for (int n : {1, 2, 3, 7}) {
    std::vector<MergeInput> in;
    for (int i = n - 1; i >= 0; --i) in.push_back({"s" + std::to_string(i) + ".json", shard(i, n)});  // any order
    std::vector<std::string> warnings;
    json m = merge_results(in, &warnings);
    CHECK(warnings.empty());
    CHECK(by_name(m) == by_name(full));
    CHECK(m["benchmarks"].size() == full["benchmarks"].size());
    CHECK(m["context"]["shard"] == json({{"index", 0}, {"count", 1}}));
    CHECK(!m["context"].contains("machines"));
    if (n > 1) CHECK(m["context"]["merged_from"].size() == size_t(n));
  }
}

TEST_CASE("merge: repeated - inconsistent or missing shards") {
  std::vector<std::string> w;
  CHECK_THROWS_AS(merge_results({{"a", shard(1, 3)}, {"b", shard(1, 3)}}, &w), InputError);
  CHECK_THROWS_AS(merge_results({{"a", shard(0, 3)}, {"b", shard(1, 2)}}, &w), InputError);
  CHECK_THROWS_AS(merge_results({{"a", synth::results()}, {"b", synth::results()}}, &w), InputError);
  w.clear();
  json m = merge_results({{"a", shard(0, 3)}, {"c", shard(2, 3)}}, &w);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("shard(s) 1 of 3 missing") != std::string::npos);
  CHECK(m["context"]["shard"]["count"] == 3);
  CHECK(m["context"]["shard"]["merged_indices"] == json({0, 2}));
}

TEST_CASE("merge of two machines keeps each run and splits back") {
  synth::Options ob;
  ob.host = "beta";
  ob.cpu = "Synthetic CPU B";
  ob.time_scale = 1.3;
  json a = synth::results(), b = synth::results(ob);
  // machine B arrives as two shards
  synth::Options b0 = ob, b1 = ob;
  b0.shard_count = b1.shard_count = 2;
  b1.shard_index = 1;
  std::vector<std::string> w;
  json m = merge_results({{"a.json", a}, {"b0.json", synth::results(b0)}, {"b1.json", synth::results(b1)}}, &w);
  CHECK(w.empty());
  REQUIRE(m["context"]["machines"].size() == 2);
  CHECK(m["benchmarks"].size() == a["benchmarks"].size() + b["benchmarks"].size());
  auto runs = split_machines(m);
  REQUIRE(runs.size() == 2);
  CHECK(by_name(runs[0]) == by_name(a));
  CHECK(by_name(runs[1]) == by_name(b));
  CHECK(runs[1]["context"]["machine"]["cpu_model"] == "Synthetic CPU B");
  // merging the merged file again with nothing new gives the same runs
  json again = merge_results({{"m.json", m}}, &w);
  CHECK(by_name(split_machines(again)[1]) == by_name(b));

  std::string t = machine_table(m, "^memcpy$");
  CHECK(t.find("M1  Synthetic CPU A") != std::string::npos);
  CHECK(t.find("M2  Synthetic CPU B") != std::string::npos);
  // memcpy: B's times are 1.3x A's at every size, so B's GB/s is A's / 1.3
  CHECK(t.find(" 0.769\n") != std::string::npos);
  CHECK(t.find("rep_movsb") == std::string::npos);
}

TEST_CASE("kex merge: writes the merged file - prints the table and crossovers - refuses to overwrite") {
  TmpDir d;
  for (int i = 0; i < 3; ++i) spit(d / ("s" + std::to_string(i) + ".json"), shard(i, 3).dump());
  std::string k = KEX_BINARY;
  std::string files = d / "s0.json" + " " + d / "s1.json" + " " + d / "s2.json";
  REQUIRE(run_sh(k + " merge " + files + " -o " + d / "m.json" + " >" + d / "out.txt") == 0);
  CHECK(by_name(load_results(d / "m.json")) == by_name(synth::results()));
  std::string out = slurp(d / "out.txt");
  CHECK(out.find("GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=67108864") != std::string::npos);
  CHECK(run_sh(k + " merge " + files + " -o " + d / "m.json" + " >/dev/null 2>&1") == 2);
  CHECK(run_sh(k + " merge " + files + " -o " + d / "m.json" + " --force -q") == 0);
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
