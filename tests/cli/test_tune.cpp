// `kex tune` end to end on a small race (two sizes, four kernels, seconds), and its
// one-line errors. Measures: the `tune` suite holds the measuring-cpu lock.
#include <doctest/doctest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/slowdown.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

// Kernels every x86-64 CPU runs: the race must hold on machines with and without AVX-512.
const char* kTuneSpace = R"({"sizes": ["4KiB", "64KiB"], "kernels": [
  {"op": "copy", "regs": ["gpr", "sse"], "store": ["temporal", "nontemporal"]}]})";

}  // namespace

TEST_CASE("kex tune races, writes a results file with a tune section, prints the dispatch" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kTuneSpace;
  const auto r = shell_stdout(kKex + " tune -q " + d + "/space.json --budget 20s --rounds 6 --first-rounds 3 -o " + d +
                              "/t.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find("kex tune: copy on ") == 0);
  CHECK(r.text.find("\ndispatch:\n") != std::string::npos);
  CHECK(r.text.find("--dispatch '") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/t.json"));
  const auto& t = doc["tune"];
  CHECK(t["op"] == "copy");
  REQUIRE(t["verdicts"].size() == 2);
  CHECK(t["verdicts"][0]["size"] == 4096);
  CHECK(t["verdicts"][1]["size"] == 65536);
  REQUIRE(!t["dispatch"].empty());
  CHECK(!t["dispatch"].back().contains("max_bytes"));
  for (const auto& v : t["verdicts"]) {
    CHECK(v["rounds"].get<int>() >= 3);
    CHECK(!v["ties"].empty());
    CHECK(v["vs_libc"]["rounds"].get<int>() >= 3);  // memcpy raced in the same rounds
  }
  // Every entry is a normal result, measured in rounds: the race's points and the reference.
  size_t rounds = 0, names = 0;
  for (const auto& e : doc["benchmarks"]) {
    names += e["name"].get<std::string>().rfind("memcpy/", 0) == 0;
    for (const auto& rep : e["reps"]) rounds += rep.value("round", 0) > 0;
  }
  CHECK(names == 2);
  CHECK(rounds >= 2 * 5 * 3);
  // The tunables the dispatch suggests, measured with libc (or none suggested: one line).
  REQUIRE(t.contains("validation"));
  const auto& val = t["validation"];
  CHECK(!val.contains("not_measured"));
  if (val["checks"].empty()) CHECK(r.text.find("\nlibc tunables: none suggested (") != std::string::npos);
  for (const auto& c : val["checks"]) {
    CHECK(c["measured"]["rounds"].get<int>() >= 3);
    CHECK(c["measured"]["tuned_saw"] == c["measured"]["tunables"]);
    CHECK(r.text.find(c["tunable"]["name"].get<std::string>() + "=") != std::string::npos);
    CHECK(r.text.find(" tuned/default ") != std::string::npos);
  }
  CHECK(t["used_s"].get<double>() >= val["seconds"].get<double>());
  const auto v = shell("python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
                       "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " +
                       d + "/t.json " + KEX_SOURCE_DIR + "/configs/schema/results.schema.json");
  CHECK_MESSAGE(v.text.find("valid") == 0, v.text);
  // kex summary and kex report of the file show the tune's verdicts and dispatch, and its wall time.
  const auto sum = shell_stdout(kKex + " summary " + d + "/t.json");
  REQUIRE_MESSAGE(sum.status == 0, sum.text);
  CHECK(sum.text.find("kex tune: copy on ") == 0);
  CHECK(sum.text.find(r.text.substr(0, r.text.find("\nrace: "))) == 0);  // the verdicts and dispatch as the tune printed them
  for (const auto& e : doc["benchmarks"]) CHECK(e["reps"][0]["samples_ticks"].empty());
  CHECK(doc["context"]["elapsed_s"] == t["used_s"]);
  const auto page = shell(kKex + " report -q " + d + "/t.json --no-figures -o " + d + "/t.html");
  REQUIRE_MESSAGE(page.status == 0, page.text);
  CHECK(slurp(d + "/t.html").find("<strong>dispatch</strong>") != std::string::npos);
  // The table handed over: kex emit writes it as C that compiles.
  const auto c = shell(kKex + " emit --format c --tune " + d + "/t.json -o " + d + "/d.c");
  REQUIRE_MESSAGE(c.status == 0, c.text);
  CHECK(slurp(d + "/d.c").find(" * dispatch kex_memcpy: ") != std::string::npos);
  const auto cc = shell("command -v cc >/dev/null || exit 0; cc -c -Wall -Werror -o " + d + "/d.o " + d + "/d.c");
  CHECK_MESSAGE(cc.status == 0, cc.text);
  // kex emit --test builds the tune's dispatch with cc and checks it against libc itself.
  if (shell("command -v cc >/dev/null && command -v as >/dev/null").status == 0) {
    const auto checked = shell(kKex + " emit --format gas --tune " + d + "/t.json --test");
    CHECK_MESSAGE(checked.status == 0, checked.text);
    CHECK(checked.text.rfind("kex_memcpy: passed: 16785464 calls, every byte and return value as the C library's (", 0) == 0);
  }
  // The file's op is the dispatch's; errors in its table name the file.
  const auto op = shell(kKex + " emit --format c --tune " + d + "/t.json --op clear");
  CHECK(op.status == 2);
  CHECK(op.text == "kex: --op: 'clear': " + d + "/t.json is a copy tune (leave --op out with --tune)\n");
  auto bad = doc;
  bad["tune"]["dispatch"][0]["kernel"] = "copy/nope";
  std::ofstream(d + "/bad.json") << bad.dump();
  const auto b = shell(kKex + " emit --format c --tune " + d + "/bad.json");
  CHECK(b.status == 2);
  CHECK_MESSAGE(b.text.rfind("kex: " + d + "/bad.json: /tune/dispatch/0/kernel: 'copy/nope': not one kernel name", 0) == 0,
                b.text);
  // One JSON string with a ',' was two rows of the emitted dispatch: refused, naming the row.
  bad["tune"]["dispatch"][0]["kernel"] = "copy/sse/unroll:64/scratch:4/t/fwd,100000:memcpy";
  std::ofstream(d + "/comma.json") << bad.dump();
  const auto comma = shell(kKex + " emit --format c --tune " + d + "/comma.json");
  CHECK(comma.status == 2);
  CHECK_MESSAGE(comma.text.rfind("kex: " + d + "/comma.json: /tune/dispatch/0/kernel: 'copy/sse/unroll:64/scratch:4/t/fwd,"
                                 "100000:memcpy': not one kernel name", 0) == 0,
                comma.text);
  // A tune file naming loaded code is data: the row is refused when the file is read, naming
  // it, and nothing is opened (no such library exists: a load would fail with dlerror's text).
  for (const std::string name : {"lib/mine", "asm/musl"}) {
    bad["tune"]["dispatch"][0]["kernel"] = name;
    std::ofstream(d + "/loaded.json") << bad.dump();
    const auto l = shell(kKex + " emit --format c --tune " + d + "/loaded.json");
    CHECK(l.status == 2);
    CHECK_MESSAGE(l.text == "kex: " + d + "/loaded.json: /tune/dispatch/0/kernel: '" + name +
                                "': not one kernel name: a kernel spec name or a baseline (memcpy, memset, rep_movsb, "
                                "rep_stosb), what kex tune races, or a dispatch kernel as the only row\n",
                  l.text);
  }
  // An existing results file is kept.
  const std::string before = slurp(d + "/t.json");
  const auto again = shell(kKex + " tune -q " + d + "/space.json --budget 5s -o " + d + "/t.json");
  CHECK(again.status == 2);
  CHECK(again.text.find("exists") != std::string::npos);
  CHECK(slurp(d + "/t.json") == before);
}

TEST_CASE("kex tune CONFIG --sizes S races a config that gives no sizes of its own" * doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/nosizes.json") << R"({"kernels": [{"op": "copy", "regs": ["gpr", "sse"]}]})";
  const auto r = shell(kKex + " tune -q " + d + "/nosizes.json --sizes 4KiB --budget 10s --rounds 4 --first-rounds 3 " +
                       "--no-validate -o " + d + "/t.json");
  INFO(r.text);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(slurp(d + "/t.json"));
  std::set<uint64_t> sizes;
  for (const auto& e : j["benchmarks"]) sizes.insert(e["size"].get<uint64_t>());
  CHECK(sizes == std::set<uint64_t>{4096});
  // Without --sizes it is still the config's error, in one line.
  const auto none = shell(kKex + " tune " + d + "/nosizes.json -o " + d + "/never.json");
  CHECK(none.status == 2);
  CHECK(none.text.find("/kernels/0/sizes: null: kernels need a list of sizes (here or at the top level)") !=
        std::string::npos);
}

TEST_CASE("kex tune: bad options and spaces exit 2 with one line, before measuring" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kTuneSpace;
  std::ofstream(d + "/two.json") << R"({"sizes": [4096], "cache": ["warm", "cold"], "kernels": [{"op": "copy", "regs": "sse"}]})";
  auto one_line = [&](const std::string& args, const std::string& want) {
    const auto r = shell(kKex + " tune " + args + " -o " + d + "/never.json");
    CHECK_MESSAGE(r.status == 2, (args + ": " + r.text));
    CHECK_MESSAGE(r.text.find(want) != std::string::npos, (args + ": " + r.text));
    CHECK_MESSAGE(std::count(r.text.begin(), r.text.end(), '\n') == 1, (args + ": " + r.text));
  };
  one_line(d + "/space.json --budget 0", "--budget: '0': give seconds, or a number with s, m or h");
  one_line(d + "/space.json --budget 5x", "--budget: '5x'");
  one_line(d + "/space.json --op clear", "/kernels: no clear kernel this CPU runs");
  one_line(d + "/two.json", "/cache: 2 values: kex tune races one group per size");
  one_line(d + "/space.json --margin 2", "--margin: ");
  one_line(d + "/space.json --sizes 0", "--sizes");
  one_line(d + "/space.json --threads 0", "--threads: '0': allowed: thread counts 1..1024 or all");
  one_line(d + "/space.json --threads 1,2", "--threads: '1,2': kex tune races one thread count: give one");
  one_line(d + "/space.json --threads all --budget 0", "--budget: '0'");  // all is taken, as by kex run
  one_line(d + "/space.json --cpu 99999", "--cpu: Value 99999 not in range");
  one_line(d + "/space.json --cpu 4000", "--cpu: 4000 is not a CPU this process may run on (allowed: ");
  // A first stage far above the budget (76 sizes x every candidate ran 106 s of a 3 s budget): refused at once.
  one_line("--sizes 1..1MiB:4 --budget 3s --no-validate", "--budget: the first stage alone (");
  one_line("--sizes 1..1MiB:4 --budget 3s --no-validate", "s: give a larger --budget, fewer sizes or kernels, or pass "
                                                           "--allow-large to race anyway");
  CHECK(shell("test -e " + d + "/never.json").status != 0);
  const auto dash = shell("cd " + d + " && " + kKex + " tune space.json -o -");
  CHECK(dash.status == 2);
  CHECK(dash.text == "kex: -o: '-': kex tune writes a results file, not standard output; give a path\n");
  CHECK(shell("test -e " + d + "/-").status != 0);
  std::ofstream(d + "/plain.json") << R"({"context": {}, "benchmarks": []})";
  const auto e = shell(kKex + " emit --format c --tune " + d + "/plain.json");
  CHECK(e.status == 2);
  CHECK(e.text == "kex: " + d + "/plain.json: no tune section: a results file from `kex tune` is needed\n");
}

namespace {

/// Whether the tune logging to `log` has started its first stage (within 20 s).
bool racing(const std::string& log) {
  return wait_until([&] { return lines_with(log, "kex tune: stage 1: ") > 0; });
}

}  // namespace

TEST_CASE("kex tune stopped by two signals exits at once and writes nothing, by one writes the stages done" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kTuneSpace;
  const std::vector<std::string> args = {"tune", d + "/space.json", "--budget", "30s", "--rounds", "200",
                                         "--first-rounds", "100"};
  {
    auto a = args;
    a.insert(a.end(), {"-o", d + "/two.json"});
    KexChild c(a, d + "/log2");
    REQUIRE(racing(d + "/log2"));
    const auto [status, s] = c.stop({SIGINT, SIGTERM});  // two signals: two SIGINTs could merge
    CHECK(status == 130);
    CHECK(s < 3 * kSlowdown);
    const std::string log = slurp(d + "/log2");
    CHECK_MESSAGE(log.find("kex tune: stopped at once; nothing written") != std::string::npos, log);
    CHECK(!std::filesystem::exists(d + "/two.json"));
  }
  auto a = args;
  a.insert(a.end(), {"-o", d + "/one.json"});
  KexChild c(a, d + "/log1");
  REQUIRE(racing(d + "/log1"));
  const auto [status, s] = c.stop({SIGHUP});  // a closed terminal stops it as one SIGINT or SIGTERM does
  CHECK(status == 130);
  CHECK(s < 3 * kSlowdown);
  const std::string log = slurp(d + "/log1");
  CHECK_MESSAGE(log.find("kex tune: interrupted; the stages finished are in ") != std::string::npos, log);
  const auto doc = nlohmann::json::parse(slurp(d + "/one.json"));
  CHECK(doc["context"]["interrupted"] == true);
  CHECK(doc["tune"]["stages"].size() == 1);
  CHECK(doc["tune"]["validation"]["not_measured"] == "stopped");
}

TEST_CASE("kex tune checks its output has room for the results before racing, not after the budget" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/space.json") << kTuneSpace;
  // Four candidates and two references at two sizes: about 1.1 MiB reserved; the limit is
  // 1000 blocks of 512 bytes (sh's unit).
  const auto r = shell("ulimit -f 1000 && exec " + kKex + " tune " + d + "/space.json --budget 20s -o " + d + "/t.json");
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.starts_with("kex: " + d + "/t.json: no room for 1."), r.text);
  CHECK_MESSAGE(r.text.ends_with(" MiB of output (File too large; the file-size limit (ulimit -f) is 500 KiB); nothing "
                                 "was done\n"),
                r.text);
  CHECK(r.text.find("stage 1") == std::string::npos);  // refused before the first stage
  CHECK(shell("ls -A " + d).text == "space.json\n");   // and no temporary left
}

TEST_CASE("kex tune --glibc prints each size's time over glibc's fastest variant beside memcpy's and rep's" *
          doctest::test_suite("tune")) {
  const std::string d = tmp_dir_until_exit();
  std::ofstream(d + "/one.json") << R"({"kernels": [{"op": "copy", "regs": ["sse"]}]})";
  const auto r = shell_stdout(kKex + " tune -q " + d + "/one.json --glibc --sizes 4KiB --budget 20s --rounds 4 " +
                              "--first-rounds 3 --no-validate -o " + d + "/t.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const auto t = nlohmann::json::parse(slurp(d + "/t.json"))["tune"];
  REQUIRE(t["verdicts"].size() == 1);
  const auto& v = t["verdicts"][0];
  if (!v.contains("glibc")) {  // no usable glibc variant here (not glibc, or none listed)
    CHECK(r.text.find("glibc's fastest") == std::string::npos);
    return;
  }
  const std::string variant = v["glibc"];
  CHECK(variant.rfind("glibc/", 0) == 0);
  CHECK(v["vs_glibc"]["rounds"].get<int>() >= 3);  // raced in the same rounds
  CHECK(r.text.find("time / memcpy        time / rep_movsb     time / glibc's fastest  rounds  glibc's fastest\n") !=
        std::string::npos);
  const size_t row = r.text.find("\n4 KiB ");
  REQUIRE(row != std::string::npos);
  CHECK(r.text.substr(row, r.text.find('\n', row + 1) - row).ends_with("  " + variant));
}
