// CLI tests: run build/kex on small configs; check exit codes, files and messages.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/schema.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

std::string tmpdir() { return tmp_dir_until_exit(); }

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

const std::string src = KEX_SOURCE_DIR;
const char* kSmall = R"({"sizes": ["256", "4KiB"], "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "gpr"], "store": ["t", "nt"]},
  {"op": "copy", "regs": "avx512"}], "max_time_per_point": 0.02})";

std::string validate_cmd(const std::string& file, const std::string& schema) {
  return "python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), "
         "cls=jsonschema.Draft202012Validator); print('valid')\" " + file + " " + schema;
}

}  // namespace

TEST_CASE("kex run writes results that validate against the schema, no overwrite without --force" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/small.json", kSmall);
  auto r = shell(kKex + " run " + d + "/small.json -o " + d + "/out.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.find("fastest kernel") != std::string::npos);
  auto doc = nlohmann::json::parse(slurp(d + "/out.json"));
  size_t measured = 0, skipped = 0;
  for (const auto& e : doc["benchmarks"]) {
    if (e.contains("stats")) {
      ++measured;
      CHECK(e["real_time"].get<double>() > 0);
      CHECK(e["stats"]["gbps"].get<double>() > 0);
      // Every repetition keeps its own samples; n counts the undisturbed ones (all when none is).
      size_t samples = 0, all = 0;
      for (const auto& rep : e["reps"]) {
        all += rep["samples_ticks"].size();
        if (!rep.value("disturbed", false)) samples += rep["samples_ticks"].size();
      }
      if (samples == 0) samples = all;
      CHECK(samples == e["stats"]["n"].get<size_t>());
    }
    if (e.value("skipped", false)) ++skipped;
  }
  // 8 sse/gpr kernels + avx512 (skipped only without AVX-512) + 4 baselines, at 2 sizes
  CHECK(measured + skipped == 26);
  CHECK(doc["context"]["machine"]["tsc_hz"].get<double>() > 1e8);
  // The run's noise: in the context (counts agree with the readings) and in the summary's last line.
  const auto& noise = doc["context"]["protocol"]["noise"];
  REQUIRE(noise.is_object());
  size_t readings = 0, flagged = 0;
  for (const auto& s : doc["context"].value("sentinel_readings", nlohmann::json::array())) {
    ++readings;
    flagged += s["disturbed"].get<bool>();
  }
  CHECK(noise["readings"] == readings);
  CHECK(noise["disturbed_readings"] == flagged);
  CHECK(noise["tasks_measured"] == doc["context"]["protocol"]["tasks_measured"]);
  CHECK(noise["remeasured_tasks"] == doc["context"]["protocol"]["remeasured_tasks"]);
  if (readings) CHECK(noise["sentinel_l1"]["median_ticks_per_kib"].get<double>() > 0);
  CHECK(r.text.find("\nnoise: ") != std::string::npos);
  CHECK(r.text.find(" tasks re-measured (budget 25%: ") != std::string::npos);
  auto v = shell(validate_cmd(d + "/out.json", src + "/configs/schema/results.schema.json"));
  CHECK_MESSAGE(v.text.find("valid") == 0, v.text);

  std::string before = slurp(d + "/out.json");
  auto again = shell(kKex + " run -q " + d + "/small.json -o " + d + "/out.json");
  CHECK(again.status == 2);
  CHECK(again.text.find("exists; not overwriting it (use --force") != std::string::npos);
  CHECK(slurp(d + "/out.json") == before);
  CHECK(shell(kKex + " run -q --force " + d + "/small.json -o " + d + "/out.json").status == 0);
}

TEST_CASE("bad configs exit 2 with one line and write nothing" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/bad.json", R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unrol": 64}]})");
  auto r = shell(kKex + " run " + d + "/bad.json -o " + d + "/out.json");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + d + "/bad.json: /kernels/0/unrol: unknown key (allowed: align, block, cache, chunk, consume, "
                 "direction, edges, fill, footprint, layout, op, pf_every, prefetch, prefill, regs, rep_above, scratch, sizes, "
                 "skip_invalid, small, store, stream_calls, stream_seed, streams, threads, unroll)\n");
  CHECK_FALSE(exists(d + "/out.json"));
  auto missing = shell(kKex + " run " + d + "/nope.json -o " + d + "/out.json");
  CHECK(missing.status == 2);
  CHECK(missing.text.find("nope.json: cannot read config") != std::string::npos);
  auto shard = shell(kKex + " run --shard 3/2 -o " + d + "/out.json");
  CHECK(shard.status == 2);
  CHECK(shard.text.find("--shard: '3/2'") != std::string::npos);
  CHECK(shell(kKex + " frobnicate").status == 2);
}

