#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "src/results/export.hpp"
#include "src/results/results.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;
using nlohmann::json;

// The fields google/benchmark tools/gbench (report.py, util.py) reads from each entry:
// name (matching), run_name (filter), run_type / aggregate_name (aggregates), time_unit,
// real_time and cpu_time (is_potentially_comparable_benchmark, geomean), repetition_index,
// family_index and per_family_instance_index (sort_benchmark_results), label.
TEST_CASE("to_gbench: every entry has what compare.py reads - with consistent units") {
  const kex::RunDoc doc = synth::run();
  json g = to_gbench({doc});
  REQUIRE(g.contains("context"));
  REQUIRE(g["benchmarks"].is_array());
  size_t measured = 0;
  for (const auto& e : doc.results) measured += e.ok();
  CHECK(g["benchmarks"].size() == measured);
  for (const auto& b : g["benchmarks"]) {
    for (const char* k : {"name", "run_name", "run_type", "time_unit", "label"}) CHECK(b[k].is_string());
    for (const char* k : {"real_time", "cpu_time", "iterations", "repetitions", "repetition_index", "threads",
                          "family_index", "per_family_instance_index", "bytes_per_second"})
      CHECK(b[k].is_number());
    CHECK(b["run_type"] == "iteration");
    CHECK(b["time_unit"] == "ns");
    CHECK(b["real_time"].get<double>() > 0);
    CHECK(!b.contains("samples_ticks"));
    for (auto it = b.begin(); it != b.end(); ++it) CHECK_MESSAGE(!it->is_structured(), it.key());
  }
  // family_index is per kernel, per_family_instance_index counts sizes within it
  CHECK(g["benchmarks"][0]["family_index"] == 0);
  CHECK(g["benchmarks"][1]["family_index"] == 0);
  CHECK(g["benchmarks"][1]["per_family_instance_index"] == 1);
  // skipped/failed entries are named in the context, not in benchmarks
  REQUIRE(g["context"].contains("kex_not_measured"));
  CHECK(g["context"]["kex_not_measured"].size() == 2);
  CHECK(g["context"]["kex_not_measured"][0]["message"] == "CPU lacks avx512f");
}

TEST_CASE("to_gbench output runs through google/benchmark's compare.py (when libbenchmark-tools is installed)") {
  const std::string py = "/usr/bin/python3", cmp = "/usr/share/benchmark/compare.py";
  if (!std::filesystem::exists(cmp) || run_sh(py + " -c 'import scipy, numpy' 2>/dev/null") != 0) {
    MESSAGE("skipped: needs Debian libbenchmark-tools, python3-scipy and python3-numpy");
    return;
  }
  TmpDir d;
  synth::Options ob;
  ob.time_scale = 1.3;
  spit(d / "a.json", to_gbench({synth::run()}).dump());
  spit(d / "b.json", to_gbench({synth::run(ob)}).dump());
  REQUIRE(run_sh(py + " " + cmp + " --no-color --dump_to_json " + d / "diff.json" + " benchmarks " + d / "a.json" +
                 " " + d / "b.json" + " >" + d / "out.txt 2>&1") == 0);
  json diff = json::parse(slurp(d / "diff.json"));
  size_t n = to_gbench({synth::run()})["benchmarks"].size();
  REQUIRE(diff.size() == n + 1);  // every entry plus OVERALL_GEOMEAN
  for (const auto& row : diff) {
    REQUIRE(row["measurements"].size() == 1);
    CHECK(row["measurements"][0]["time"].get<double>() == doctest::Approx(0.3));
  }
  CHECK(diff.back()["name"] == "OVERALL_GEOMEAN");
  CHECK(diff[0]["name"] == "copy/sse/unroll:64/scratch:4/t/fwd/256");
}

namespace {
/// synth's run with 5 repetitions a point, medians spread around the point's figure.
kex::RunDoc repeated(double scale) {
  kex::RunDoc d = synth::run();
  for (auto& r : d.results) {
    if (!r.ok()) continue;
    const kex::Repetition base = r.reps.front();
    r.reps.clear();
    for (double s : {0.0, 0.01, -0.01, 0.02, -0.005}) {
      kex::Repetition x = base;
      x.per_call.median *= scale * (1 + s);
      r.reps.push_back(x);
    }
  }
  return d;
}
}  // namespace

