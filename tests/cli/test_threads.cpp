// kex run with a threads axis, end to end: a 2-thread run verifies and records where each
// worker ran; too many threads is one line naming the mask; a killed 2-thread run resumes.
#include <doctest/doctest.h>

#include <signal.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "src/core/affinity.hpp"
#include "src/run/topology.hpp"
#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

bool two_cpus() { return kex::startup_cpus().size() >= 2; }

/// The CPUs of a repetition's workers.
std::vector<int> rep_cpus(const nlohmann::json& rep) {
  std::vector<int> v;
  for (const auto& t : rep.at("threads")) v.push_back(t.at("cpu").get<int>());
  return v;
}

}  // namespace

TEST_CASE("a 2-thread run verifies, places its workers on distinct CPUs and records them" * doctest::test_suite("threads")) {
  if (!two_cpus()) {
    MESSAGE("one CPU in the affinity mask: no 2-thread run here");
    return;
  }
  TmpDir d;
  const ShellOut r = shell(kKex + " run copy/sse/unroll:64 memcpy --sizes 4KiB,64KiB --threads 1,2 --no-plot --no-journal -o " +
                           d / "t.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  CHECK(r.text.find("copy (threads:2)") != std::string::npos);  // its own summary block
  const auto doc = nlohmann::json::parse(slurp(d / "t.json"));
  const auto& pr = doc.at("context").at("protocol");
  CHECK(pr.at("placement") == "spread");
  REQUIRE(pr.at("threads").size() == 2);
  const int cpu0 = pr["threads"][0]["cpu"], cpu1 = pr["threads"][1]["cpu"];
  CHECK(cpu0 == pr.at("worker_cpu").get<int>());
  CHECK(cpu0 != cpu1);
  size_t two = 0, one = 0;
  for (const auto& b : doc.at("benchmarks")) {
    const std::string name = b.at("name");
    const bool threaded = name.find("/threads:2") != std::string::npos;
    INFO(name);
    CHECK(b.at("params").value("threads", 1) == (threaded ? 2 : 1));
    REQUIRE(!b.at("reps").empty());
    for (const auto& rep : b.at("reps")) {
      if (!threaded) {
        CHECK(!rep.contains("threads"));
        continue;
      }
      CHECK(rep_cpus(rep) == std::vector<int>{cpu0, cpu1});
      for (const auto& t : rep.at("threads")) CHECK(t.at("median_ticks").get<double>() > 0);
      // The sample runs from the first start to the last end: never shorter than a worker's own time.
      for (const auto& t : rep.at("threads")) CHECK(rep.at("median_ticks").get<double>() >= 0.9 * t.at("median_ticks").get<double>());
    }
    (threaded ? two : one) += 1;
  }
  CHECK(two == 4);  // the kernel and memcpy at two sizes
  CHECK(one == 4);
  const ShellOut v = shell("python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
                           "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " +
                           d / "t.json" + " " + KEX_SOURCE_DIR "/configs/schema/results.schema.json");
  CHECK_MESSAGE(v.text.rfind("valid", 0) == 0, v.text);
}

TEST_CASE("more threads than the affinity mask, or a bad placement, is one line and exit 2" * doctest::test_suite("cli")) {
  const std::string n = std::to_string(kex::startup_cpus().size() + 1);
  TmpDir d;
  ShellOut r = shell(kKex + " run copy/sse --sizes 4KiB --no-journal --no-plot -o " + d / "t.json" + " --threads " + n);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text == "kex: copy/sse/unroll:64/scratch:4/t/fwd/4096/threads:" + n + ": threads: " + n + " workers need " +
                              n + " CPUs; the affinity mask " + kex::cpu_list_text(kex::startup_cpus()) + " allows " +
                              std::to_string(kex::startup_cpus().size()) + " (one worker per CPU)\n",
                r.text);
  CHECK(!std::filesystem::exists(d / "t.json.journal"));  // refused before any file is made
  CHECK(!std::filesystem::exists(d / "t.json"));
  CHECK(shell(kKex + " run copy/sse --sizes 4KiB --list --threads " + n).status == 2);  // --list says so too
  r = shell("cd " + d.path + " && " + kKex + " run memcpy --sizes 4KiB --no-plot --threads " + n);
  CHECK(r.status == 2);
  CHECK_MESSAGE(shell("ls -A " + d.path).text.empty(), shell("ls -A " + d.path).text);  // no run folder left behind
  r = shell(kKex + " run copy/sse --sizes 4KiB --list --threads 0");
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find("--threads: '0': allowed: thread counts 1..1024 or all") != std::string::npos, r.text);
  r = shell(kKex + " run copy/sse --sizes 4KiB --list --placement wide");
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find("--placement: 'wide': allowed: spread, compact, or a CPU list") != std::string::npos, r.text);
  r = shell(kKex + " run built-in:default.json --list --threads 2");
  CHECK(r.status == 2);
  CHECK(r.text.find("--threads: applies to kernels named as arguments") != std::string::npos);
  r = shell(kKex + " run --preset linux/clear_page_erms --list --threads 2");
  CHECK(r.status == 2);
  CHECK(r.text.find("(name a preset as an argument instead: kex run linux/clear_page_erms --threads ...)") !=
        std::string::npos);
  r = shell(kKex + " run copy/sse --sizes 4KiB --threads 1,2 --list");
  CHECK(r.status == 0);
  CHECK(r.text.find("copy/sse/unroll:64/scratch:4/t/fwd/4096/threads:2") != std::string::npos);
  CHECK(r.text.find("memcpy/4096/threads:2") != std::string::npos);  // the baselines too
}

