// The assembler kex runs on a user's .s (src/run/object_assemble.hpp) is held: a file-size
// limit (the object's 64 MiB, or a smaller ulimit -f) and a folder of its own in $TMPDIR,
// removed on every way out; its refusal names the user's file; Ctrl-C stops kex during it.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "tests/support/child.hpp"
#include "tests/support/object_files.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("a .fill bomb under a small ulimit -f: as is stopped at the limit, the error names the source, no temporary left" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  REQUIRE(mkdir((dir / "tmp").c_str(), 0700) == 0);
  const std::string src = write_text(dir, "fill1g.s", ".globl acopy\nacopy:\n  ret\n  .fill 1500000000,1,0xcc\n");
  const auto t0 = std::chrono::steady_clock::now();
  const ShellOut out = shell("ulimit -f 10240; TMPDIR=" + (dir / "tmp") + " timeout -k 5 60 " + kKex + " show asm:" + src + ":acopy");
  INFO(out.text);
  CHECK(out.status == 2);
  CHECK(line_count(out.text) == 1);
  // 10240 blocks: 5 MiB in dash's 512-byte ones, 10 MiB in bash's KiB.
  CHECK(out.text.find(src + ": the object as --64 writes is larger than ") != std::string::npos);
  CHECK(out.text.find(" MiB, the file-size limit (ulimit -f): stopped there") != std::string::npos);
  CHECK(out.text.find("kex-as-") == std::string::npos);  // not the temporary's name
  CHECK(dir_entries(dir / "tmp").empty());
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  // Without a smaller ulimit -f, the object's own cap holds: 64 MiB, not 1.5 GB.
  const ShellOut capped = shell("TMPDIR=" + (dir / "tmp") + " timeout -k 5 60 " + kKex + " show asm:" + src + ":acopy");
  INFO(capped.text);
  CHECK(capped.status == 2);
  CHECK(capped.text.find(src + ": the object as --64 writes is larger than 64 MiB, the most kex loads: stopped there") !=
        std::string::npos);
  CHECK(dir_entries(dir / "tmp").empty());
}

TEST_CASE("Ctrl-C stops kex while as runs: the assembler's group is killed and its folder removed" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  REQUIRE(mkdir((dir / "tmp").c_str(), 0700) == 0);
  REQUIRE(mkdir((dir / "bin").c_str(), 0700) == 0);
  // A fake as that writes its own pid, leaves a child writing its pid, then waits for it.
  write_text(dir, "bin/as", "#!/bin/sh\necho $$ > \"" + (dir / "as.self") + "\"\nsleep 600 &\necho $! > \"" +
                                (dir / "as.pid") + "\"\nwait\n");
  REQUIRE(run_sh("chmod +x '" + (dir / "bin/as") + "'") == 0);
  const std::string src = write_text(dir, "k.s", ".globl k\nk:\n  ret\n");
  setenv("KEX_TEST_PATH_SAVED", getenv("PATH"), 1);
  setenv("PATH", (dir / "bin" + std::string(":") + getenv("PATH")).c_str(), 1);
  setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  KexChild kex({"show", "asm:" + src + ":k"}, dir / "log");
  setenv("PATH", getenv("KEX_TEST_PATH_SAVED"), 1);
  unsetenv("TMPDIR");
  REQUIRE(wait_until([&] { return !slurp(dir / "as.pid").empty(); }));
  const auto [status, seconds] = kex.stop({SIGINT});
  INFO(slurp(dir / "log"));
  CHECK(status == 128 + SIGINT);
  CHECK(seconds < 2);
  const pid_t sleeper = std::stoi(slurp(dir / "as.pid"));
  CHECK(wait_until([&] {
    const std::string stat = slurp("/proc/" + std::to_string(sleeper) + "/stat");
    return stat.empty() || stat.find(") Z") != std::string::npos;
  }, 5));
  CHECK(dir_entries(dir / "tmp").empty());
  // kex killed with SIGKILL: the assembler dies with it (PR_SET_PDEATHSIG).
  std::remove((dir / "as.pid").c_str());
  setenv("PATH", (dir / "bin" + std::string(":") + getenv("KEX_TEST_PATH_SAVED")).c_str(), 1);
  setenv("TMPDIR", dir.path.c_str(), 1);  // the folder a killed kex leaves goes with the test's
  KexChild killed({"show", "asm:" + src + ":k"}, dir / "log2");
  setenv("PATH", getenv("KEX_TEST_PATH_SAVED"), 1);
  unsetenv("TMPDIR");
  REQUIRE(wait_until([&] { return !slurp(dir / "as.pid").empty(); }));
  const pid_t as = std::stoi(slurp(dir / "as.self"));
  kill(killed.pid, SIGKILL);
  killed.wait();
  CHECK(wait_until([&] {
    const std::string stat = slurp("/proc/" + std::to_string(as) + "/stat");
    return stat.empty() || stat.find(") Z") != std::string::npos;
  }, 5));
  kill(-as, SIGKILL);  // its sleep, left in its group: no kex is there to kill it
}

TEST_CASE("the assembler and gcc run with an address-space limit of 2 GiB: a source that makes them grow cannot take "
          "the machine's memory" * doctest::test_suite("cli")) {
  TmpDir dir;
  REQUIRE(mkdir((dir / "bin").c_str(), 0700) == 0);
  // Fakes that say their limit (ulimit -v, in KiB) and fail: kex shows what they said.
  for (const char* tool : {"as", "gcc"}) {
    write_text(dir, std::string("bin/") + tool, "#!/bin/sh\necho \"limit $(ulimit -v)\" >&2\nexit 1\n");
    REQUIRE(run_sh("chmod +x '" + (dir / (std::string("bin/") + tool)) + "'") == 0);
  }
  const std::string s = write_text(dir, "k.s", ".globl k\nk:\n  ret\n");
  const std::string cpp = write_text(dir, "k.S", ".globl k\nk:\n  ret\n");
  const std::string path = "PATH='" + (dir / "bin") + "':\"$PATH\" ";
  const ShellOut as = shell(path + "timeout -k 5 60 " + kKex + " show asm:" + s + ":k");
  INFO(as.text);
  CHECK(as.status == 2);
  CHECK(as.text == "kex: " + s + ": as --64 failed (exit status 1): limit 2097152\n");
  const ShellOut gcc = shell(path + "timeout -k 5 60 " + kKex + " show asm:" + cpp + ":k");
  INFO(gcc.text);
  CHECK(gcc.status == 2);
  CHECK(gcc.text == "kex: " + cpp + ": gcc -c failed (exit status 1): limit 2097152\n");
  // A smaller limit of the user's stays. (kex built with AddressSanitizer cannot start under
  // ulimit -v: its shadow memory is terabytes of address space.)
#ifdef __SANITIZE_ADDRESS__
  MESSAGE("the smaller limit is not tried: kex is built with AddressSanitizer");
  return;
#endif
  const ShellOut smaller = shell("ulimit -v 1048576; " + path + "timeout -k 5 60 " + kKex + " show asm:" + s + ":k");
  INFO(smaller.text);
  CHECK(smaller.text == "kex: " + s + ": as --64 failed (exit status 1): limit 1048576\n");
}