TEST_CASE("every config in configs/ validates against the config schema and parses" * doctest::test_suite("cli")) {
  const std::vector<std::string> files = {src + "/configs/default.json", src + "/configs/unroll.json",
                                          src + "/configs/reference.json"};
  const std::vector<std::string> verdicts = schema_verdicts(files, src + "/configs/schema/config.schema.json");
  for (size_t i = 0; i < files.size(); ++i) CHECK_MESSAGE(verdicts[i] == "valid", files[i] << ": " << verdicts[i]);
}

TEST_CASE("kex show prints the generated code, bad names exit 2" * doctest::test_suite("cli")) {
  auto r = shell(kKex + " show copy/sse/unroll:64/scratch:4/pf:nta@256/nt/fwd");
  REQUIRE(r.status == 0);
  size_t nt = 0;
  for (size_t p = 0; (p = r.text.find("movntdq", p)) != std::string::npos; ++p) ++nt;
  CHECK(nt >= 4);
  CHECK(r.text.find("prefetchnta byte ptr [rsi + 0x100]") != std::string::npos);
  CHECK(r.text.find("sfence") != std::string::npos);
  auto bad = shell(kKex + " show copy/sse/unroll:24");
  CHECK(bad.status == 2);
  CHECK(bad.text.find("unroll 24 is not a positive multiple of the sse width") != std::string::npos);
  CHECK(shell(kKex + " --version").text.find("kex ") == 0);
}

TEST_CASE("kex show formats: hex, bin, a .s that reassembles, AT&T, bad values exit 2" * doctest::test_suite("cli")) {
  for (const char* name : {"linux/memcpy_orig", "fastc/fast_copy_page", "copy/avx/unroll:128/scratch:4/pf:nta@512/nt/bwd"}) {
    CAPTURE(name);
    auto bin = shell(kKex + " show " + name + " --format bin");
    REQUIRE(bin.status == 0);
    REQUIRE(bin.text.size() > 16);
    auto hex = shell(kKex + " show " + name + " --format hex");
    REQUIRE(hex.status == 0);
    std::string want;
    char buf[4];
    for (size_t i = 0; i < bin.text.size(); ++i) {
      snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(bin.text[i]));
      want += buf;
      if (i % 32 == 31 || i + 1 == bin.text.size()) want += "\n";
    }
    CHECK(hex.text == want);
    for (const char* syn : {"intel", "att"}) {
      CAPTURE(syn);
      auto d = tmpdir();
      auto s = shell(kKex + " show " + name + " --format s --syntax " + syn + " > " + d + "/k.s");
      REQUIRE(s.status == 0);
      std::string src = slurp(d + "/k.s");
      CHECK(src.find(std::string(syn) == "intel" ? "\t.intel_syntax noprefix\n" : "\t.att_syntax\n") != std::string::npos);
      CHECK(src.find("\n.Lkex_") != std::string::npos);  // branch targets are labels
      auto as = shell("as --64 -o " + d + "/k.o " + d + "/k.s && objcopy -O binary -j .text " + d + "/k.o " + d + "/k.bin");
      REQUIRE_MESSAGE(as.status == 0, as.text);
      CHECK(slurp(d + "/k.bin") == bin.text);
    }
  }
  auto att = shell(kKex + " show linux/copy_page_regs --syntax att");
  REQUIRE(att.status == 0);
  CHECK(att.text.find("prefetcht0 0x140(%rsi)") != std::string::npos);
  CHECK(att.text.find("movq %rax, (%rdi)") != std::string::npos);
  auto fmt = shell(kKex + " show linux/copy_page --format nope");
  CHECK(fmt.status == 2);
  CHECK(fmt.text == "kex: --format: 'nope': allowed: listing, s, hex, bin (see kex show --help)\n");
  auto syn = shell(kKex + " show linux/copy_page --syntax gas");
  CHECK(syn.status == 2);
  CHECK(syn.text == "kex: --syntax: 'gas': allowed: intel, att (see kex show --help)\n");
}

