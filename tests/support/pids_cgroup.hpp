// A pids cgroup of a test's own, so that a test of code that forks cannot take the machine
// when the code under test regresses: as root, ulimit -u does not apply, pids.max does.
#pragma once
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "src/run/contain.hpp"

/// "kex-test-PID-N" under kex's pids cgroup parent with pids.max = `max_tasks`; nothing
/// (made() false) where no pids controller can be used. Its processes are killed and it is
/// removed at the end.
struct TestCgroup {
  std::string dir;
  explicit TestCgroup(unsigned max_tasks) {
    static unsigned n = 0;
    const std::string& parent = kex::pids_cgroup_parent();
    if (parent.empty()) return;
    const std::string d = parent + "/kex-test-" + std::to_string(getpid()) + "-" + std::to_string(n++);
    if (mkdir(d.c_str(), 0755) != 0) return;
    std::ofstream(d + "/pids.max") << max_tasks;
    dir = d;
  }
  TestCgroup(const TestCgroup&) = delete;
  TestCgroup& operator=(const TestCgroup&) = delete;
  ~TestCgroup() {
    if (dir.empty()) return;
    for (int i = 0; i < 1000 && rmdir(dir.c_str()) != 0; ++i) {  // killed processes take a moment to leave
      for (pid_t p : procs()) kill(p, SIGKILL);
      usleep(10000);
    }
  }
  bool made() const { return !dir.empty(); }
  /// A shell command's prefix that moves the shell into the cgroup, then runs the rest.
  std::string enter() const { return "echo $$ > " + dir + "/cgroup.procs && "; }
  /// The processes in it now (its sub-cgroups' too).
  std::vector<pid_t> procs() const {
    std::vector<pid_t> out;
    collect(dir, out);
    return out;
  }
  /// Whether it holds no process within `seconds` (killed processes take a moment to leave).
  bool empties_within(double seconds) const {
    for (double t = 0; t < seconds; t += 0.01) {
      if (procs().empty()) return true;
      usleep(10000);
    }
    return procs().empty();
  }

 private:
  static void collect(const std::string& d, std::vector<pid_t>& out) {
    std::ifstream f(d + "/cgroup.procs");
    for (pid_t p; f >> p;) out.push_back(p);
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.is_directory()) collect(e.path().string(), out);
  }
};
