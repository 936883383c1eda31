// `kex tune --stream` (issue 51): the race on one stream of calls picks one kernel for the
// workload; kex emit writes it as a memcpy that, loaded back with --load, verifies and
// races on the same stream; its one-line errors. Measures: the `tune` suite holds the
// measuring-cpu lock.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/schema.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

// Kernels every x86-64 CPU runs (no small:mask): the race must hold with and without AVX-512.
// The stream's default 65,536 calls a pass: at a few thousand the branch predictor learns the
// sizes, and libc's compare chain wins on a pass it has memorized.
const char* kStreamSpace = R"({"kernels": [
  {"op": "copy", "regs": ["gpr", "sse"], "edges": "overlap", "small": ["bytes", "overlap", "rep", "table"]}]})";

}  // namespace

TEST_CASE("kex tune --stream races one stream, and its kernel, emitted and loaded back, verifies and races there" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kStreamSpace;
  const auto r = shell_stdout(kKex + " tune -q " + d + "/space.json --stream Memcpy_3 --footprint L1 --budget 20s " +
                              "--rounds 6 --first-rounds 3 -o " + d + "/t.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find("kex tune: copy on ") == 0);
  CHECK(r.text.find(": stream Memcpy_3 (footprint L1), ") != std::string::npos);
  CHECK(r.text.find("\nstream     dispatch ") != std::string::npos);
  CHECK(r.text.find("\n  every size     ") != std::string::npos);
  CHECK(r.text.find("libc tunables: not measured (a stream's race: one kernel for every size") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/t.json"));
  const auto& t = doc["tune"];
  CHECK(t["stream"] == "Memcpy_3");
  CHECK(t["footprint"] == "L1");
  REQUIRE(t["verdicts"].size() == 1);
  REQUIRE(t["dispatch"].size() == 1);
  const std::string chosen = t["dispatch"][0]["kernel"];
  CHECK(!t["dispatch"][0].contains("max_bytes"));
  // The candidates: the space's eight specs; the verdict is the stream point's group.
  std::set<std::string> candidates, stream_sizes;
  for (const auto& e : doc["benchmarks"]) {
    const std::string k = e["kernel"];
    if (k.rfind("copy/", 0) == 0) candidates.insert(k);
    if (e["params"].contains("stream")) {
      CHECK(e["params"]["stream"] == "Memcpy_3");
      const std::string name = e["name"];  // KERNEL/PASS-BYTES/stream:Memcpy_3/...
      const size_t at = name.find("/stream:");
      stream_sizes.insert(name.substr(name.rfind('/', at - 1) + 1, at - name.rfind('/', at - 1) - 1));
    }
  }
  CHECK(candidates.size() == 8);
  // One of them, or the reference when it beats them all (rep movsb with FSRM, memcpy).
  CHECK((candidates.count(chosen) == 1 || chosen == "rep_movsb" || chosen == "memcpy"));
  REQUIRE(stream_sizes.size() == 1);
  CHECK(std::to_string(t["verdicts"][0]["size"].get<uint64_t>()) == *stream_sizes.begin());
  CHECK(t["verdicts"][0]["dispatched"] == chosen);
  CHECK(t["verdicts"][0]["ties"][0] == chosen);
  CHECK(schema_verdicts({d + "/t.json"}, std::string(KEX_SOURCE_DIR) + "/configs/schema/results.schema.json") ==
        std::vector<std::string>{"valid"});
  // Emitted as GNU as and raced back on the stream: it verifies (an ok status) beside memcpy.
  const auto e = shell(kKex + " emit --format gas --tune " + d + "/t.json -o " + d + "/tuned.s");
  REQUIRE_MESSAGE(e.status == 0, e.text);
  const auto back = shell(kKex + " run -q --load tuned=" + d + "/tuned.s:kex_memcpy asm/tuned memcpy --stream Memcpy_3 " +
                          "--footprint L1 --repetitions 3 --no-plot --no-report -o " + d + "/back.json");
  REQUIRE_MESSAGE(back.status == 0, back.text);
  const auto raced_back = nlohmann::json::parse(slurp(d + "/back.json"));  // kept: the loop walks its entries
  size_t raced = 0;
  for (const auto& x : raced_back["benchmarks"])
    if (x["params"].contains("stream") && x["kernel"] == "asm/tuned") {
      CHECK(!x.contains("status"));  // measured: a failed verification or skip would say so
      CHECK(x["reps"].size() == 3);
      ++raced;
    }
  CHECK(raced == 1);
}

TEST_CASE("kex tune --stream: each stream once, weights for a mix, not with --sizes, --footprint only with a stream, exit 2 and one line" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  struct Case {
    std::string args, want;
  };
  for (const Case& c : std::vector<Case>{
           {"--stream Memcpy_3,Memcpy_3", "--stream: 'Memcpy_3' given twice"},
           {"--stream Memcpy_3 --stream-weights 2", "--stream-weights: '2': weights a mix of streams: give --stream A,B,... too"},
           {"--stream Memcpy_3,Memcpy_4 --stream-weights 1", "--stream-weights: 1 weights for 2 streams: give one weight per stream"},
           {"--stream Memcpy_3,Memcpy_4 --stream-weights 1,x", "--stream-weights: 'x': a weight is a decimal number above 0"},
           {"--stream Memcpy_3,Memcpy_4 --stream-weights 1,0", "--stream-weights: '0': a weight is a decimal number above 0"},
           {"--stream Memcpy_3,Memcpy_4 --stream-weights 1,-1e3", "--stream-weights: '-1e3': a weight is a decimal number"},
           {"--stream Memcpy_3,Memset_Fleet", "--stream: 'Memset_Fleet': its calls are memset's: kex tune --op copy races copy kernels (give --op clear"},
           {"--stream Memcpy_3 --sizes 4KiB", "--sizes: kex tune races a stream or sizes, not both (--stream is given)"},
           {"--footprint L1", "--footprint: the bytes a stream's calls walk: give --stream NAME too"},
           {"--stream Memcpy_3 --footprint L1,L2", "--footprint: 'L1,L2': kex tune races one footprint: give one"},
           {"--stream NoSuchStream", "NoSuchStream"},
       }) {
    CAPTURE(c.args);
    const auto r = shell(kKex + " tune --budget 5s -o " + d + "/t.json " + c.args);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.text.find(c.want) != std::string::npos, r.text);
    CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1);
  }
}

