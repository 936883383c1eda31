// Streams on the command line (issue 50): `kex run --stream` races competitors on calls drawn
// from a distribution; the results carry the stream's coordinates and facts and validate;
// a stream of one size ranks as that fixed size does; a competitor wrong at a size of the
// stream is refused before timing; a hostile distribution file and a wrong op are refused;
// a killed stream run resumes.
#include <doctest/doctest.h>

#include <signal.h>

#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/schema.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// The entries of a results file by point name: the stream points', or (`fixed`) every one.
std::map<std::string, nlohmann::json> stream_entries(const std::string& path, bool fixed = false) {
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  std::map<std::string, nlohmann::json> out;
  for (const auto& e : doc["benchmarks"])
    if (fixed || e["params"].contains("stream")) out[e["name"].get<std::string>()] = e;
  return out;
}

}  // namespace

TEST_CASE("kex run --stream: every competitor timed on one stream, its coordinates and facts in the results" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const ShellOut out = shell(kKex + " run memcpy rep_movsb copy/sse/unroll:64 --stream Memcpy_Fleet --footprint 64KiB " +
                             "--repetitions 3 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto doc = nlohmann::json::parse(slurp(d / "r.json"));
  REQUIRE(doc["context"]["streams"].size() == 1);
  const auto& s = doc["context"]["streams"][0];
  CHECK(s["name"] == "Memcpy_Fleet");
  CHECK(s["footprint"] == 65536);
  CHECK(s["footprint_asked"] == "65536");
  CHECK(s["calls"] == 65536);
  CHECK(s["p50"] == 10);
  CHECK(s["capped_calls"].get<uint64_t>() > 0);  // Memcpy_Fleet has calls above 32 KiB
  // The fixed sizes the prediction weighs: the same competitors at each, in the same run.
  const auto& weights = s["fixed_weights"];
  REQUIRE(weights.size() > 5);
  double shares = 0;
  for (const auto& w : weights) shares += w["share"].get<double>();
  CHECK(shares == doctest::Approx(1));
  CHECK(doc["benchmarks"].size() == 3 + 3 * weights.size());
  for (const auto& w : weights)
    CHECK(stream_entries(d / "r.json", true).count("memcpy/" + std::to_string(w["size"].get<uint64_t>())) == 1);
  const auto streams = stream_entries(d / "r.json");
  REQUIRE(streams.size() == 3);
  for (const auto& [name, e] : streams) {
    CHECK(e["params"]["stream"] == "Memcpy_Fleet");
    CHECK(e["params"]["footprint"] == 65536);
    CHECK(e["size"] == s["bytes"]);  // an operation is one pass
    CHECK(e["name"].get<std::string>().find("/stream:Memcpy_Fleet/footprint:65536") != std::string::npos);
    CHECK(e["stats"]["harness_ns"].get<double>() > 0);
  }
  CHECK(schema_verdicts({d / "r.json"}, std::string(KEX_SOURCE_DIR) + "/configs/schema/results.schema.json") ==
        std::vector<std::string>{"valid"});
  CHECK(out.text.find("copy on stream Memcpy_Fleet (64 KiB): ") != std::string::npos);
  CHECK(out.text.find("ns per call") != std::string::npos);
  // The summary of the file says the same (reading it draws nothing).
  const ShellOut sum = shell(kKex + " summary " + (d / "r.json"));
  CHECK(sum.text.find("copy on stream Memcpy_Fleet (footprint 64 KiB, 65536 calls a pass, seed 1; sizes: mean 135 B, "
                      "p50 10 B, p90 75 B, p99 1.7 KiB") != std::string::npos);
  CHECK(sum.text.find("  fixed sizes predict ") != std::string::npos);
  // CSV: a stream point's coordinates in their columns (stream, footprint, seed, calls).
  REQUIRE(shell(kKex + " export " + (d / "r.json") + " --format csv -o " + (d / "r.csv")).status == 0);
  const std::string csv = slurp(d / "r.csv");
  CHECK(csv.find(",harness,stream,footprint,stream_seed,stream_calls,") != std::string::npos);
  CHECK(csv.find(",kex,Memcpy_Fleet,65536,1,65536,") != std::string::npos);
}

TEST_CASE("kex run --stream: a stream of one size ranks the competitors as that fixed size does" * doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "one.csv", "size,count\n1024,1\n");
  const ShellOut out = shell(kKex + " run rep_movsb copy/gpr/unroll:8/scratch:1 --stream " + (d / "one.csv") +
                             " --sizes 1024 --footprint 256KiB --repetitions 5 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto e = stream_entries(d / "r.json", true);
  const double rep_fixed = e.at("rep_movsb/1024")["real_time"].get<double>();
  const double gpr_fixed = e.at("copy/gpr/unroll:8/scratch:1/t/fwd/1024")["real_time"].get<double>();
  const double rep_stream = e.at("rep_movsb/67108864/stream:one/footprint:262144")["real_time"].get<double>();
  const double gpr_stream = e.at("copy/gpr/unroll:8/scratch:1/t/fwd/67108864/stream:one/footprint:262144")["real_time"].get<double>();
  CHECK((rep_fixed < gpr_fixed) == (rep_stream < gpr_stream));
}

TEST_CASE("kex run --stream: a competitor wrong at a size the stream calls is refused before timing" *
          doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "few.csv", "size,count\n0,1\n13,1\n64,1\n");
  const std::string bad = build_so(d, "bad", "void *bad(void *d, const void *s, unsigned long n) {\n"
                                             "  char *a = d; const char *b = s;\n"
                                             "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n"
                                             "  if (n == 13) a[12] ^= 1;\n  return d;\n}\n");
  const ShellOut out = shell(kKex + " run memcpy --load bad=" + bad + ":bad --stream " + (d / "few.csv") +
                             " --repetitions 2 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  for (const auto& [name, e] : stream_entries(d / "r.json")) {
    if (name.rfind("lib/bad/", 0) != 0) continue;
    CHECK(e["error_occurred"] == true);
    CHECK(e["error_message"].get<std::string>().find("size 13") != std::string::npos);
    CHECK(!e.contains("reps"));
  }
}