TEST_CASE("kex list presets shows the new families and the kernel with no source" * doctest::test_suite("cli")) {
  auto r = shell(kKex + " list presets");
  REQUIRE(r.status == 0);
  for (const char* id : {"linux24/fast_clear_page_k7", "linux24/fast_copy_page_k7_2.4.0", "linux/clear_page_erms",
                         "linux/memcpy_orig", "freebsd/pagezero_std", "freebsd/pagecopy_movnti"})
    CHECK_MESSAGE(r.text.find(std::string("\n  ") + id + " ") != std::string::npos, id);
  CHECK(r.text.find("linux24, linux, freebsd, all)") != std::string::npos);
  CHECK(r.text.find("\n  asami/bruce_bcopy            not available: 'Bruce's code' (family asami): Asami's post") !=
        std::string::npos);
  auto show = shell(kKex + " show \"Bruce's code\"");
  CHECK(show.status == 2);
  CHECK(show.text.find("kex: show: 'Bruce's code' (asami/bruce_bcopy) is not available: ") == 0);
  auto one = shell(kKex + " show freebsd/pagezero_movnti");
  REQUIRE(one.status == 0);
  CHECK(one.text.find("\"printed\": \"pagezero (movnti)\"") != std::string::npos);
  CHECK(one.text.find("\"aliases\": [\n    \"pagezero\"\n  ]") != std::string::npos);
  CHECK(one.text.find("movnti qword ptr [rdi + rdx + 0x18], rax") != std::string::npos);
}

TEST_CASE("a preset name several presets share is an error listing their ids, exit status 2" *
          doctest::test_suite("cli")) {
  const std::string ids = "fastc/faster_copy, hahn/faster_copy (give the id; see kex list presets)\n";
  auto run = shell(kKex + " run faster_copy --list");
  CHECK(run.status == 2);
  CHECK(run.text == "kex: preset name 'faster_copy' is ambiguous: " + ids);
  auto pre = shell(kKex + " run --preset faster_copy --list");
  CHECK(pre.status == 2);
  CHECK(pre.text.find("/presets/0: preset name 'faster_copy' is ambiguous: " + ids) != std::string::npos);
  auto show = shell(kKex + " show faster_copy");
  CHECK(show.status == 2);
  CHECK(show.text == "kex: show: preset name 'faster_copy' is ambiguous: " + ids);
  // The id, or a name only one preset has, still works.
  CHECK(shell(kKex + " show hahn/faster_copy --format hex").status == 0);
  CHECK(shell(kKex + " run --preset hahn/faster_copy --list").status == 0);
}

