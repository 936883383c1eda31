// Nothing finished is lost: seed-harness passes are journaled as they end, a measuring
// worker killed from outside keeps what it finished, and the segment table answers a
// stop within a chunk of time, whatever its iteration count.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/slowdown.hpp"
#include "tests/support/tmpdir.hpp"

namespace {


/// The entries of a results file whose params.harness is `harness`.
std::vector<nlohmann::json> entries_of(const nlohmann::json& doc, const std::string& harness) {
  std::vector<nlohmann::json> out;
  for (const auto& b : doc.at("benchmarks"))
    if (b.at("params").value("harness", "") == harness) out.push_back(b);
  return out;
}

}  // namespace

TEST_CASE("kex run --repeat 3 stopped between seed-harness passes keeps the finished ones, and --resume runs only the rest" *
          doctest::test_suite("nothing_lost")) {
  TmpDir d;
  const std::string journal = d / "f.json.journal";
  // One copy kernel: each fast.c pass sleeps 1 s before it, so a stop lands between passes.
  KexChild c({"run", "--preset", "fastc/faster_copy", "--harness", "fastc", "--repeat", "3", "--repetitions", "1", "-o",
              d / "f.json"},
             d / "log1");
  REQUIRE_MESSAGE(wait_until([&] { return lines_with(journal, "{\"seed_pass\":") >= 1; }, 30 * kSlowdown),
                  slurp(d / "log1"));
  const auto [status, s] = c.stop({SIGINT});
  CHECK(status == 130);
  const size_t passes = lines_with(journal, "{\"seed_pass\":");
  REQUIRE(passes >= 1);
  REQUIRE(passes < 3);
  const auto part = nlohmann::json::parse(slurp(d / "f.json"));
  CHECK(part["context"]["interrupted"] == true);
  const auto fastc = entries_of(part, "fastc");
  REQUIRE(fastc.size() == 1);  // the finished passes are in the output, one repetition each
  REQUIRE(fastc[0]["reps"].size() == passes);
  CHECK(!fastc[0]["reps"][0]["samples_ticks"].empty());

  const ShellOut r = shell(kKex + " run --resume " + journal);
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const std::string ran = passes == 1 ? "(passes 2..3 of 3; pass 1 is in the journal)"
                                      : "(pass 3 of 3; passes 1..2 are in the journal)";
  CHECK_MESSAGE(r.text.find("running presets under the fastc harness " + ran) != std::string::npos, r.text);
  const auto done = nlohmann::json::parse(slurp(d / "f.json"));
  CHECK(done["context"]["interrupted"] == false);
  const auto all = entries_of(done, "fastc");
  REQUIRE(all.size() == 1);
  REQUIRE(all[0]["reps"].size() == 3);
  for (size_t k = 0; k < passes; ++k)  // the passes measured before the stop, kept as they were
    CHECK(all[0]["reps"][k]["samples_ticks"] == fastc[0]["reps"][k]["samples_ticks"]);
  CHECK(!std::filesystem::exists(journal));
}

TEST_CASE("a measuring worker killed from outside keeps the repetitions it finished, the run says which point and how, "
          "and exits 3" * doctest::test_suite("nothing_lost")) {
  TmpDir d;
  // Two points, 3 repetitions of at least 0.4 s each (each alone), in config order: point 4096's three first.
  spit(d / "c.json", R"({"sizes": [4096, 8192], "kernels": [{"op": "copy", "regs": "sse"}], "baselines": false,
                        "min_time_per_point": 0.4, "max_time_per_point": 0.4})");
  const std::string journal = d / "out.json.journal";
  KexChild c({"run", d / "c.json", "-o", d / "out.json", "--repetitions", "3", "--no-shuffle", "--no-sentinel", "--separate"},
             d / "log");
  REQUIRE_MESSAGE(wait_until([&] { return lines_with(journal, "{\"rep\":") >= 2; }, 30 * kSlowdown), slurp(d / "log"));
  const std::vector<pid_t> worker = c.children();  // the measuring worker, now on the third repetition
  REQUIRE(worker.size() == 1);
  kill(worker[0], SIGKILL);
  CHECK(c.wait() == 3);
  const std::string point = "copy/sse/unroll:64/scratch:4/t/fwd/4096";
  const std::string log = slurp(d / "log");
  CHECK_MESSAGE(log.find("kex: warning: " + point +
                         ": the measuring worker was killed by SIGKILL (not by its kernel: no fault was reported) "
                         "while measuring this point; 2 of 3 repetitions measured\n") != std::string::npos,
                log);
  CHECK_MESSAGE(log.find("kex: 1 point was not measured as asked (context.incomplete_points says why)\n") !=
                    std::string::npos,
                log);
  const auto doc = nlohmann::json::parse(slurp(d / "out.json"));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& b : doc["benchmarks"]) by_name[b["name"].get<std::string>()] = b;
  REQUIRE(by_name.count(point));
  CHECK(by_name[point].value("error_occurred", false) == false);
  CHECK(by_name[point]["reps"].size() == 2);  // the two it finished
  CHECK(by_name["copy/sse/unroll:64/scratch:4/t/fwd/8192"]["reps"].size() == 3);  // the next worker measured the rest
  const auto& inc = doc["context"]["incomplete_points"];
  REQUIRE(inc.size() == 1);
  CHECK(inc[0]["point"] == point);
  CHECK(inc[0]["signal"] == SIGKILL);
  CHECK(inc[0]["repetitions"] == 2);
  CHECK(inc[0]["repetitions_asked"] == 3);
}

TEST_CASE("the segment table inside kex run stops within 3 s of a SIGINT at segments.iterations 5e7" *
          doctest::test_suite("nothing_lost")) {
  TmpDir d;
  // 5e7 iterations a case over 101 samples: a sample is shorter than the old 4 M-iteration
  // chunk, so the stop was seen only between cases (4.5-10.3 s on a VM).
  spit(d / "seg.json", R"({"segments": {"iterations": 50000000}, "baselines": false})");
  KexChild c({"run", d / "seg.json", "-o", d / "r.json"}, d / "log");
  REQUIRE_MESSAGE(wait_until([&] { return slurp(d / "log").find("segment-override table") != std::string::npos; },
                             30 * kSlowdown),
                  slurp(d / "log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // past the probes, into a measured case
  const auto [status, s] = c.stop({SIGINT});
  CHECK(status == 130);
  CHECK(s < 3 * kSlowdown);
  const auto doc = nlohmann::json::parse(slurp(d / "r.json"));
  CHECK(doc["context"]["interrupted"] == true);
  CHECK(doc["context"]["segments"]["interrupted"] == true);
}
