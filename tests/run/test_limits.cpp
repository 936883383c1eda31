// The environment's limits (ulimit -v, -f, -n) and a run too large to plan: each is
// one clear line and an exit status that says what happened, never a crash, a
// point lost to another point's buffers, or a minute of planning before a refusal.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/slowdown.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// kex's stdout and stderr, run under a limit `ulimit` (e.g. "-n 5") set after the
/// shell's redirections (a shell under a low open-file limit cannot redirect). Descriptors
/// 3 and 4 are closed first: under a full ctest -j2 the test process sometimes inherits
/// one (most likely a pipe ctest opened for another test), and under -n 5 the loader then
/// had no descriptor left for libfmt.so ("Error 24"): the limit is for kex's own
/// descriptors, not for a leaked one.
ShellOut kex_under(const std::string& ulimit, const std::string& args) {
  return shell_stdout("exec 2>&1 3>&- 4>&-; ulimit " + ulimit + " && exec " + kKex + " " + args);
}

/// Files in `dir` whose name starts with `prefix`.
size_t files_starting(const std::string& dir, const std::string& prefix) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().rfind(prefix, 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("under ulimit -v a point fails only when its own buffers cannot be mapped, and the run exits 3" *
          doctest::test_suite("limits")) {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("skipped: AddressSanitizer reserves more address space than any ulimit -v leaves");
#else
  TmpDir d;
  // A 4 KiB point and a 256 MiB one (516 MiB of buffers) under a 300000 KiB address space.
  spit(d / "c.json", R"({"sizes": ["4KiB", "256MiB"], "kernels": [{"op": "copy", "regs": "sse"}], "baselines": false,
                        "max_time_per_point": 0.01})");
  const ShellOut r = kex_under("-v 300000", "run -q " + (d / "c.json") + " -o " + (d / "out.json") +
                                                  " --repetitions 1 --no-sentinel");
  CHECK_MESSAGE(r.status == 3, r.text);
  const std::string big = "copy/sse/unroll:64/scratch:4/t/fwd/268435456";
  CHECK_MESSAGE(r.text.find("kex: warning: " + big + ": cannot map 516 MiB of buffers for this point (Cannot allocate "
                            "memory; the address-space limit (ulimit -v) is 293.0 MiB); 0 of 1 repetitions measured\n") !=
                    std::string::npos,
                r.text);
  CHECK_MESSAGE(r.text.find("kex: 1 point was not measured as asked") != std::string::npos, r.text);
  const auto doc = nlohmann::json::parse(slurp(d / "out.json"));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& b : doc["benchmarks"]) by_name[b["name"].get<std::string>()] = b;
  const auto& small = by_name["copy/sse/unroll:64/scratch:4/t/fwd/4096"];
  CHECK(small.value("error_occurred", false) == false);  // not taken down by the big one
  CHECK(small["reps"].size() == 1);
  CHECK(by_name[big]["error_occurred"] == true);
  CHECK(by_name[big]["error_message"].get<std::string>().rfind("cannot map 516 MiB of buffers for this point", 0) == 0);
  REQUIRE(doc["context"]["incomplete_points"].size() == 1);
  CHECK(doc["context"]["incomplete_points"][0]["point"] == big);
  // What the worker mapped: part of the plan.
  const auto& plan = doc["context"]["buffers"]["plans"][0];
  CHECK(plan["bytes"].get<uint64_t>() < plan["planned_bytes"].get<uint64_t>());
  CHECK(plan["bytes"].get<uint64_t>() > 0);
#endif
}

TEST_CASE("under ulimit -f the final write fails in one line with exit 2 and leaves no temporary" *
          doctest::test_suite("limits")) {
  TmpDir d;
  // 8 blocks of 512 bytes: less than any results file.
  const ShellOut r =
      kex_under("-f 8", "run -q memcpy --sizes 4KiB --repetitions 1 --no-sentinel --no-journal -o " + (d / "out.json"));
  CHECK_MESSAGE(r.status == 2, r.text);
  CHECK_MESSAGE(line_count(r.text) == 1, r.text);
  CHECK_MESSAGE(r.text.find("out.json: write failed (File too large; the file-size limit (ulimit -f) is 4 KiB); "
                            "nothing was written") != std::string::npos,
                r.text);
  CHECK(!std::filesystem::exists(d / "out.json"));
  CHECK(files_starting(d.path, ".kex-") == 0);
}

