// The fork sandbox reports a job's death (signal, faulting instruction, address)
// even when the job dies with fs not holding glibc's thread pointer, as the
// segment probes can (docs/methodology.md §3.1).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <linux/sockios.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/run/contain.hpp"
#include "src/run/sandbox.hpp"
#include "tests/support/tmpdir.hpp"
#include "tests/support/watchdog.hpp"

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

namespace {

/// Seconds `f` took.
template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("run_sandboxed: a job that forks is ended by the system-call filter, which names the call" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;  // said once on stderr
  const Watchdog dog(60);
  const auto out = run_sandboxed(
      4,
      [](size_t i) -> std::string {
        if (i == 0) {
          const long pid = syscall(SYS_fork);  // without the filter: one more process, which exits
          if (pid == 0) _exit(0);
          return "forked";
        }
        if (i == 1) return kill(getppid(), 0) == 0 ? "signalled kex" : "kill refused";
        if (i == 2) {  // fork through the x32 entry (x86-64's, with bit 30 set in the number)
          long pid = 57 | 0x40000000;
          asm volatile("syscall" : "+a"(pid) : : "rcx", "r11", "memory");
          if (pid == 0) _exit(0);
        }
        return "job " + std::to_string(i) + " ran";
      },
      10);
  REQUIRE(out.size() == 4);
  CHECK_FALSE(out[0].finished);
  CHECK(out[0].signal == SIGSYS);
  CHECK(out[0].message == "made a system call a copy routine has no use for: fork");
  CHECK(out[0].fault_ip != 0);
  CHECK_FALSE(out[1].finished);
  CHECK(out[1].message == "made a system call a copy routine has no use for: kill");
  CHECK(out[2].message == "made a system call a copy routine has no use for: fork (x32)");
  CHECK(out[3].finished);
  CHECK(out[3].message == "job 3 ran");
}

TEST_CASE("run_sandboxed: kernels open no file, a job that opens shared objects reads them and writes none" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  const auto open_passwd = [](size_t) -> std::string {
    const int fd = open("/etc/passwd", O_RDONLY);
    if (fd >= 0) close(fd);
    return fd >= 0 ? "opened" : "not opened";
  };
  const auto kernels = run_sandboxed(1, open_passwd, 10).at(0);
  CHECK(kernels.message == "made a system call a copy routine has no use for: openat");
  const auto loading = run_sandboxed(1, open_passwd, 10, nullptr, CallFilter::loading).at(0);
  CHECK(loading.finished);
  CHECK(loading.message == "opened");
  TmpDir dir;
  const std::string path = dir / "written";
  const auto write = run_sandboxed(
      1, [&](size_t) -> std::string { return open(path.c_str(), O_WRONLY | O_CREAT, 0644) >= 0 ? "created" : "no"; },
      10, nullptr, CallFilter::loading).at(0);
  CHECK(write.message == "made a system call a copy routine has no use for: openat");
  CHECK(access(path.c_str(), F_OK) != 0);
}

TEST_CASE("run_sandboxed: a job that blocks SIGALRM and spins is killed from kex past its timeout" *
          doctest::test_suite("sandbox")) {
  const Watchdog dog(30);
  std::vector<SandboxOutcome> out;
  const double took = seconds_of([&] {
    out = run_sandboxed(
        2,
        [](size_t i) -> std::string {
          if (i == 1) return "job 1 ran";
          sigset_t all;
          sigfillset(&all);
          sigprocmask(SIG_BLOCK, &all, nullptr);
          for (;;) asm volatile("pause");
        },
        1);
  });
  REQUIRE(out.size() == 2);
  CHECK_FALSE(out[0].finished);
  CHECK(out[0].timed_out);
  CHECK(out[0].message == "did not return within 1 s (its alarm did not end it: killed by kex)");
  CHECK(out[1].finished);
  CHECK(out[1].message == "job 1 ran");
  CHECK(took < 1 + kDeadlineGrace + 2);
}

TEST_CASE("run_sandboxed: each child is in a process group of its own, gone when run_sandboxed returns" *
          doctest::test_suite("sandbox")) {
  const auto out = run_sandboxed(
      1, [](size_t) { return std::to_string(getpgrp() == getpid()) + " " + std::to_string(getpid()); }, 10).at(0);
  REQUIRE(out.finished);
  CHECK(out.message.rfind("1 ", 0) == 0);
  const pid_t child = std::stoi(out.message.substr(2));
  CHECK(kill(child, 0) != 0);
  CHECK(kill(-child, 0) != 0);
}

TEST_CASE("run_sandboxed: a job that writes into the pipe to kex is killed and blamed, not believed" *
          doctest::test_suite("sandbox")) {
  const Watchdog dog(60);
  const auto out = run_sandboxed(
      3,
      [](size_t i) -> std::string {
        if (i == 1) return "job 1 ran";
        // Bytes that are no message of the child's, on every descriptor it may hold: the pipe among them.
        const std::string junk(64, '\x7f');
        for (int fd = 3; fd < 64; ++fd) (void)!write(fd, junk.data(), junk.size());
        for (;;) pause();
      },
      10);
  REQUIRE(out.size() == 3);
  CHECK_FALSE(out[0].finished);
  CHECK(out[0].message == "wrote into the pipe to kex (a message kex does not write): killed by kex");
  CHECK(out[1].finished);
  CHECK(out[1].message == "job 1 ran");
  CHECK_FALSE(out[2].finished);
}

TEST_CASE("run_sandboxed: code may not type into the terminal, keep living after kex, or raise its limits" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  const auto out = run_sandboxed(
      4,
      [](size_t i) -> std::string {
        char c = 'x';
        if (i == 0) ioctl(2, TIOCSTI, &c);
        if (i == 1) prctl(PR_SET_PDEATHSIG, 0);
        if (i == 2) {
          const rlimit big{RLIM_INFINITY, RLIM_INFINITY};
          setrlimit(RLIMIT_FSIZE, &big);
        }
        rlimit now{};
        getrlimit(RLIMIT_FSIZE, &now);  // reading a limit is allowed
        return "fsize " + std::to_string(now.rlim_cur);
      },
      10);
  REQUIRE(out.size() == 4);
  CHECK(out[0].message == "made a system call a copy routine has no use for: ioctl");
  CHECK(out[1].message == "made a system call a copy routine has no use for: prctl");
  CHECK(out[2].message == "made a system call a copy routine has no use for: prlimit64");
  CHECK(out[3].finished);
  CHECK(out[3].message == "fsize 0");
}

TEST_CASE("run_sandboxed: a job that throws answers with the error, and never unwinds into the caller's code" *
          doctest::test_suite("sandbox")) {
  const pid_t me = getpid();
  const auto out = run_sandboxed(
      2, [](size_t i) -> std::string { return i == 0 ? throw std::runtime_error("boom") : "job 1 ran"; }, 10);
  REQUIRE(getpid() == me);  // not a child that came back through the exception
  REQUIRE(out.size() == 2);
  CHECK(out[0].finished);
  CHECK(out[0].message == "the verifying process failed: boom");
  CHECK(out[1].message == "job 1 ran");
}

TEST_CASE("run_sandboxed: code may not make a descriptor signal kex (fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG, O_ASYNC, "
          "ioctl FIOSETOWN, SIOCSPGRP) nor open perf events" * doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  const Watchdog dog(60);
  // Without the filter each call succeeds or fails harmlessly: an owner is set, or O_ASYNC, never both.
  const auto out = run_sandboxed(
      8,
      [](size_t i) -> std::string {
        int p[2];
        if (pipe(p) != 0) return "no pipe";
        int kex = getppid();
        f_owner_ex owner{F_OWNER_PID, kex};
        if (i == 0) fcntl(p[0], F_SETOWN, kex);
        if (i == 1) fcntl(p[0], F_SETOWN_EX, &owner);
        if (i == 2) fcntl(p[0], F_SETSIG, SIGSTOP);
        if (i == 3) fcntl(p[0], F_SETFL, O_ASYNC);
        if (i == 4) ioctl(p[0], FIOSETOWN, &kex);
        if (i == 5) ioctl(p[0], SIOCSPGRP, &kex);
        if (i == 6) {
          perf_event_attr a{};
          a.type = PERF_TYPE_SOFTWARE;
          a.size = sizeof a;
          a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
          const long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
          if (fd >= 0) close(int(fd));
        }
        // Reading the flags and setting O_NONBLOCK stay allowed.
        const int fl = fcntl(p[0], F_GETFL);
        const bool nonblock = fcntl(p[0], F_SETFL, fl | O_NONBLOCK) == 0;
        return "job " + std::to_string(i) + " ran" + (nonblock ? "" : " (no F_SETFL)");
      },
      10);
  REQUIRE(out.size() == 8);
  const std::string refused = "made a system call a copy routine has no use for: ";
  for (size_t i = 0; i < 4; ++i) CHECK(out[i].message == refused + "fcntl");
  CHECK(out[4].message == refused + "ioctl");
  CHECK(out[5].message == refused + "ioctl");
  CHECK(out[6].message == refused + "perf_event_open");
  CHECK(out[7].finished);
  CHECK(out[7].message == "job 7 ran");
}

TEST_CASE("run_sandboxed: code may not change its user or group ids or capabilities (which clears PR_SET_PDEATHSIG)" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  // Each call without the filter changes nothing: -1 keeps an id, the current fsuid and groups are set again.
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"setuid", [] { syscall(SYS_setuid, geteuid()); }},
      {"setgid", [] { syscall(SYS_setgid, getegid()); }},
      {"setreuid", [] { syscall(SYS_setreuid, -1, -1); }},
      {"setregid", [] { syscall(SYS_setregid, -1, -1); }},
      {"setresuid", [] { syscall(SYS_setresuid, -1, -1, -1); }},
      {"setresgid", [] { syscall(SYS_setresgid, -1, -1, -1); }},
      {"setfsuid", [] { syscall(SYS_setfsuid, -1); }},
      {"setfsgid", [] { syscall(SYS_setfsgid, -1); }},
      {"setgroups", [] {
         gid_t g[64];
         const int n = getgroups(64, g);
         if (n >= 0) syscall(SYS_setgroups, n, g);
       }},
      {"capset", [] {
         __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
         __user_cap_data_struct d[2]{};
         if (syscall(SYS_capget, &h, d) == 0) syscall(SYS_capset, &h, d);
       }},
  };
  const auto out = run_sandboxed(
      calls.size() + 1,
      [&](size_t i) -> std::string {
        if (i < calls.size()) calls[i].second();
        return "job " + std::to_string(i) + " ran";
      },
      10);
  REQUIRE(out.size() == calls.size() + 1);
  for (size_t i = 0; i < calls.size(); ++i)
    CHECK(out[i].message == "made a system call a copy routine has no use for: " + calls[i].first);
  CHECK(out.back().finished);
}

