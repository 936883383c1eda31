// The read op end to end: a config of reads runs, verifies and is timed like copies and
// clears (entries, schema, the summary's block without baselines); kex ceilings measures
// the ceilings per level into a results file whose context holds them.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

std::string schema_check(const std::string& file) {
  return "python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
         "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " +
         file + " " + KEX_SOURCE_DIR + "/configs/schema/results.schema.json";
}

}  // namespace

TEST_CASE("kex run: a few read kernels verify, are timed and summarised" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/read.json") << R"({"sizes": ["1000", "64KiB"], "kernels": [
    {"op": "read", "regs": ["gpr", "sse", "avx"], "direction": ["forward", "backward"]},
    {"op": "copy", "regs": "sse"}], "max_time_per_point": 0.01})";
  const auto r = shell(kKex + " run -q " + d + "/read.json -o " + d + "/out.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const auto doc = nlohmann::json::parse(slurp(d + "/out.json"));
  std::set<std::string> measured;
  for (const auto& e : doc["benchmarks"])
    if (e.contains("stats") && e["params"]["op"] == "read") {
      measured.insert(e["name"].get<std::string>());
      CHECK(e["stats"]["gbps"].get<double>() > 0);
    }
  for (const char* n : {"read/gpr/unroll:64/scratch:4/fwd/1000", "read/sse/unroll:64/scratch:4/bwd/65536",
                        "read/avx/unroll:128/scratch:4/fwd/65536"})
    CHECK_MESSAGE(measured.count(n) == 1, n);
  const bool avx = r.text.find("lacks avx") == std::string::npos;
  CHECK(measured.size() == (avx ? 12u : 8u));
  CHECK(shell(schema_check(d + "/out.json")).text.find("valid") == 0);
  // Reads have no libc or rep baseline: memset joins the copies' memcpy only if a clear is there.
  for (const auto& e : doc["benchmarks"]) CHECK(e["name"].get<std::string>().rfind("memset", 0) != 0);
  const auto sum = shell_stdout(kKex + " summary " + d + "/out.json");
  CHECK(sum.text.find("read (warm)") != std::string::npos);
}

TEST_CASE("kex run: a read the class cannot do is refused with the reason" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const auto r = shell(kKex + " run -q read/x87 --sizes 4KiB -o " + d + "/x.json");
  CHECK(r.status == 2);
  CHECK(r.text.find("the x87 class has no read form") != std::string::npos);
}

TEST_CASE("kex ceilings: a level per cache and DRAM, in the results' context" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const auto r = shell_stdout(kKex + " ceilings -q --repetitions 3 -o " + d + "/c.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find("one core's ceilings (GB/s") != std::string::npos);
  CHECK(r.text.find("L1d: ") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/c.json"));
  const auto& c = doc["context"]["ceilings"];
  CHECK(c["rounds"] == 3);
  REQUIRE(c["levels"].size() >= 2);
  CHECK(c["levels"][0]["level"] == "L1d");
  CHECK(c["levels"].back()["level"] == "DRAM");
  for (const auto& l : c["levels"]) {
    CHECK(l["read_gbps"].get<double>() > 0);
    CHECK(l["write_gbps"].get<double>() > 0);
    CHECK(l["nt_write_gbps"].get<double>() > 0);
  }
  CHECK(c["l1d_load_bytes_per_cycle"].get<double>() > 0);
  // Every cache's size says where it came from; a CPU whose LLC is not believed (the Zen 5 VM
  // reports its host's 508 MiB L3 for 2 CPUs) has the level above the L2 measured, and says so.
  for (const auto& l : c["levels"]) CHECK(l.contains("size_from") == (l["cache_bytes"] != 0));
  if (c.contains("knee")) {
    CHECK(r.text.find("; measured instead: one read probe (") != std::string::npos);
    CHECK(c["knee"]["points"].size() >= 2);
    for (const auto& l : c["levels"])
      if (l.value("size_from", "") == "measured") CHECK(l["level"] == "LLC");
  }
  CHECK(shell(schema_check(d + "/c.json")).text.find("valid") == 0);
  const auto sum = shell_stdout(kKex + " summary " + d + "/c.json");
  CHECK(sum.text.find("one core's ceilings") != std::string::npos);
}

TEST_CASE("kex explain: a read explained, then where it stands against the ceilings measured after the race" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string out = d + "/e.json";
  const auto r = shell_stdout(kKex + " explain -q read/sse --sizes 4KiB --repetitions 3 -o " + out + " 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const auto doc = nlohmann::json::parse(slurp(out));
  REQUIRE(doc["context"].contains("ceilings"));
  CHECK(doc["context"]["explain"]["points"][0]["kernel"] == "read/sse/unroll:64/scratch:4/fwd");
  std::set<std::string> names;
  for (const auto& e : doc["benchmarks"]) names.insert(e["name"].get<std::string>());
  CHECK(names.count("read/sse/unroll:64/scratch:4/bwd/4096") == 1);  // a neighbour
  CHECK(names.count("memset/4096") == 0);                             // no baseline for reads
  const auto sum = shell_stdout(kKex + " summary " + out);
  CHECK(sum.text.find("  where: at 4 KiB this read moves ") != std::string::npos);
  CHECK(sum.text.find("bytes per core cycle) from L1d: ") != std::string::npos);
  CHECK(sum.text.find(" of one core's read bandwidth here") != std::string::npos);
  // Without the probe: no ceilings, no line.
  const auto bare = shell_stdout(kKex + " explain -q read/sse --sizes 4KiB --repetitions 3 --no-ceilings -o " + d +
                                 "/b.json 2>/dev/null");
  REQUIRE(bare.status == 0);
  CHECK(!nlohmann::json::parse(slurp(d + "/b.json"))["context"].contains("ceilings"));
  const auto bare_sum = shell_stdout(kKex + " summary " + d + "/b.json");
  CHECK(bare_sum.text.find("why read/sse/unroll:64/scratch:4/fwd at read 4096") != std::string::npos);
  CHECK(bare_sum.text.find("where:") == std::string::npos);
}