TEST_CASE("to_gbench with repetitions: a row per repetition plus Google Benchmark's aggregates") {
  const json g = to_gbench({repeated(1)});
  size_t iterations = 0, aggregates = 0;
  std::map<std::string, int> per_name;
  for (const auto& b : g["benchmarks"]) {
    if (b["run_type"] == "iteration") {
      ++iterations;
      ++per_name[b["name"].get<std::string>()];
      CHECK(b["repetitions"] == 5);
    } else {
      ++aggregates;
      CHECK(b["run_type"] == "aggregate");
      const std::string agg = b["aggregate_name"];
      CHECK(b["name"] == b["run_name"].get<std::string>() + "_" + agg);
      CHECK(b["aggregate_unit"] == (agg == "cv" ? "percentage" : "time"));
      CHECK(!b.contains("repetition_index"));
    }
  }
  for (const auto& [n, k] : per_name) CHECK_MESSAGE(k == 5, n);
  CHECK(aggregates == 4 * per_name.size());
  CHECK(iterations == 5 * per_name.size());
}

TEST_CASE("compare.py runs its U test on kex's repetitions and gets kex's p (when libbenchmark-tools is installed)") {
  const std::string py = "/usr/bin/python3", cmp = "/usr/share/benchmark/compare.py";
  if (!std::filesystem::exists(cmp) || run_sh(py + " -c 'import scipy, numpy' 2>/dev/null") != 0) {
    MESSAGE("skipped: needs Debian libbenchmark-tools, python3-scipy and python3-numpy");
    return;
  }
  TmpDir d;
  spit(d / "a.json", to_gbench({repeated(1)}).dump());
  spit(d / "b.json", to_gbench({repeated(1.1)}).dump());
  REQUIRE(run_sh(py + " " + cmp + " --no-color --dump_to_json " + d / "diff.json" + " benchmarks " + d / "a.json" +
                 " " + d / "b.json" + " >" + d / "out.txt 2>&1") == 0);
  const json diff = json::parse(slurp(d / "diff.json"));
  size_t tested = 0;
  for (const auto& row : diff) {
    if (!row.contains("utest") || row["utest"].empty()) continue;
    ++tested;
    // 5 against 5, completely separated: scipy's exact two-sided p = 2/252.
    CHECK(row["utest"]["time_pvalue"].get<double>() == doctest::Approx(2.0 / 252));
  }
  CHECK(tested > 100);
}

TEST_CASE("compare.py's overall geomean agrees with kex when one run's sentinel flagged repetitions") {
  // B measures the same times as A, but the sentinel flagged 3 of 5 repetitions of every
  // point above 4 KiB. Dropping them gave compare.py fewer large rows on B's side, and its
  // geomean over all rows called B much faster; every row is exported, flagged ones marked.
  const kex::RunDoc a = repeated(1);
  kex::RunDoc b = repeated(1);
  size_t flagged = 0;
  for (auto& r : b.results)
    if (r.ok() && r.point.at.size > 4096)
      for (size_t k = 0; k < 3; ++k, ++flagged) r.reps[k].disturbed = true;
  REQUIRE(flagged > 0);
  const json gb = to_gbench({b});
  size_t marked = 0, rows_a = 0, rows_b = 0;
  for (const auto& x : gb["benchmarks"]) {
    marked += x.value("kex_disturbed", false);
    rows_b += x["run_type"] == "iteration";
  }
  const json ga = to_gbench({a});
  for (const auto& x : ga["benchmarks"]) rows_a += x["run_type"] == "iteration";
  CHECK(marked == flagged);
  CHECK(rows_a == rows_b);
  const std::string py = "/usr/bin/python3", cmp = "/usr/share/benchmark/compare.py";
  if (!std::filesystem::exists(cmp) || run_sh(py + " -c 'import scipy, numpy' 2>/dev/null") != 0) {
    MESSAGE("compare.py not run: needs Debian libbenchmark-tools, python3-scipy and python3-numpy");
    return;
  }
  TmpDir d;
  spit(d / "a.json", ga.dump());
  spit(d / "b.json", gb.dump());
  REQUIRE(run_sh(py + " " + cmp + " --no-color --dump_to_json " + d / "diff.json" + " benchmarks " + d / "a.json" +
                 " " + d / "b.json" + " >" + d / "out.txt 2>&1") == 0);
  const json diff = json::parse(slurp(d / "diff.json"));
  REQUIRE(diff.back()["name"] == "OVERALL_GEOMEAN");
  CHECK(diff.back()["measurements"][0]["time"].get<double>() == doctest::Approx(0).epsilon(0.001));
}