TEST_CASE("run_sandboxed: of ioctl only requests that read a terminal's state are allowed: no terminal, file flag or "
          "freeze is set, while loading or running" * doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  // On a pipe each request fails without the filter (ENOTTY or EOPNOTSUPP): nothing changes.
  const std::vector<std::pair<unsigned long, const char*>> refused = {
      {TCSETS, "TCSETS"},       {TCSETSW, "TCSETSW"},     {TCSETSF, "TCSETSF"},   {TIOCSPGRP, "TIOCSPGRP"},
      {TIOCSCTTY, "TIOCSCTTY"}, {TIOCNOTTY, "TIOCNOTTY"}, {TIOCSWINSZ, "TIOCSWINSZ"},
      {FS_IOC_SETFLAGS, "FS_IOC_SETFLAGS"}, {FIONBIO, "FIONBIO"}, {0x5400 | 0x77, "an unknown request"}};
  const auto job = [&](size_t i) -> std::string {
    int p[2];
    if (pipe(p) != 0) return "no pipe";
    termios t{};
    int n = 0;
    if (i < refused.size()) {
      ioctl(p[0], refused[i].first, &t);
      return std::string(refused[i].second) + " allowed";
    }
    // What isatty, tcgetattr and stdio ask, and closing on exec.
    winsize w{};
    ioctl(2, TCGETS, &t);
    ioctl(2, TIOCGWINSZ, &w);
    ioctl(p[0], FIONREAD, &n);
    ioctl(p[0], FIOCLEX);
    ioctl(p[0], FIONCLEX);
    ioctl(2, TIOCGPGRP, &n);
    return "reads allowed";
  };
  const auto out = run_sandboxed(refused.size() + 1, job, 10);
  REQUIRE(out.size() == refused.size() + 1);
  for (size_t i = 0; i < refused.size(); ++i) {
    CAPTURE(refused[i].second);
    CHECK(out[i].message == "made a system call a copy routine has no use for: ioctl");
  }
  CHECK(out.back().message == "reads allowed");
  // Through the x32 entry (514 with bit 30), the same. (The i386 entry, int 0x80, is the same
  // program's third branch; a kernel without IA32 emulation, as this test's may be, raises SIGSEGV there.)
  const auto x32 = run_sandboxed(
      1,
      [](size_t) -> std::string {
        int p[2];
        if (pipe(p) != 0) return "no pipe";
        long r = 514 | 0x40000000;
        asm volatile("syscall" : "+a"(r) : "D"(p[0]), "S"(TCSETS), "d"(0) : "rcx", "r11", "memory");
        return "allowed";
      },
      10).at(0);
  CHECK(x32.message == "made a system call a copy routine has no use for: ioctl (x32)");
  // A constructor (the loading filter) is held the same way.
  const auto loading = run_sandboxed(1, [&](size_t) { return job(0); }, 10, nullptr, CallFilter::loading).at(0);
  CHECK(loading.message == "made a system call a copy routine has no use for: ioctl");
  CHECK(run_sandboxed(1, [&](size_t) { return job(refused.size()); }, 10, nullptr, CallFilter::loading)
            .at(0).message == "reads allowed");
}

