// run_process (src/core/process.hpp): output captured up to its cap, exit status and signal,
// arguments passed as they are (no shell), the working folder and environment, a program
// that cannot be started, the time limit and a stop killing the process group; TempDir.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "src/core/process.hpp"
#include "src/core/temp_dir.hpp"

using namespace kex;

namespace {

/// Seconds `f` took.
template <class F>
double process_test_seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet), waited for up to 2 s.
bool process_gone(long pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line) || line.find(") Z ") != std::string::npos) return true;
    usleep(10000);
  }
  return false;
}

}  // namespace

TEST_CASE("run_process: output, exit status and a signal, arguments never through a shell") {
  ProcessEnd e = run_process(ProcessSpec({"echo", "$(id) ; `x` * 'q' \\n"}));
  CHECK(e.ok());
  CHECK(e.output == "$(id) ; `x` * 'q' \\n\n");
  e = run_process(ProcessSpec({"false"}));
  CHECK(e.started);
  CHECK(!e.ok());
  CHECK(e.how() == "exit status 1");
  e = run_process(ProcessSpec({"sh", "-c", "echo out; echo err >&2; kill -SEGV $$"}));
  CHECK(e.how() == "killed by SIGSEGV");
  CHECK(e.output == "out\nerr\n");
  ProcessSpec err_only({"sh", "-c", "echo out; echo err >&2"});
  err_only.capture = Capture::stderr_only;
  e = run_process(err_only);
  CHECK(e.output == "err\n");
}

TEST_CASE("run_process: the output kept up to its cap, the rest read and dropped") {
  ProcessSpec spec({"head", "-c", "300000", "/dev/zero"});
  spec.output_cap = 1000;
  const ProcessEnd e = run_process(spec);
  CHECK(e.ok());  // head was not blocked on a full pipe
  CHECK(e.output.size() == 1000);
  CHECK(e.truncated);
}

TEST_CASE("run_process: its working folder and environment, and a program that cannot be started") {
  setenv("KEX_PROCESS_GONE", "here", 1);
  ProcessSpec spec({"sh", "-c", "pwd; echo $KEX_PROCESS_SET ${KEX_PROCESS_GONE-unset}"});
  spec.dir = "/";
  spec.env = {{"KEX_PROCESS_SET", "v a"}, {"KEX_PROCESS_GONE", std::nullopt}};
  const ProcessEnd e = run_process(spec);
  unsetenv("KEX_PROCESS_GONE");
  CHECK(e.output == "/\nv a unset\n");
  const ProcessEnd missing = run_process(ProcessSpec({"kex-no-such-program-51"}));
  CHECK(!missing.started);
  CHECK(missing.start_errno == ENOENT);
  CHECK(missing.how() == "cannot be started (ENOENT (No such file or directory))");
  ProcessSpec in_no_dir({"true"});
  in_no_dir.dir = "/kex-no-such-folder-51";
  const ProcessEnd no_dir = run_process(in_no_dir);
  CHECK(!no_dir.started);
  CHECK(no_dir.start_errno == ENOENT);
  CHECK(no_dir.how() == "cannot be started in its folder (ENOENT (No such file or directory))");
  ProcessSpec no_cpu({"true"});
  no_cpu.cpu = 100000;  // beyond CPU_SETSIZE: an empty mask
  CHECK(run_process(no_cpu).how() == "cannot be pinned to its CPU (EINVAL (Invalid argument))");
}

TEST_CASE("run_process: past its time limit the program and its process group are killed") {
  ProcessSpec spec({"sleep", "30"});
  spec.timeout = std::chrono::milliseconds(200);
  ProcessEnd e;
  const double s = process_test_seconds([&] { e = run_process(spec); });
  CHECK(e.timed_out);
  CHECK(!e.ok());
  CHECK(e.how() == "did not finish within 200 ms: killed");
  CHECK(s >= 0.19);
  CHECK(s < 5);
  // A grandchild in the group (a compiler's cc1) is killed with it, when the limit passes
  // and when the program ends by itself.
  spec.argv = {"sh", "-c", "sleep 30 & echo $!; wait"};
  e = run_process(spec);
  CHECK(e.timed_out);
  CHECK(process_gone(std::atol(e.output.c_str())));
  spec.argv = {"sh", "-c", "sleep 30 & echo $!"};
  spec.timeout = std::chrono::seconds(20);
  CHECK(process_test_seconds([&] { e = run_process(spec); }) < 5);
  CHECK(e.ok());
  CHECK(process_gone(std::atol(e.output.c_str())));
}

TEST_CASE("run_process: a stop kills the program, and duration_text") {
  volatile std::sig_atomic_t stop = 1;
  ProcessEnd e;
  ProcessSpec spec({"sleep", "30"});
  spec.stop = &stop;
  CHECK(process_test_seconds([&] { e = run_process(spec); }) < 5);
  CHECK(e.stopped);
  CHECK(e.how() == "stopped");
  CHECK(duration_text(std::chrono::milliseconds(200)) == "200 ms");
  CHECK(duration_text(std::chrono::seconds(60)) == "60 s");
  CHECK(duration_text(std::chrono::milliseconds(1500)) == "1.5 s");
}

TEST_CASE("TempDir: a private folder in TMPDIR, removed with its files") {
  std::string path;
  {
    const TempDir d("kex-temp-dir-test");
    path = d.path();
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    std::ofstream(d / "f") << "x";
    mkdir((d / "sub").c_str(), 0700);
    std::ofstream(d / "sub/g") << "y";
  }
  CHECK(access(path.c_str(), F_OK) != 0);
  // A relative TMPDIR still gives an absolute path.
  const char* old = std::getenv("TMPDIR");
  const std::string kept = old ? old : "";
  setenv("TMPDIR", ".", 1);
  {
    const TempDir d("kex-temp-dir-test");
    CHECK(d.path()[0] == '/');
    CHECK(access(d.path().c_str(), F_OK) == 0);
  }
  if (old) setenv("TMPDIR", kept.c_str(), 1);
  else unsetenv("TMPDIR");
}
