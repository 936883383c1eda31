// Runs another program with an argument vector and a time limit (src/core/process.hpp).
#include "src/core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/core/limits.hpp"

extern char** environ;

namespace kex {

namespace {

constexpr int kSliceMs = 20;  // how often a stop and the child's end are looked at

/// The environment the child gets: kex's with spec.env applied ("NAME=VALUE" strings).
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool changed = false;
    for (const auto& [name, value] : spec.env) changed |= entry.compare(0, name.size() + 1, name + "=") == 0;
    if (!changed) env.push_back(entry);
  }
  for (const auto& [name, value] : spec.env)
    if (value) env.push_back(name + "=" + *value);
  return env;
}

/// C pointers into `strings`, ending in nullptr.
std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

/// In the forked child, up to its exec: its group, death with kex, no core, signals at
/// their defaults, the streams, the folder, the CPU; a failure's errno goes to `report`,
/// then _exit(127).
[[noreturn]] void exec_child(const ProcessSpec& spec, char* const* argv, char* const* envp, int out, int report,
                             pid_t parent) {
  if (spec.own_group) setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // kex died before the line above
  rlimit core{};
  getrlimit(RLIMIT_CORE, &core);
  core.rlim_cur = 0;
  setrlimit(RLIMIT_CORE, &core);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) dup2(null, 0);
  if (spec.capture != Capture::stderr_only) dup2(out, 1);
  else if (null >= 0) dup2(null, 1);
  if (spec.capture != Capture::stdout_only) dup2(out, 2);
  int failed[2] = {int(ProcessEnd::Step::dir), 0};  // the step, its errno
  if (!spec.dir.empty() && chdir(spec.dir.c_str()) != 0) failed[1] = errno;
  if (failed[1] == 0 && spec.cpu >= 0) {  // the mask survives exec
    failed[0] = int(ProcessEnd::Step::cpu);
    cpu_set_t one;
    CPU_ZERO(&one);
    if (spec.cpu < CPU_SETSIZE) CPU_SET(spec.cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) failed[1] = errno;
  }
  if (failed[1] == 0) {
    failed[0] = int(ProcessEnd::Step::exec);
    execvpe(argv[0], argv, envp);
    failed[1] = errno;
  }
  (void)!write(report, failed, sizeof failed);
  _exit(127);
}

/// Reads what `fd` has into `end` (kept up to `cap`); false at the pipe's end.
bool read_some(int fd, ProcessEnd& end, size_t cap) {
  char buf[8192];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const size_t keep = end.output.size() < cap ? std::min(size_t(n), cap - end.output.size()) : 0;
  end.output.append(buf, keep);
  end.truncated |= keep < size_t(n);
  return true;
}

/// Kills the child (its group when it has one) and reaps it.
void kill_and_reap(pid_t pid, bool group) {
  kill(group ? -pid : pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

/// Follows the started child: its output into `end` until it exits (what it left running
/// in its group is killed then), the time limit passes or a stop comes (it is killed).
void follow_child(const ProcessSpec& spec, pid_t pid, int fd, ProcessEnd& end) {
  const auto until = std::chrono::steady_clock::now() + spec.timeout;
  bool open = true;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, open ? 1 : 0, kSliceMs) > 0) open = read_some(fd, end, spec.output_cap);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      if (spec.own_group) kill(-pid, SIGKILL);  // a grandchild holding the pipe goes too
      for (pollfd q{fd, POLLIN, 0}; open && poll(&q, 1, 100) > 0;) open = read_some(fd, end, spec.output_cap);
      end.status = status;
      return;
    }
    end.stopped = spec.stop && *spec.stop;
    end.timed_out = !end.stopped && spec.timeout.count() > 0 && std::chrono::steady_clock::now() >= until;
    if (end.stopped || end.timed_out) return kill_and_reap(pid, spec.own_group);
  }
}

}  // namespace

ProcessEnd run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw std::logic_error("run_process: no argv");
  const std::vector<std::string> env = child_environment(spec);
  const std::vector<char*> argv = c_strings(spec.argv), envp = c_strings(env);
  const std::string what = "cannot start " + spec.argv[0];
  int out[2], report[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw_os_error(what + ": pipe", errno);
  if (pipe2(report, O_CLOEXEC) != 0) {
    const int e = errno;
    close(out[0]);
    close(out[1]);
    throw_os_error(what + ": pipe", e);
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) exec_child(spec, argv.data(), envp.data(), out[1], report[1], parent);
  const int fork_errno = errno;
  close(out[1]);
  close(report[1]);
  ProcessEnd end;
  end.limit = spec.timeout;
  if (pid > 0 && spec.own_group) setpgid(pid, pid);  // also here: a kill right after the fork reaches the group
  ssize_t got = 0;
  int failed[2] = {0, 0};
  if (pid > 0)
    while ((got = read(report[0], failed, sizeof failed)) < 0 && errno == EINTR) {
    }
  close(report[0]);
  if (pid < 0) {
    close(out[0]);
    throw_os_error(what + ": fork", fork_errno);
  }
  end.started = got != sizeof failed;
  end.start_step = ProcessEnd::Step(failed[0]);
  end.start_errno = failed[1];
  if (end.started) follow_child(spec, pid, out[0], end);
  else kill_and_reap(pid, false);
  close(out[0]);
  return end;
}

bool ProcessEnd::ok() const {
  return started && !timed_out && !stopped && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ProcessEnd::how() const {
  if (!started) {
    const char* what = start_step == Step::dir   ? "cannot be started in its folder"
                       : start_step == Step::cpu ? "cannot be pinned to its CPU"
                                                 : "cannot be started";
    return what + (" (" + errno_text(start_errno) + ")");
  }
  if (stopped) return "stopped";
  if (timed_out) return "did not finish within " + duration_text(limit) + ": killed";
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return name ? std::string("killed by SIG") + name : "killed by signal " + std::to_string(WTERMSIG(status));
  }
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

std::string duration_text(std::chrono::milliseconds d) {
  const long long ms = d.count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  std::string s = std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
  while (s.back() == '0') s.pop_back();
  return s + " s";
}

namespace {

constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};
volatile std::sig_atomic_t g_noted_stop = 0;
extern "C" void note_stop(int sig) { g_noted_stop = sig; }

}  // namespace

StopSignalsNoted::StopSignalsNoted() {
  g_noted_stop = 0;
  struct sigaction sa {};
  sa.sa_handler = note_stop;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < 3; ++i) sigaction(kStopSignals[i], &sa, &old_[i]);
}

StopSignalsNoted::~StopSignalsNoted() {
  for (size_t i = 0; i < 3; ++i) sigaction(kStopSignals[i], &old_[i], nullptr);
  if (g_noted_stop) raise(g_noted_stop);
}

const volatile std::sig_atomic_t* StopSignalsNoted::flag() const { return &g_noted_stop; }

}  // namespace kex