TEST_CASE("run_sandboxed: code may move only its own threads between CPUs, not kex or another process" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  const auto out = run_sandboxed(
      2,
      [](size_t i) -> std::string {
        // Without the filter: kex's mask is set to what it is, nothing changes.
        const pid_t who = i == 0 ? getppid() : 0;
        cpu_set_t mask;
        if (sched_getaffinity(who, sizeof mask, &mask) != 0) return "no mask";
        return sched_setaffinity(who, sizeof mask, &mask) == 0 ? "set" : "not set";
      },
      10);
  CHECK(out[0].message == "made a system call a copy routine has no use for: sched_setaffinity");
  CHECK(out[1].message == "set");
}

TEST_CASE("run_sandboxed: code may not lock memory (mlock, mlock2, mlockall), which no limit of kex's frees" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  static char page[4096];
  const auto out = run_sandboxed(
      4,
      [](size_t i) -> std::string {
        // Without the filter each locks one page, or nothing yet (MCL_FUTURE), in a child about
        // to exit. The system calls themselves: AddressSanitizer makes mlock and mlockall no-ops.
        if (i == 0) syscall(SYS_mlock, page, sizeof page);
        if (i == 1) syscall(SYS_mlock2, page, sizeof page, 0);
        if (i == 2) syscall(SYS_mlockall, MCL_FUTURE);
        return "job " + std::to_string(i) + " ran";
      },
      10);
  CHECK(out[0].message == "made a system call a copy routine has no use for: mlock");
  CHECK(out[1].message == "made a system call a copy routine has no use for: mlock2");
  CHECK(out[2].message == "made a system call a copy routine has no use for: mlockall");
  CHECK(out[3].message == "job 3 ran");
}