TEST_CASE("kex run --stream: a hostile distribution, an unknown name and the wrong op are one line or a skip" *
          doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "neg.csv", "1:0.5,2:-0.5\n");
  ShellOut out = shell(kKex + " run memcpy --stream " + (d / "neg.csv") + " -o " + (d / "r.json"));
  CHECK(out.status == 2);
  CHECK(out.text == "kex: " + (d / "neg.csv") + ":1: probability '-0.5': expected a finite number >= 0\n");
  out = shell(kKex + " run memcpy --stream Memcpy_99 -o " + (d / "r.json"));
  CHECK(out.status == 2);
  CHECK(out.text.find("'Memcpy_99': no such stream (see `kex list streams`") != std::string::npos);
  CHECK(!std::filesystem::exists(d / "r.json"));
  out = shell(kKex + " run memcpy --stream /dev/zero -o " + (d / "r.json"));
  CHECK(out.status == 2);
  CHECK(out.text.find("not a regular file") != std::string::npos);
  out = shell(kKex + " run memset --stream Memcpy_Fleet --repetitions 2 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto e = stream_entries(d / "r.json");
  REQUIRE(e.size() == 1);
  CHECK(e.begin()->second["skip_message"] == "Memcpy_Fleet's calls are memcpy's: a clear does not race on them");
}

TEST_CASE("kex run --stream killed with SIGKILL resumes from its journal to the same stream" * doctest::test_suite("cli")) {
  TmpDir d;
  spit(d / "c.json", R"({"streams": "Memcpy_Fleet", "footprint": [65536, 131072],
    "kernels": [{"op": "copy", "regs": ["gpr", "sse", "avx"], "unroll": [64, 128, 256]}], "baselines": ["memcpy"]})");
  {
    // 5 repetitions of 20 points, killed after 20: the resume measures the other 80 (at 20
    // repetitions it measured 370, 35 s of the suite at load 8; what is checked is the same).
    KexChild c({"run", d / "c.json", "-o", d / "out.json", "--no-sentinel", "--repetitions", "5"}, d / "log1");
    REQUIRE_MESSAGE(wait_for_reps(d / "out.json.journal", 20), slurp(d / "log1"));
    kill(-c.pid, SIGKILL);
    CHECK(c.wait() == 128 + SIGKILL);
  }
  REQUIRE(!std::filesystem::exists(d / "out.json"));
  const ShellOut r = shell(kKex + " run -q --resume " + (d / "out.json.journal"));
  INFO(r.text);
  REQUIRE(r.status == 0);
  const auto e = stream_entries(d / "out.json");
  CHECK(e.size() == 20);  // 9 kernels and memcpy at 2 footprints
  for (const auto& [name, x] : e) {
    CHECK(name.find("/stream:Memcpy_Fleet/footprint:") != std::string::npos);
    CHECK(x["reps"].size() == 5);
  }
}

TEST_CASE("kex run --stream --threads 2: each worker makes the stream's calls on its own buffers, one team's time" *
          doctest::test_suite("cli")) {
  if (std::thread::hardware_concurrency() < 2) {
    MESSAGE("skipped: one CPU");
    return;
  }
  TmpDir d;
  spit(d / "few.csv", "size,count\n8,3\n100,1\n");
  const ShellOut out = shell(kKex + " run rep_movsb memcpy --stream " + (d / "few.csv") +
                             " --footprint 64KiB --threads 1,2 --repetitions 3 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto e = stream_entries(d / "r.json");
  REQUIRE(e.size() == 4);  // two competitors at 1 and 2 threads
  for (const char* k : {"rep_movsb", "memcpy"}) {
    const std::string base = std::string(k) + "/" + std::to_string(e.begin()->second["size"].get<uint64_t>()) +
                             "/stream:few/footprint:65536";
    REQUIRE(e.count(base) == 1);
    REQUIRE(e.count(base + "/threads:2") == 1);
    const auto& two = e.at(base + "/threads:2");
    CHECK(two["params"]["threads"] == 2);
    CHECK(two["reps"][0]["threads"].size() == 2);  // each worker's own time
    // Both workers' bytes count: a pass moves twice the one-thread point's bytes.
    const double bytes1 = e.at(base)["bytes_per_second"].get<double>() * e.at(base)["real_time"].get<double>();
    const double bytes2 = two["bytes_per_second"].get<double>() * two["real_time"].get<double>();
    CHECK(bytes2 == doctest::Approx(2 * bytes1).epsilon(0.001));
  }
  CHECK(out.text.find("2 threads, each the same calls in an order of its own") != std::string::npos);
}
