// Loaded code is held (README "How loaded code is held"): a routine that forks is ended by
// the system-call filter, named; without the filter (KEX_NO_SECCOMP=1) its processes still
// die with their group and cgroup, and kex ends; a routine that blocks SIGALRM and spins is
// killed from kex past the task timeout. Code that forks runs only inside a pids cgroup of the
// test's own (tests/support/pids_cgroup.hpp), where one can be made.
#include <doctest/doctest.h>

#include <signal.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/object_files.hpp"
#include "tests/support/pids_cgroup.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// The error message of each entry of a results file, by kernel name ("" for a measured one).
std::map<std::string, std::string> errors_by_kernel(const std::string& path) {
  std::map<std::string, std::string> out;
  const nlohmann::json j = nlohmann::json::parse(slurp(path));
  for (const auto& e : j.at("benchmarks"))
    out[e["kernel"].get<std::string>()] = e.value("error_message", "");
  return out;
}

/// The pids a "grandchild PID" line of `text` names.
std::vector<pid_t> grandchildren(const std::string& text) {
  std::vector<pid_t> out;
  for (size_t at = text.find("grandchild "); at != std::string::npos; at = text.find("grandchild ", at + 1))
    out.push_back(std::stoi(text.substr(at + 11)));
  return out;
}

/// Whether process `p` is gone (or a zombie no one has reaped yet).
bool gone(pid_t p) {
  const std::string stat = slurp("/proc/" + std::to_string(p) + "/stat");
  const size_t paren = stat.rfind(')');
  return stat.empty() || (paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z');
}

}  // namespace

TEST_CASE("a loaded routine that forks in a loop is refused by name, and without the filter its processes die with kex" *
          doctest::test_suite("cli")) {
  TestCgroup cg(48);
  if (!cg.made()) {
    MESSAGE("no pids cgroup can be made here: the forking routine is not run");
    return;
  }
  TmpDir dir;
  // Parent and child both return into the verifier's loop and fork again.
  const std::string obj = assemble_text(dir, "oob.o", ".globl afork\nafork:\n  mov $57, %eax\n  syscall\n"
                                                      "  mov %rdx, %rcx\n  rep movsb\n  ret\n");
  REQUIRE(!obj.empty());
  const std::string run = kKex + " run --load x=" + obj + ":afork memcpy --sizes 4KiB --repetitions 3 --no-report -o ";
  const ShellOut filtered = shell(cg.enter() + "exec timeout -k 5 120 " + run + (dir / "r.json"));
  INFO(filtered.text);
  REQUIRE(filtered.status == 0);
  auto e = errors_by_kernel(dir / "r.json");
  CHECK(e["asm/x"].find("verification failed: made a system call a copy routine has no use for: fork at code+0x") == 0);
  CHECK(e["memcpy"].empty());
  CHECK(cg.empties_within(5));
  // Without the filter: the forks meet the pids cgroups' limits, every process of the child's
  // group and cgroup dies when the child ends, and kex ends.
  const ShellOut open = shell(cg.enter() + "KEX_NO_SECCOMP=1 exec timeout -k 5 120 " + run + (dir / "r2.json"));
  INFO(open.text);
  CHECK(open.status != 124);
  CHECK(open.text.find("KEX_NO_SECCOMP=1: code runs in its processes without a system-call filter") !=
        std::string::npos);
  CHECK(cg.empties_within(0.5));  // kex removed each child's cgroup: nothing of it was left when kex exited
}

TEST_CASE("a shared object's routine that leaves a sleeping child is refused by name, and without the filter kex still ends" *
          doctest::test_suite("cli")) {
  TestCgroup cg(48);  // where one can be made: only one fork per process here
  TmpDir dir;
  const std::string so = build_so(dir, "sleeper",
                                  "#include <stdio.h>\n#include <unistd.h>\n"
                                  "static int forked;\n"
                                  "void *sleeper(void *d, const void *s, unsigned long n) {\n"
                                  "  if (!forked) { forked = 1; if (fork() == 0) {\n"
                                  "    dprintf(2, \"grandchild %d\\n\", getpid()); sleep(1000); _exit(0); } }\n"
                                  "  char *a = d; const char *b = s;\n"
                                  "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n  return d;\n}\n");
  const std::string run = (cg.made() ? cg.enter() : "") + "exec timeout -k 5 120 " + kKex + " run --load s=" + so +
                          ":sleeper memcpy --sizes 4KiB --repetitions 3 --no-report -o ";
  const ShellOut filtered = shell("sh -c '" + run + (dir / "r.json") + "'");
  INFO(filtered.text);
  REQUIRE(filtered.status == 0);
  CHECK(errors_by_kernel(dir / "r.json")["lib/s"].find(
            "verification failed: made a system call a copy routine has no use for: clone at 0x") == 0);
  CHECK(grandchildren(filtered.text).empty());
  // Without the filter the child forks; its pipe's other holder dies with its group when the child ends.
  const ShellOut open = shell("KEX_NO_SECCOMP=1 sh -c '" + run + (dir / "r2.json") + "'");
  INFO(open.text);
  CHECK(open.status == 0);
  CHECK(errors_by_kernel(dir / "r2.json")["lib/s"].empty());  // measured: it copies right
  const std::vector<pid_t> born = grandchildren(open.text);
  CHECK(!born.empty());
  for (pid_t p : born) CHECK(gone(p));
}