TEST_CASE("kex list params states the prefetch distance and interval ranges the parsers accept" *
          doctest::test_suite("cli")) {
  auto r = shell(kKex + " list params");
  REQUIRE(r.status == 0);
  CHECK(r.text.find("D bytes ahead, -1048576..1048576 (negative for\n"
                    "                backward; load: D >= 0 forward, D <= 0 backward)\n") != std::string::npos);
  CHECK(r.text.find("every:N       one prefetch per N bytes of an iteration, a multiple of 8 in 8..8192 (default 64);\n"
                    "                N at or above the unroll: one prefetch per iteration\n") != std::string::npos);
  // What it says of an interval at or above the unroll is what the skeleton emits: a 64-byte
  // iteration has 2 prefetches at every:32, 1 at every:64 and still 1 at every:8192.
  auto prefetches = [](const char* every) {
    const auto s = shell(kKex + " show copy/sse/unroll:64/scratch:4/pf:nta@256/" + every + "t/fwd");
    size_t n = 0;
    for (size_t at = s.text.find("prefetchnta"); at != std::string::npos; at = s.text.find("prefetchnta", at + 1)) ++n;
    return n;
  };
  CHECK(prefetches("every:32/") == 2);
  CHECK(prefetches("") == 1);
  CHECK(prefetches("every:8192/") == 1);
  // The bounds it states are the ones names and configs take (kex show parses a name).
  const std::string base = " show copy/sse/unroll:64/scratch:4/";
  for (const char* ok : {"pf:nta@1048576/t/fwd", "pf:nta@-1048576/t/fwd", "pf:nta@64/every:8/t/fwd",
                         "pf:nta@64/every:8192/t/fwd"})
    CHECK_MESSAGE(shell(kKex + base + ok + " --format hex").status == 0, ok);
  for (const char* bad : {"pf:nta@1048577/t/fwd", "pf:nta@-1048577/t/fwd", "pf:nta@64/every:8200/t/fwd",
                          "pf:nta@64/every:4/t/fwd", "pf:nta@64/every:12/t/fwd"}) {
    auto b = shell(kKex + base + bad + " --format hex");
    CHECK_MESSAGE(b.status == 2, bad << ": " << b.text);
  }
}

TEST_CASE("sharded runs split the points deterministically" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/small.json", kSmall);
  std::set<std::string> all, parts;
  for (int i = 0; i < 2; ++i) {
    auto r = shell(kKex + " run -q --shard " + std::to_string(i) + "/2 " + d + "/small.json -o " + d + "/s" + std::to_string(i) + ".json");
    REQUIRE(r.status == 0);
    auto doc = nlohmann::json::parse(slurp(d + "/s" + std::to_string(i) + ".json"));
    CHECK(doc["context"]["shard"]["count"] == 2);
    for (const auto& e : doc["benchmarks"]) CHECK(parts.insert(e["name"].get<std::string>()).second);
  }
  REQUIRE(shell(kKex + " run -q " + d + "/small.json -o " + d + "/all.json").status == 0);
  const auto whole = nlohmann::json::parse(slurp(d + "/all.json"));
  for (const auto& e : whole["benchmarks"]) all.insert(e["name"].get<std::string>());
  CHECK(all == parts);
}

TEST_CASE("SIGINT stops after the current point and keeps the finished points" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/long.json", R"({"sizes": [{"from": 256, "to": "1MiB", "factor": 2}], "kernels": [{"op": "copy", "regs": ["sse", "avx", "gpr"],
    "unroll": [64, 128], "scratch": [1, 2]}], "max_time_per_point": 0.2, "precision": 0.0001,
    "repetitions": 3, "protocol": {"round_sample_us": 10000}})");  // each member about 10 ms a round: the run lasts seconds
  // SIGINT once the first points are measured (the progress line says so), however loaded the machine is.
  auto r = shell("(" + kKex + " run " + d + "/long.json -o " + d + "/out.json 2>" + d + "/err & pid=$!; "
              "for i in $(seq 600); do grep -q ' tasks (' " + d + "/err 2>/dev/null && break; sleep 0.05; done; "
              "kill -INT $pid; wait $pid; echo \"status $?\"; cat " + d + "/err)");
  CHECK(r.text.find("status 130") != std::string::npos);
  CHECK(r.text.find("interrupted") != std::string::npos);
  auto doc = nlohmann::json::parse(slurp(d + "/out.json"));
  CHECK(doc["context"]["interrupted"] == true);
  CHECK(doc["benchmarks"].size() > 0);
  CHECK(doc["benchmarks"].size() < doc["context"]["points_planned"].get<size_t>());
}

