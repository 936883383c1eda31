// Your own implementation (`--load`, a config's "load"): shared objects built here with
// gcc are verified and timed beside kex's kernels, opened only in the processes that
// run kernels; a wrong one is refused with the first differing byte or the signal, and
// the run goes on; bad options are one line, exit 2; a results file or journal loads nothing.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

const char* kCopy = "void *NAME(void *d, const void *s, unsigned long n) {\n"
                    "  char *a = d; const char *b = s;\n"
                    "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n"
                    "  TAIL\n  return d;\n}\n";

/// kCopy named `name`, with `tail` after the loop.
std::string copy_source(const std::string& name, const std::string& tail) {
  std::string s = kCopy;
  s.replace(s.find("NAME"), 4, name);
  s.replace(s.find("TAIL"), 4, tail);
  return s;
}

/// The entries of a results file by kernel name (one size each here).
std::map<std::string, nlohmann::json> by_kernel(const std::string& path) {
  std::map<std::string, nlohmann::json> out;
  const auto j = nlohmann::json::parse(slurp(path));
  for (const auto& e : j["benchmarks"]) out[e["kernel"].get<std::string>()] = e;
  return out;
}

}  // namespace

TEST_CASE("kex run --load: the correct copy is timed, the wrong ones refused with the reason, the run goes on" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string good = build_so(dir, "good", copy_source("good", "")),
                    off = build_so(dir, "off", copy_source("off", "if (n) a[n - 1] ^= 1;")),
                    past = build_so(dir, "past", copy_source("past", "if (n) { volatile char x = b[n]; (void)x; }")),
                    crash = build_so(dir, "crash", copy_source("crash", "*(volatile int *)0 = 0;"));
  // Its constructor says on stderr (a pipe here) which process it runs in: never kex's own.
  // It may not open a file to write (the system-call filter), nor write to one (RLIMIT_FSIZE).
  std::ofstream(dir / "ctor.c") << "#include <stdio.h>\n#include <unistd.h>\n"
                                   "__attribute__((constructor)) static void hello(void) {\n"
                                   "  dprintf(2, \"ctor in %d\\n\", getpid());\n}\n"
                                << copy_source("ctor_copy", "");
  REQUIRE(shell("gcc -shared -fPIC -O1 -fno-builtin -o " + (dir / "ctor.so") + " " + (dir / "ctor.c")).status == 0);
  const ShellOut out = shell_stdout("sh -c 'echo $$; exec " + kKex +
                                    " run memcpy --sizes 4KiB --repetitions 3 --no-report --load good=" + good +
                                    ":good --load off=" + off + ":off --load past=" + past + ":past --load crash=" +
                                    crash + ":crash --load ctor=" + (dir / "ctor.so") + ":ctor_copy -o " +
                                    (dir / "r.json") + " 2>&1 >/dev/null'");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const std::string kex_pid = out.text.substr(0, out.text.find('\n'));
  CHECK(out.text.find("ctor in ") != std::string::npos);  // it ran: in the processes that verify and measure
  CHECK(out.text.find("ctor in " + kex_pid + "\n") == std::string::npos);
  auto e = by_kernel(dir / "r.json");
  REQUIRE(e.count("lib/good"));
  CHECK(e["lib/good"]["kind"] == "implementation");
  CHECK(e["lib/good"]["implementation"]["source"] == "lib");
  CHECK(e["lib/good"]["implementation"]["label"] == "good");
  CHECK(e["lib/good"]["implementation"]["symbol"] == "good");
  CHECK(e["lib/good"]["implementation"]["path"] == good);
  CHECK(e["lib/good"]["implementation"]["sha256"] == shell("sha256sum " + good + " | cut -c1-64").text.substr(0, 64));
  CHECK(e["lib/good"].contains("real_time"));
  CHECK(e["lib/ctor"].contains("real_time"));
  CHECK(e["memcpy"].contains("real_time"));  // the run went on past the refused ones
  const std::string off_msg = e["lib/off"]["error_message"];
  CHECK(off_msg.find("verification failed: size 1, ") != std::string::npos);
  CHECK(off_msg.find("byte 0 is ") != std::string::npos);
  CHECK(e["lib/past"]["error_message"].get<std::string>().find("killed by SIGSEGV") != std::string::npos);
  CHECK(e["lib/crash"]["error_message"].get<std::string>().find("killed by SIGSEGV") != std::string::npos);
  CHECK(e["lib/crash"]["error_message"].get<std::string>().find("touching 0x0 while verifying") != std::string::npos);
  // Trust: a results file naming loaded code is data. Reading it loads nothing (the
  // constructor would say so), and emit refuses the name plainly.
  const ShellOut summary = shell(kKex + " summary " + (dir / "r.json"));
  CHECK(summary.status == 0);
  CHECK(summary.text.find("ctor in ") == std::string::npos);
  const ShellOut csv = shell(kKex + " export " + (dir / "r.json") + " --format csv -o -");
  CHECK(csv.status == 0);
  CHECK(csv.text.find("lib/good") != std::string::npos);
  CHECK(csv.text.find("ctor in ") == std::string::npos);
  const ShellOut cmp = shell(kKex + " compare " + (dir / "r.json") + " " + (dir / "r.json"));
  CHECK(cmp.status == 0);
  CHECK(cmp.text.find("ctor in ") == std::string::npos);
  const ShellOut emit = shell(kKex + " emit --dispatch lib/ctor --op copy --format c");
  CHECK(emit.status == 2);
  CHECK(emit.text.find("'lib/ctor' is a shared object's symbol, which kex calls through a pointer it fills at run time: "
                       "there are no bytes of it to emit") !=
        std::string::npos);
  CHECK(emit.text.find("ctor in ") == std::string::npos);
}