TEST_CASE("under ulimit -n 5 kex says so in one line and exits 2" * doctest::test_suite("limits")) {
  if (kSanitized) {
    MESSAGE("skipped under the sanitizers: their runtimes fail first at so low an open-file limit");
    return;
  }
  TmpDir d;
  const ShellOut r = kex_under("-n 5", "run -q memcpy --sizes 4KiB -o " + (d / "out.json"));
  CHECK_MESSAGE(r.status == 2, r.text);
  CHECK_MESSAGE(line_count(r.text) == 1, r.text);
  CHECK_MESSAGE(r.text.find("kex: the open-file limit (ulimit -n) is 5; kex needs at least 16") == 0, r.text);
  CHECK(files_starting(d.path, "") == 0);  // nothing written, not even a journal
}

TEST_CASE("a system call at a process limit is an input error naming the limit" * doctest::test_suite("limits")) {
  if (kSanitized) {
    MESSAGE("skipped under the sanitizers: their runtimes fail first at so low an open-file limit");
    return;
  }
  // In a child: the open-file limit lowered to the files open now, so the next pipe fails.
  const pid_t pid = fork();
  if (pid == 0) {
    int fds[2];
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = 3;  // no descriptor above the standard three
    setrlimit(RLIMIT_NOFILE, &r);
    if (pipe(fds) == 0) _exit(10);
    const int err = errno;
    try {
      kex::throw_os_error("cannot start a test process: pipe", err);
    } catch (const kex::InputError& e) {
      const std::string want = "cannot start a test process: pipe: Too many open files; the open-file limit (ulimit -n) is 3";
      _exit(e.what() == want ? 0 : 11);
    } catch (...) {
      _exit(12);
    }
    _exit(13);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  // Not a limit: an internal error (exit 1), not the user's to fix.
  CHECK_THROWS_AS(kex::throw_os_error("x", EBADF), std::runtime_error);
  CHECK(kex::limit_note(EBADF) == "");
}

TEST_CASE("a config of 10^7 points is refused at once, not after planning every point" * doctest::test_suite("limits")) {
  TmpDir d;
  // 100 sizes x 100 source offsets x 1000 distances of one kernel.
  nlohmann::json c = {{"kernels", {{{"op", "copy"}, {"regs", "sse"}}}}, {"baselines", false}};
  for (int i = 1; i <= 100; ++i) c["sizes"].push_back(64 * i);
  for (int i = 0; i < 100; ++i) c["layout"]["src_offset"].push_back(i);
  for (int i = 0; i < 1000; ++i) c["layout"]["distance"].push_back(4194304 + i);
  spit(d / "c.json", c.dump());
  const auto t0 = std::chrono::steady_clock::now();
  const ShellOut r = shell("timeout 30 " + kKex + " run " + (d / "c.json") + " -o " + (d / "out.json"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_MESSAGE(r.status == 2, r.text);
  CHECK_MESSAGE(r.text == "kex: run: more than 5000 points x 20 repetitions: above 100000 tasks; pass --allow-large "
                          "to run it (or --list to see the points)\n",
                r.text);
  CHECK(s < 3 * kSlowdown);  // planned in full, it took 54 s
  CHECK(files_starting(d.path, "out") == 0);
}

TEST_CASE("a results file too large for the memory left is one line naming it and the limit, exit 2, never an abort" *
          doctest::test_suite("limits")) {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("skipped: AddressSanitizer reserves more address space than any ulimit -v leaves");
#else
  TmpDir d;
  // The fixed run with five million numbers beside it (10 MB of JSON, about 400 MB to parse):
  // before the value budget, nlohmann's destructor allocated while unwinding and kex aborted.
  nlohmann::json doc = nlohmann::json::parse(slurp(std::string(KEX_SOURCE_DIR) + "/tests/golden/run.json"));
  doc["context"]["junk"] = std::vector<int>(5'000'000, 0);
  spit(d / "big.json", doc.dump());
  const ShellOut r = kex_under("-v 300000", "summary " + d / "big.json");
  CHECK_MESSAGE(r.status == 2, r.text);
  CHECK_MESSAGE(r.text.starts_with("kex: " + d / "big.json" + ": too large to read in the memory left to this process "
                                   "(more than "),
                r.text);
  CHECK_MESSAGE(r.text.ends_with(" JSON values; the address-space limit (ulimit -v) is 293.0 MiB)\n"), r.text);
  CHECK(line_count(r.text) == 1);
#endif
}