TEST_CASE("presets under the kex harness and the segment table land in one results file" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/p.json", R"({"presets": ["fastc/faster_copy", "xmm_clear", "asami/unroll:64/scratch:3/every:32"], "sizes": [4096, 8192, 1000],
    "baselines": ["memcpy"], "segments": {"iterations": 20000, "mixed": false}, "max_time_per_point": 0.02})");
  auto r = shell(kKex + " run " + d + "/p.json -o " + d + "/out.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.find("copy_page function 'faster_copy'\t took") != std::string::npos);
  CHECK(r.text.find("clear_page function 'xmm_clear'\t took") != std::string::npos);
  CHECK(r.text.find("gs with data selector, entry gs=2b: ") != std::string::npos);
  auto doc = nlohmann::json::parse(slurp(d + "/out.json"));
  std::set<std::string> names;
  for (const auto& e : doc["benchmarks"]) {
    names.insert(e["name"].get<std::string>());
    if (e["kind"] == "preset") {
      CHECK(e["preset"]["confidence"].is_string());
      CHECK(e["preset"]["origin"].get<std::string>().size() > 0);
    }
  }
  // page presets only at multiples of 4096; the any-length Asami copy also at 1000 bytes
  CHECK(names.count("fastc/faster_copy/4096"));
  CHECK(names.count("fastc/faster_copy/8192"));
  CHECK_FALSE(names.count("fastc/faster_copy/1000"));
  CHECK(names.count("asami/unroll:64/scratch:3/every:32/1000"));
  CHECK(names.count("memcpy/1000"));
  CHECK(doc["context"]["segments"]["cases"].size() > 5);
  auto v = shell(validate_cmd(d + "/out.json", src + "/configs/schema/results.schema.json"));
  CHECK_MESSAGE(v.text.find("valid") == 0, v.text);
  auto bad = shell(kKex + " run --preset no_such_kernel -o " + d + "/x.json");
  CHECK(bad.status == 2);
  CHECK(bad.text.find("/presets/0: \"no_such_kernel\": unknown preset") != std::string::npos);
}

TEST_CASE("kex run --segments-seed-exact prints the segment section as the seed did" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/s.json", R"({"segments": {"iterations": 20000, "mixed": false, "modern": false}, "baselines": false})");
  auto r = shell(kKex + " run -q --segments-seed-exact " + d + "/s.json -o " + d + "/out.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.find(" CPUTIME \n   <none> with data selector: ") != std::string::npos);
  CHECK(r.text.find("\n   gs with GDT selector: ") != std::string::npos);
  CHECK(r.text.find(", entry ") == std::string::npos);
  auto plain = shell(kKex + " run " + d + "/s.json -o " + d + "/out2.json");
  REQUIRE_MESSAGE(plain.status == 0, plain.text);
  CHECK(plain.text.find("   gs with data selector, entry gs=2b: ") != std::string::npos);
}

TEST_CASE("bad inputs to the results commands and run options fail before any work, on one line" * doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/typed.json", R"({"benchmarks": [{"name": "copy/sse/64", "params": {"op": "copy"}, "time_unit": 5, "real_time": 1}]})");
  spit(d + "/named.json", R"({"benchmarks": [{"name": "x", "params": {"op": "copy"}}]})");
  spit(d + "/small.json", kSmall);
  spit(d + "/afile", "x");
  struct Case { std::string cmd, expect; };
  const Case cases[] = {
      {kKex + " compare /tmp " + d + "/typed.json", "kex: /tmp: not a regular file"},
      {kKex + " export " + d + "/typed.json --format csv -o -", "kex: " + d + "/typed.json: /benchmarks/0/time_unit: 5: expected a string"},
      {kKex + " plot " + d + "/named.json -o " + d + "/pl", "kex: " + d + "/named.json: /benchmarks/0/name: point name 'x' needs a kernel and then a size"},
      {kKex + " show ''", "kex: show: kernel name '' must start with op/regs"},
      {kKex + " run --preset '' -o " + d + "/p.json", "unknown preset"},
      {kKex + " run -q " + d + "/small.json -o " + d + "/o.json --plot-dir " + d + "/afile", "--plot-dir: " + d + "/afile: exists and is not a directory"},
      {kKex + " run -q " + d + "/small.json -o " + d + "/o.json --plot-dir " + d + "/afile/sub", "cannot be created"},
      {kKex + " segments --json " + d + "/no/dir.json", "directory " + d + "/no does not exist"},
      {kKex + " crossovers " + d + "/typed.json --cache hot", "--cache: 'hot': allowed: warm, cold"},
      // NaN is refused as inf is (CLI11's Range compares, and every comparison with NaN is false).
      {kKex + " crossovers " + d + "/typed.json --validate --budget-ms inf", "--budget-ms: Value inf not in range 0.010000"},
      {kKex + " crossovers " + d + "/typed.json --validate --budget-ms nan", "--budget-ms: Value nan not in range 0.010000"},
      {kKex + " compare " + d + "/typed.json " + d + "/typed.json --alpha nan", "--alpha: Value nan not in range"},
      {kKex + " compare " + d + "/typed.json " + d + "/typed.json --min-effect NaN", "--min-effect: Value NaN not in range"},
      {kKex + " libc-child --sizes 64 --budget-ms nan", "--budget-ms: Value nan not in range 0.001000"},
  };
  for (const auto& c : cases) {
    auto r = shell(c.cmd);
    CHECK_MESSAGE(r.status == 2, c.cmd << "\n" << r.text);
    CHECK_MESSAGE(r.text.find(c.expect) != std::string::npos, c.cmd << "\n" << r.text);
    CHECK_MESSAGE(std::count(r.text.begin(), r.text.end(), '\n') == 1, c.cmd << "\n" << r.text);
  }
  CHECK_FALSE(exists(d + "/o.json"));
  CHECK_FALSE(exists(d + "/p.json"));
}

TEST_CASE("beside generated kernels a run prints the preset and segment tables in a few lines, --full prints them whole" *
          doctest::test_suite("cli")) {
  auto d = tmpdir();
  spit(d + "/c.json", R"({"sizes": ["4KiB"], "kernels": [{"op": "copy", "regs": "sse"}], "presets": ["fastc/faster_copy"],
    "baselines": ["memcpy"], "segments": {"iterations": 20000, "mixed": false}, "repetitions": 3})");
  auto r = shell_stdout(kKex + " run " + d + "/c.json --no-plot -o " + d + "/out.json 2>/dev/null");
  REQUIRE(r.status == 0);
  CHECK(r.text.find("presets: 1 measured at 4096 bytes (the seed-layout table: --full); fastest copy_page 'faster_copy' "
                    "(fastc/faster_copy) ") != std::string::npos);
  CHECK(r.text.find("segments: push, load, pop of a selector (the 2006 loop), pop reloading null / non-null: fs ") !=
        std::string::npos);
  CHECK(r.text.find("copy_page function 'faster_copy'") == std::string::npos);
  CHECK(r.text.find("gs with data selector, entry gs=2b: ") == std::string::npos);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') < 30);
  auto full = shell_stdout(kKex + " run " + d + "/c.json --full --force --no-plot -o " + d + "/out.json 2>/dev/null");
  REQUIRE(full.status == 0);
  CHECK(full.text.find("copy_page function 'faster_copy'\t took") != std::string::npos);
  CHECK(full.text.find("gs with data selector, entry gs=2b: ") != std::string::npos);
}
