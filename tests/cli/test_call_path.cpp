// One call path for every competitor (issue 50): the timed loop calls libc's memcpy and memset
// at their address, as it calls the glibc variant ifunc picked, so the two are the same code
// entered the same way and tie (A/A; the ratio bound is wide on purpose: it catches the extra call the
// baseline used to pay, 1.26x to 1.36x, not the VM's noise); every entry carries the timed
// loop's own cost, measured in the same rounds. CI runs these beside other tests on two
// cores, where one run can miss a tie by noise (lib/ against asm/ at 256 B: 1.34x in one CI
// run, under 1.05x alone); a run is repeated up to kAttempts times and the tie must hold in
// one, while an extra call on one side, the fault they catch, shows in every run.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "src/run/glibc_impls.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

constexpr int kAttempts = 3;

/// Runs `attempt` (true when every ratio it checked is within its bound) up to kAttempts
/// times and returns whether one held; the last attempt's figures are in the log.
template <class Attempt>
bool holds_in_one_run(Attempt attempt) {
  for (int i = 0; i < kAttempts; ++i)
    if (attempt()) return true;
  return false;
}

/// Each entry's median ns by kernel and size.
std::map<std::pair<std::string, uint64_t>, nlohmann::json> call_entries(const std::string& path) {
  std::map<std::pair<std::string, uint64_t>, nlohmann::json> out;
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  for (const auto& e : doc["benchmarks"])
    out[{e["kernel"].get<std::string>(), e["size"].get<uint64_t>()}] = e;
  return out;
}

/// libc's `function` against glibc/<ifunc's pick> of it, at 8 B, 256 B and 4 KiB.
void check_tie(const char* base, Function f) {
  const std::string pick = ifunc_pick(f);
  REQUIRE(pick != "unknown");
  std::string log;
  const bool tie = holds_in_one_run([&] {
    TmpDir dir;
    const ShellOut out = shell(kKex + " run " + base + " glibc/" + pick + " --sizes 8,256,4KiB --repetitions 9 -q -o " +
                               (dir / "r.json"));
    INFO(out.text);
    REQUIRE(out.status == 0);
    const auto e = call_entries(dir / "r.json");
    bool within = true;
    log.clear();
    for (uint64_t size : {8, 256, 4096}) {
      const double libc = e.at({base, size})["real_time"].get<double>();
      const double variant = e.at({"glibc/" + pick, size})["real_time"].get<double>();
      log += std::string(base) + " at " + std::to_string(size) + " B: " + std::to_string(libc) + " ns, glibc/" + pick +
             ": " + std::to_string(variant) + " ns\n";
      within = within && libc / variant < 1.10 && variant / libc < 1.10;
      // The harness figure is the same rounds' empty routine: there at every size, and at
      // 4 KiB below both times (at a few bytes a call's own cost can hide the copy's).
      const double harness = e.at({base, size})["stats"]["harness_ns"].get<double>();
      CHECK(harness > 0);
      if (size == 4096) CHECK(harness < std::min(libc, variant));
      CHECK(e.at({base, size})["reps"][0]["harness_ticks"].get<double>() > 0);
    }
    return within;
  });
  INFO(log);
  CHECK(tie);
}

}  // namespace

TEST_CASE("call path: memcpy and glibc/<ifunc's pick> are one code entered one way, and tie" * doctest::test_suite("cli")) {
  check_tie("memcpy", Function::memcpy);
}

TEST_CASE("call path: memset and glibc/<ifunc's pick> of memset tie" * doctest::test_suite("cli")) {
  check_tie("memset", Function::memset);
}

TEST_CASE("call path: a separate repetition measures the loop's own cost right after it" * doctest::test_suite("cli")) {
  TmpDir dir;
  const ShellOut out = shell(kKex + " run memcpy --sizes 4KiB --separate --repetitions 2 -q -o " + (dir / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto all = call_entries(dir / "r.json");
  const nlohmann::json e = all.at(std::make_pair(std::string("memcpy"), uint64_t(4096)));
  for (const auto& rep : e["reps"]) CHECK(rep["harness_ticks"].get<double>() > 0);
  CHECK(e["stats"]["harness_ns"].get<double>() < e["real_time"].get<double>());
}

TEST_CASE("call path: one routine loaded as lib/ (a .so) and as asm/ (its .s) is entered the same way, and ties" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  // memcpy's ABI in rep movsb, whose speed does not hang on where its code lies: a loop's
  // can (a 16-byte movdqu loop ran 83 or 107 ns at 4 KiB from run to run, at either address).
  spit(dir / "same.s", ".text\n.globl same_copy\n.type same_copy,@function\nsame_copy:\n"
                       "  mov %rdi, %rax\n  mov %rdx, %rcx\n  rep movsb\n  ret\n.size same_copy, .-same_copy\n"
                       ".section .note.GNU-stack,\"\",@progbits\n");
  REQUIRE(shell("gcc -shared -o " + (dir / "same.so") + " " + (dir / "same.s")).status == 0);
  std::string log;
  const bool tie = holds_in_one_run([&] {
    const ShellOut out = shell(kKex + " run --load so=" + (dir / "same.so") + ":same_copy --load obj=" +
                               (dir / "same.s") + ":same_copy --sizes 256,4KiB --repetitions 9 -q --force -o " + (dir / "r.json"));
    INFO(out.text);
    REQUIRE(out.status == 0);
    const auto e = call_entries(dir / "r.json");
    bool within = true;
    log.clear();
    for (uint64_t size : {256, 4096}) {
      const double so = e.at({"lib/so", size})["real_time"].get<double>();
      const double obj = e.at({"asm/obj", size})["real_time"].get<double>();
      log += "at " + std::to_string(size) + " B: lib/so " + std::to_string(so) + " ns, asm/obj " + std::to_string(obj) + " ns\n";
      within = within && so / obj < 1.15 && obj / so < 1.15;  // two addresses: wider than one address's 1.10
    }
    return within;
  });
  INFO(log);
  CHECK(tie);
}
