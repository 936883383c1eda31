// The kex binary started in the background for tests that signal or kill it: in a
// process group of its own, its stdout and stderr to a log file.
#pragma once
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>
#include <vector>

/// kex (KEX_BINARY) running with `args`, output to `log`; killed with its group when destroyed.
struct KexChild {
  pid_t pid = -1;
  KexChild(const std::vector<std::string>& args, const std::string& log, const std::string& binary = KEX_BINARY) {
    pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      FILE* f = std::fopen(log.c_str(), "w");
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(binary.c_str()));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    setpgid(pid, pid);
  }
  KexChild(const KexChild&) = delete;
  KexChild& operator=(const KexChild&) = delete;
  /// Sends `signals` to the group in turn; the exit status and the seconds from the first signal to the exit.
  std::pair<int, double> stop(std::initializer_list<int> signals) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int sig : signals) kill(-pid, sig);
    const int status = wait();
    return {status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
  /// The exit status (128 + signal when killed by one).
  int wait() {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  /// The processes whose parent is this kex (its measuring worker, verifying children).
  std::vector<pid_t> children() const {
    std::vector<pid_t> found;
    DIR* d = opendir("/proc");
    while (dirent* e = readdir(d)) {
      const pid_t p = atoi(e->d_name);
      if (p <= 0) continue;
      std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
      std::string line;
      std::getline(stat, line);
      const auto close_paren = line.rfind(')');  // "pid (comm) state ppid ..."
      if (close_paren == std::string::npos) continue;
      char state = 0;
      int ppid = 0;
      if (std::sscanf(line.c_str() + close_paren + 1, " %c %d", &state, &ppid) == 2 && ppid == pid && state != 'Z')
        found.push_back(p);
    }
    closedir(d);
    return found;
  }
  ~KexChild() {
    if (pid > 0) {
      kill(-pid, SIGKILL);
      wait();
    }
  }
};

/// Polls `ready` every 10 ms for at most `seconds`; whether it became true.
inline bool wait_until(const std::function<bool()>& ready, double seconds = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// Lines of `path` that contain `with`.
inline size_t lines_with(const std::string& path, const std::string& with) {
  std::ifstream in(path);
  std::string l;
  size_t n = 0;
  while (std::getline(in, l)) n += l.find(with) != std::string::npos;
  return n;
}

/// Waits (at most 20 s) until the journal holds at least `reps` repetitions.
inline bool wait_for_reps(const std::string& journal, size_t reps) {
  return wait_until([&] { return lines_with(journal, "{\"rep\":") >= reps; });
}