TEST_CASE("kex tune --stream A,B races their mix: one kernel by the weighted time per call, and a row per stream" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kStreamSpace;
  const auto r = shell_stdout(kKex + " tune -q " + d + "/space.json --stream Memcpy_3,Memcpy_4 --stream-weights 3,1 " +
                              "--footprint L1 --budget 15s --rounds 6 --first-rounds 3 -o " + d + "/t.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find(": stream Memcpy_3,Memcpy_4 (footprint L1), ") != std::string::npos);
  CHECK(r.text.find("\non each stream of the mix (the weighted time per call decides") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/t.json"));
  const auto& t = doc["tune"];
  CHECK(t["stream"] == "Memcpy_3,Memcpy_4");
  REQUIRE(t["verdicts"].size() == 1);
  REQUIRE(t["dispatch"].size() == 1);
  const std::string chosen = t["dispatch"][0]["kernel"];
  REQUIRE(t["streams"].size() == 2);
  CHECK(t["streams"][0]["stream"] == "Memcpy_3");
  CHECK(t["streams"][1]["stream"] == "Memcpy_4");
  CHECK(t["streams"][0]["weight"].get<double>() == doctest::Approx(0.75));
  CHECK(t["streams"][1]["weight"].get<double>() == doctest::Approx(0.25));
  // Each stream's row: the chosen kernel's time per call there, as the results file has it,
  // and its ratios in the rounds the race gave the mix.
  const size_t rounds = t["verdicts"][0]["rounds"];
  // Every round of the mix pairs the same window on each stream: the choice's ratios use them all.
  CHECK(t["verdicts"][0]["vs_libc"]["rounds"].get<size_t>() == rounds);
  for (const auto& s : t["streams"]) {
    CAPTURE(s.dump());
    CHECK(s["vs_libc"]["rounds"].get<size_t>() == rounds);
    CHECK(s["vs_leader"]["rounds"].get<size_t>() == rounds);
    size_t found = 0;
    for (const auto& e : doc["benchmarks"])
      if (e["kernel"] == chosen && e["params"].value("stream", "") == s["stream"]) {
        const double per_call = e["real_time"].get<double>() / e["params"]["stream_calls"].get<double>();
        CHECK(s["ns_per_call"].get<double>() == doctest::Approx(per_call).epsilon(0.01));
        ++found;
      }
    CHECK(found == 1);
  }
  // The stages raced the stream points alone; the fixed sizes beside the streams were measured
  // once, at the end, for the choice and the reference only.
  std::set<std::string> at_fixed_sizes;
  for (const auto& e : doc["benchmarks"])
    if (!e["params"].contains("stream")) at_fixed_sizes.insert(e["kernel"].get<std::string>());
  CHECK(at_fixed_sizes == std::set<std::string>{"memcpy", "rep_movsb", chosen});
  const std::vector<std::string> valid =
      schema_verdicts({d + "/t.json"}, std::string(KEX_SOURCE_DIR) + "/configs/schema/results.schema.json");
  CHECK_MESSAGE(valid == std::vector<std::string>{"valid"}, valid.front());
  const auto rep = shell(kKex + " report " + d + "/t.json --no-figures -o " + d + "/r.html");
  REQUIRE_MESSAGE(rep.status == 0, rep.text);
  const std::string md = slurp(d + "/r.html");
  CHECK(md.find("A memcpy for the mix of streams Memcpy_3,Memcpy_4") != std::string::npos);
  CHECK(md.find("On stream Memcpy_3 (weight 0.75 of the mix)") != std::string::npos);
  CHECK(md.find("On stream Memcpy_4 (weight 0.25 of the mix)") != std::string::npos);
}