TEST_CASE("run_sandboxed: calls newer than the filter's names are refused by number, and memory locked through mmap" *
          doctest::test_suite("sandbox")) {
  if (!call_filter_available()) return;
  // 452 fchmodat2, 463 setxattrat, 469 file_setattr (Linux 6.6..6.17): each changed a file by
  // path through a name-by-name filter; with bad arguments here, each is harmless unfiltered.
  // 510: no call yet (ENOSYS unfiltered). Then mmap with MAP_LOCKED; last, a job that runs.
  const std::vector<long> numbers = {452, 463, 469, 510};
  const auto out = run_sandboxed(
      numbers.size() + 2,
      [&](size_t i) -> std::string {
        if (i < numbers.size()) syscall(numbers[i], -1, nullptr, 0, 0, 0);
        if (i == numbers.size()) {
          void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
          if (p != MAP_FAILED) munmap(p, 4096);
        }
        return "job " + std::to_string(i) + " ran";
      },
      10);
  REQUIRE(out.size() == numbers.size() + 2);
  const std::string refused = "made a system call a copy routine has no use for: ";
  for (size_t i = 0; i < numbers.size(); ++i) {
    INFO("call " << numbers[i] << ": " << out[i].message);
    CHECK(out[i].message.starts_with(refused));
  }
  CHECK(out[numbers.size()].message == refused + "mmap");
  CHECK(out.back().finished);
  CHECK(out.back().message == "job " + std::to_string(numbers.size() + 1) + " ran");
}