TEST_CASE("a loaded routine that ignores SIGINT does not keep a stopped run going: kex stops after the current task" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string so = build_so(dir, "deafint",
                                  "#include <signal.h>\n"
                                  "void *deafint(void *d, const void *s, unsigned long n) {\n"
                                  "  signal(SIGINT, SIG_IGN); signal(SIGTERM, SIG_IGN);\n"
                                  "  char *a = d; const char *b = s;\n"
                                  "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n  return d;\n}\n");
  const std::string out = dir / "r.json";
  KexChild kex({"run", "--load", "x=" + so + ":deafint", "--sizes", "4KiB,8KiB,16KiB,32KiB", "--repetitions", "400",
                "--separate", "--no-report", "-o", out},
               dir / "log");
  REQUIRE_MESSAGE(wait_for_reps(out + ".journal", 20), slurp(dir / "log"));
  const auto [status, seconds] = kex.stop({SIGINT});
  INFO(slurp(dir / "log"));
  CHECK(status == 130);
  CHECK(seconds < 5);
  CHECK(lines_with(out + ".journal", "{\"rep\":") < 1600);
}

TEST_CASE("a shared object's constructor cannot have a descriptor signal kex: kex show refuses it with one line" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  // fcntl(2): a pipe owned by kex with O_ASYNC and F_SETSIG sends kex SIGKILL on input.
  const std::string so = build_so(dir, "showkill",
                                  "#define _GNU_SOURCE\n#include <fcntl.h>\n#include <signal.h>\n#include <unistd.h>\n"
                                  "__attribute__((constructor)) static void own(void) {\n"
                                  "  int p[2]; if (pipe(p) != 0) return;\n"
                                  "  fcntl(p[0], F_SETOWN, getppid()); fcntl(p[0], F_SETSIG, SIGKILL);\n"
                                  "  fcntl(p[0], F_SETFL, O_ASYNC); (void)!write(p[1], \"x\", 1);\n}\n"
                                  "void *my_copy(void *d, const void *s, unsigned long n) {\n"
                                  "  char *a = d; const char *b = s;\n"
                                  "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n  return d;\n}\n");
  const ShellOut r = shell("cd " + dir.path + " && exec timeout -k 5 60 " + kKex +
                           " show lib/s --load s=./showkill.so:my_copy");
  INFO(r.text);
  CHECK(r.status == 2);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1);
  CHECK(r.text.find("made a system call a copy routine has no use for: fcntl at 0x") != std::string::npos);
}

TEST_CASE("a loaded routine that exits with status 0 while measured fails its point, and the run measures the rest" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  // The verifier calls it fewer than 2000 times; a measuring worker more.
  const std::string so = build_so(dir, "exit0",
                                  "#include <unistd.h>\nstatic long c;\n"
                                  "void *my_copy(void *d, const void *s, unsigned long n) {\n"
                                  "  if (++c > 2000) _exit(0);\n  char *a = d; const char *b = s;\n"
                                  "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n  return d;\n}\n");
  const std::string out = dir / "r.json";
  const ShellOut r = shell("exec timeout -k 5 120 " + kKex + " run memcpy rep_movsb --load x=" + so +
                           ":my_copy --sizes 64,256,4KiB --repetitions 3 --no-report -o " + out);
  INFO(r.text);
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(slurp(out));
  std::map<std::string, int> entries, failed;
  for (const auto& e : j.at("benchmarks")) {
    const std::string k = e.at("kernel").get<std::string>(), why = e.value("error_message", "");
    ++entries[k];
    if (!why.empty()) {
      CHECK(why == "ended the measuring worker with exit status 0 instead of returning while measuring");
      ++failed[k];
    }
  }
  CHECK(entries == std::map<std::string, int>{{"lib/x", 3}, {"memcpy", 3}, {"rep_movsb", 3}});
  CHECK(failed["lib/x"] >= 1);
  CHECK(failed["memcpy"] + failed["rep_movsb"] == 0);
  CHECK(r.text.find(std::to_string(failed["lib/x"]) + " failed (see skip_message and error_message in the JSON)") !=
        std::string::npos);
}
