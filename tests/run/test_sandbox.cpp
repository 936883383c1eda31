// The fork sandbox reports a job's death (signal, faulting instruction, address)
// even when the job dies with fs not holding glibc's thread pointer, as the
// segment probes can (docs/methodology.md §3.1).
#include <doctest/doctest.h>

#include <signal.h>

#include <cstdint>
#include <string>

#include "src/run/sandbox.hpp"

using namespace kex;

#include "tests/support/selectors.hpp"

namespace {


// fault_with_fs_broken(selector): loads the selector into fs (so fs's base is 0
// and TLS is gone), then reads address 0x10 at the instruction labelled
// kex_sandbox_test_fault_ip.
asm(".text\n"
    ".globl kex_sandbox_test_fault\n"
    "kex_sandbox_test_fault:\n"
    "  mov %edi, %fs\n"
    ".globl kex_sandbox_test_fault_ip\n"
    "kex_sandbox_test_fault_ip:\n"
    "  mov 0x10, %rax\n"
    "  ud2\n");
extern "C" [[noreturn]] void kex_sandbox_test_fault(uint32_t selector);
extern "C" const char kex_sandbox_test_fault_ip[];

/// Loads a selector beyond the GDT's limit into fs: #GP, which Linux reports as
/// SIGSEGV with si_code SI_KERNEL.
[[noreturn]] void general_protection_with_fs_broken() {
  const uint32_t sel = ss_selector(), bad = 0xfff8 | 3;
  asm volatile("mov %0, %%fs\n\tmov %1, %%fs\n\t" : : "r"(sel), "r"(bad) : "memory");
  __builtin_unreachable();
}

[[noreturn]] void spin_with_fs_broken() {
  const uint32_t sel = ss_selector();
  asm volatile("mov %0, %%fs\n\t1: pause\n\tjmp 1b\n\t" : : "r"(sel) : "memory");
  __builtin_unreachable();
}

}  // namespace

TEST_CASE("run_sandboxed reports a fault taken with fs broken, then runs the next job in a new child" *
          doctest::test_suite("sandbox")) {
  const auto out = run_sandboxed(
      3,
      [&](size_t i) -> std::string {
        if (i == 0) kex_sandbox_test_fault(ss_selector());
        if (i == 1) general_protection_with_fs_broken();
        return "job " + std::to_string(i) + " ran";
      },
      10);
  REQUIRE(out.size() == 3);
  CHECK_FALSE(out[0].finished);
  CHECK(out[0].signal == SIGSEGV);
  CHECK(out[0].si_code == SEGV_MAPERR);
  CHECK(out[0].fault_addr == 0x10);
  CHECK(out[0].fault_ip == reinterpret_cast<uint64_t>(kex_sandbox_test_fault_ip));
  CHECK(out[0].message == "killed by SIGSEGV");
  CHECK_FALSE(out[1].finished);
  CHECK(out[1].signal == SIGSEGV);
  CHECK(out[1].si_code == SI_KERNEL);
  CHECK(out[1].fault_ip != 0);
  CHECK(out[2].finished);
  CHECK(out[2].message == "job 2 ran");
}

TEST_CASE("run_sandboxed ends a job that spins with fs broken at its timeout" * doctest::test_suite("sandbox")) {
  const auto out = run_sandboxed(1, [](size_t) -> std::string { spin_with_fs_broken(); }, 1);
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].finished);
  CHECK(out[0].timed_out);
  CHECK(out[0].signal == SIGALRM);
  CHECK(out[0].fault_ip != 0);
  CHECK(out[0].message == "did not return within 1 s");
}