TEST_CASE("a config's load: a hang at 2 MiB is the task timeout, the 4 KiB point is timed, and blocking SIGALRM changes nothing" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string spin = "if (n > (1 << 20)) for (;;) __asm__ volatile(\"\");";
  const std::string so = build_so(dir, "hang", copy_source("hang", spin));
  // It blocks every signal first: the worker's alarm never ends it, kex's deadline does.
  const std::string deaf = build_so(dir, "deaf", "#include <signal.h>\n" +
      copy_source("deaf", "if (n > (1 << 20)) { sigset_t all; sigfillset(&all); sigprocmask(SIG_BLOCK, &all, 0); }\n" + spin));
  const nlohmann::json config = {
      {"sizes", {4096, 2 << 20}},  // verification tries 2 MiB at 1 MiB (sweep.cpp's kVerifyCap)
      {"baselines", false},
      {"repetitions", 2},
      {"protocol", {{"task_timeout_s", 1}}},
      {"load", {{{"name", "hang"}, {"path", so}, {"symbol", "hang"}, {"function", "copy"}},
                {{"name", "deaf"}, {"path", deaf}, {"symbol", "deaf"}, {"function", "copy"}}}}};
  std::ofstream(dir / "c.json") << config.dump();
  const ShellOut out = shell("timeout -k 5 120 " + kKex + " run " + (dir / "c.json") + " --no-report -o " + (dir / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(slurp(dir / "r.json"));
  std::map<std::pair<std::string, uint64_t>, nlohmann::json> at;
  for (const auto& e : j["benchmarks"]) at[{e["kernel"], e["size"]}] = e;
  CHECK(at[{"lib/hang", 4096}].contains("real_time"));
  CHECK(at[{"lib/hang", 2 << 20}]["error_message"].get<std::string>().find("did not return within 1 s while measuring") !=
        std::string::npos);
  CHECK(at[{"lib/deaf", 4096}].contains("real_time"));
  CHECK(at[{"lib/deaf", 2 << 20}]["error_message"].get<std::string>().find(
            "did not return within 1 s (its alarm did not end it: killed by kex) while measuring") != std::string::npos);
}

TEST_CASE("kex run --load: bad input is one line and exit 2" * doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string so = build_so(dir, "g", copy_source("g", ""));
  const auto refused = [](const std::string& args, const std::string& says) {
    const ShellOut out = shell(kKex + " run --sizes 4KiB " + args);
    INFO(args, " -> ", out.text);
    CHECK(out.status == 2);
    CHECK(line_count(out.text) == 1);
    CHECK(out.text.find(says) != std::string::npos);
  };
  refused("--load x=" + (dir / "none.so") + ":g", "none.so: cannot read");
  refused("--load x=" + so + ":nope", "no symbol nope: ");
  refused("--load x=" + (dir / "g.c") + ":g", "PATH '" + (dir / "g.c") + "': allowed: a shared object");
  refused("--load 'bad name=" + so + ":g'", "NAME 'bad name': allowed: 1..64 letters");
  refused("--load x=" + so + ":g --load x=" + so + ":g", "--load: NAME 'x' is given twice");
  refused("--load x=" + so + ":1g:clear", "SYMBOL '1g': allowed: a C identifier");
  refused("--load x" + so, "no '='");
  refused("lib/y --load x=" + so + ":g", "no --load gives y");
  // A file that dlopen refuses: its text reaches the terminal escaped.
  std::ofstream(dir / "junk.so") << "not \x1b[31man object";
  const ShellOut junk = shell(kKex + " run --sizes 4KiB --load x=" + (dir / "junk.so") + ":g");
  CHECK(junk.status == 2);
  CHECK(junk.text.find("cannot open it: ") != std::string::npos);
  CHECK(junk.text.find('\x1b') == std::string::npos);
  // Object code goes to the object loader: what it says reaches the user in one line.
  std::ofstream(dir / "k.s") << ".globl k\nk:\n ret\n";
  const ShellOut obj = shell(kKex + " run --sizes 4KiB --load k=" + (dir / "k.s") + ":nosuch");
  CHECK(obj.status == 2);
  CHECK(line_count(obj.text) == 1);
  CHECK(obj.text.find("k.s") != std::string::npos);
  // An archive member named wrong: one line naming the nearest members, as ARCHIVE(MEMBER).
  REQUIRE(run_sh("cd '" + dir.path + "' && as --64 -o memcpy.o k.s && as --64 -o memset.o k.s && ar rcs lib.a memcpy.o memset.o") == 0);
  refused("--load 'x=" + (dir / "lib.a") + "(memcpyy.o):k'",
          (dir / "lib.a") + ": no member 'memcpyy.o' (2 members; the nearest: lib.a(memcpy.o); `ar t` lists them)");
}

TEST_CASE("--load of /dev/zero behind a link, or of a FIFO, is refused at once in kex run and kex show" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  REQUIRE(symlink("/dev/zero", (dir / "zero.so").c_str()) == 0);
  for (const char* fifo : {"fifo.so", "fifo.s", "fifo.o"}) REQUIRE(mkfifo((dir / fifo).c_str(), 0600) == 0);
  const auto refused = [](const std::string& args, const std::string& says) {
    // timeout: kex hashed /dev/zero for ever, and waited for a FIFO's writer
    const ShellOut out = shell("timeout -k 5 20 " + kKex + " " + args);
    INFO(args, " -> ", out.text);
    CHECK(out.status == 2);
    CHECK(line_count(out.text) == 1);
    CHECK(out.text.find(says) != std::string::npos);
  };
  const std::string so = (dir / "zero.so"), fifo_so = (dir / "fifo.so");
  refused("run --sizes 4KiB --load x=" + so + ":my_copy", so + ": not a regular file (a shared object is needed)");
  refused("run --sizes 4KiB --load x=" + fifo_so + ":my_copy", fifo_so + ": not a regular file (a shared object is needed)");
  refused("show lib/x --load x=" + fifo_so + ":my_copy", fifo_so + ": not a regular file (a shared object is needed)");
  refused("run --sizes 4KiB --load x=" + (dir / "fifo.s") + ":k", "fifo.s: not a regular file (a .s or .S source is needed)");
  refused("show asm:" + (dir / "fifo.s") + ":k", "fifo.s: not a regular file (a .s or .S source is needed)");
  refused("show asm:" + (dir / "fifo.o") + ":k", "fifo.o: not a regular file (a object file or archive is needed)");
}

TEST_CASE("asm/NAME: musl's memcpy member, placed in kex's code arena, is verified and timed where the loader is built" *
          doctest::test_suite("cli")) {
  const std::string archive = "/usr/lib/x86_64-linux-musl/libc.a";
  if (shell("test -r " + archive).status != 0) {
    MESSAGE("musl-dev is not installed: nothing to load");
    return;
  }
  TmpDir dir;
  const ShellOut out = shell(kKex + " run --sizes 4KiB --repetitions 2 --no-report --load 'musl=" + archive +
                             "(memcpy.lo):memcpy' -o " + (dir / "r.json"));
  INFO(out.text);
  if (out.status == 2 && out.text.find("not built yet") != std::string::npos) {  // the object loader lands apart
    CHECK(line_count(out.text) == 1);
    return;
  }
  REQUIRE(out.status == 0);
  auto e = by_kernel(dir / "r.json");
  REQUIRE(e.count("asm/musl"));
  CHECK(e["asm/musl"].contains("real_time"));
  CHECK(e["asm/musl"]["implementation"]["source"] == "asm");
  CHECK(e["asm/musl"]["implementation"]["pieces"].get<int>() >= 1);
  CHECK(e["asm/musl"].contains("code"));  // its bytes are kex's arena's: recorded as a generated kernel's
}