TEST_CASE("a killed 2-thread run resumes from its journal and ends complete" * doctest::test_suite("threads")) {
  if (!two_cpus()) {
    MESSAGE("one CPU in the affinity mask: no 2-thread run here");
    return;
  }
  TmpDir d;
  spit(d / "c.json", R"({"sizes": ["1KiB", "16KiB"], "threads": [1, 2],
    "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "avx"]}], "baselines": false,
    "protocol": {"round_sample_us": 10000}})");
  {
    KexChild c({"run", d / "c.json", "-o", d / "out.json", "--no-sentinel", "--no-plot", "--repetitions", "3"}, d / "log1");
    REQUIRE_MESSAGE(wait_for_reps(d / "out.json.journal", 6), slurp(d / "log1"));
    kill(-c.pid, SIGKILL);
    CHECK(c.wait() == 128 + SIGKILL);
  }
  REQUIRE(lines_with(d / "out.json.journal", "{\"rep\":") < 24);
  const ShellOut r = shell(kKex + " run --resume " + d / "out.json.journal");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const auto doc = nlohmann::json::parse(slurp(d / "out.json"));
  CHECK(doc["context"]["interrupted"] == false);
  std::set<std::string> names;
  for (const auto& b : doc["benchmarks"]) {
    INFO(b["name"]);
    names.insert(b["name"]);
    CHECK(b["reps"].size() == 3);
    if (b["name"].get<std::string>().find("threads:2") != std::string::npos)
      for (const auto& rep : b["reps"]) CHECK(rep.at("threads").size() == 2);
  }
  CHECK(names.size() == 8 * 2);  // 4 kernels x 2 sizes x 2 thread counts
  CHECK(doc["context"]["protocol"]["threads"].size() == 2);
}

TEST_CASE("a threads \"all\" run resumed under a narrower affinity mask names the mask" * doctest::test_suite("threads")) {
  const std::vector<int>& cpus = kex::startup_cpus();
  if (cpus.size() < 2) {
    MESSAGE("one CPU in the affinity mask: no 2-thread run here");
    return;
  }
  TmpDir d;
  spit(d / "c.json", R"({"sizes": ["1KiB"], "threads": "all", "kernels": [{"op": "copy", "regs": ["sse", "avx"]}],
    "baselines": false, "protocol": {"round_sample_us": 10000}})");
  {
    KexChild c({"run", d / "c.json", "-o", d / "out.json", "--no-sentinel", "--no-plot", "--repetitions", "3"}, d / "log1");
    REQUIRE_MESSAGE(wait_for_reps(d / "out.json.journal", 1), slurp(d / "log1"));
    kill(-c.pid, SIGKILL);
    CHECK(c.wait() == 128 + SIGKILL);
  }
  const std::string before = slurp(d / "out.json.journal");
  const std::string n = std::to_string(cpus.size());
  ShellOut r = shell("taskset -c " + std::to_string(cpus.front()) + " " + kKex + " run --resume " + d / "out.json.journal");
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.text.find("/threads:" + n + ": its " + n + " workers need " + n +
                            " CPUs and this process may use 1 (CPUs " + std::to_string(cpus.front()) +
                            "); resume under the affinity mask the run started with") != std::string::npos,
                r.text);
  CHECK(slurp(d / "out.json.journal") == before);  // nothing written
  CHECK(!std::filesystem::exists(d / "out.json"));
  r = shell(kKex + " run --resume " + d / "out.json.journal");
  CHECK_MESSAGE(r.status == 0, r.text);
}