TEST_CASE("to_csv: header plus one row per entry - RFC 4180 quoting") {
  kex::RunDoc doc = synth::run();
  doc.results[0].status = {kex::StatusKind::error, "bad, \"very\" bad"};
  doc.results[0].reps.clear();
  std::string csv = to_csv({doc});
  size_t lines = 0;
  for (size_t p = 0; (p = csv.find("\r\n", p)) != std::string::npos; p += 2) ++lines;
  CHECK(lines == doc.results.size() + 1);
  CHECK(csv.rfind("name,kernel,kind,size,status,message,op,", 0) == 0);
  CHECK(csv.find(",error,\"bad, \"\"very\"\" bad\",") != std::string::npos);
  CHECK(csv.find("copy/sse/unroll:64/scratch:4/t/fwd/512,copy/sse/unroll:64/scratch:4/t/fwd,generated,512,ok,,copy,"
                 "sse,64,4,none,") != std::string::npos);
  CHECK(csv.find(",skipped,CPU lacks avx512f,") != std::string::npos);
}

TEST_CASE("to_csv: entries, repetitions and samples are separate tables that join on name and repetition") {
  kex::RunDoc doc = synth::run();
  // synth keeps no samples: three for the first measured entry, as a run keeps them all.
  auto& first = *std::find_if(doc.results.begin(), doc.results.end(), [](const auto& r) { return !r.reps.empty(); });
  first.reps[0].sample_ticks = {6400, 6272, 6528};
  const std::string entries = to_csv({doc});
  const std::string reps = to_csv({doc}, kex::CsvTable::repetitions);
  const std::string samples = to_csv({doc}, kex::CsvTable::samples);
  const std::string entry_head = entries.substr(0, entries.find("\r\n"));
  // An entry's figures over its repetitions, never one repetition's fields beside them.
  CHECK(entry_head.find(",ci_rel_halfwidth,") != std::string::npos);
  CHECK(entry_head.find("stop_reason") == std::string::npos);
  CHECK(entry_head.find("cycles_method") == std::string::npos);
  CHECK(reps.rfind("name,repetition,calls_per_sample,n,min_ticks,", 0) == 0);
  CHECK(reps.substr(0, reps.find("\r\n")).find(",stop_reason,") != std::string::npos);
  CHECK(samples.rfind("name,repetition,sample,calls_per_sample,ticks\r\n", 0) == 0);
  size_t n_reps = 0, n_samples = 0;
  for (const auto& r : doc.results) {
    n_reps += r.reps.size();
    for (const auto& rep : r.reps) n_samples += rep.sample_ticks.size();
  }
  auto records = [](const std::string& t) {
    size_t n = 0;
    for (size_t p = 0; (p = t.find("\r\n", p)) != std::string::npos; p += 2) ++n;
    return n - 1;
  };
  REQUIRE(n_reps > 0);
  CHECK(records(reps) == n_reps);
  CHECK(n_samples == 3);
  CHECK(records(samples) == n_samples);
  // Each sample as the results file holds it: entry, repetition, sample, calls, ticks.
  const std::string calls = std::to_string(first.reps[0].calls_per_sample);
  CHECK(samples.substr(samples.find("\r\n") + 2) == first.name() + ",0,0," + calls + ",6400\r\n" + first.name() +
                                                         ",0,1," + calls + ",6272\r\n" + first.name() + ",0,2," +
                                                         calls + ",6528\r\n");
  CHECK(kex::parse_csv_table("samples") == kex::CsvTable::samples);
  CHECK(!kex::parse_csv_table("rows"));
}

TEST_CASE("kex export writes csv and gbench files and refuses to overwrite") {
  TmpDir d;
  spit(d / "r.json", synth::results().dump());
  std::string k = KEX_BINARY;
  CHECK(run_sh(k + " export " + d / "r.json" + " --format gbench -o " + d / "g.json") == 0);
  CHECK(json::parse(slurp(d / "g.json")) == to_gbench({synth::run()}));
  CHECK(run_sh(k + " export " + d / "r.json" + " --format csv -o " + d / "r.csv") == 0);
  CHECK(slurp(d / "r.csv") == to_csv({synth::run()}));
  CHECK(run_sh(k + " export " + d / "r.json" + " --format csv -o " + d / "r.csv 2>/dev/null") == 2);
  CHECK(run_sh(k + " export " + d / "r.json" + " --format csv -o " + d / "r.csv --force") == 0);
  CHECK(run_sh(k + " export " + d / "r.json" + " --format xml -o " + d / "x 2>/dev/null") == 2);
  CHECK(run_sh(k + " export " + d / "r.json" + " --format csv --table repetitions -o " + d / "reps.csv") == 0);
  CHECK(slurp(d / "reps.csv") == to_csv({synth::run()}, kex::CsvTable::repetitions));
  CHECK(run_sh(k + " export " + d / "r.json" + " --format csv --table rows -o " + d / "x 2>/dev/null") == 2);
  CHECK(run_sh(k + " export " + d / "r.json" + " --format gbench --table samples -o " + d / "x 2>/dev/null") == 2);
}
