// Runs GNU as (or gcc for a .S) on a source into a temporary object (src/run/object_assemble.hpp).
#include "src/run/object_assemble.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/core/limits.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

extern char** environ;  // the tool gets this process's environment, TMPDIR set

namespace kex {

namespace {

constexpr size_t kMaxAssembled = size_t(64) << 20;  // an object as writes (also its file-size limit)
constexpr size_t kMaxToolMessage = 2000;            // bytes of the tool's stderr kept
/// The tool's address space (RLIMIT_AS), gcc's cc1 and as included: far beyond what a
/// kernel's source needs, and short of the machine's memory (`.incbin` of a 10 GiB file
/// grew as until the OOM killer came).
constexpr rlim_t kMaxToolMemory = rlim_t(2) << 30;

/// A folder of its own in $TMPDIR (or /tmp) for one assembler run: the object and gcc's
/// temporaries (the tool's TMPDIR points here). Removed with what is in it when destroyed.
struct TempFolder {
  std::string path;
  TempFolder(const std::string& source) {
    const char* dir = std::getenv("TMPDIR");
    std::string t = std::string(dir && *dir ? dir : "/tmp") + "/kex-as-XXXXXX";
    if (!mkdtemp(t.data()))
      throw InputError(terminal_text(source) + ": cannot assemble it: cannot make a folder in " +
                       terminal_text(t.substr(0, t.rfind('/'))) + " (" + errno_text(errno) + ")" + limit_note(errno));
    path = t;
  }
  ~TempFolder() {
    if (DIR* d = opendir(path.c_str())) {
      while (const dirent* e = readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) unlink((path + "/" + e->d_name).c_str());
      closedir(d);
    }
    rmdir(path.c_str());
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

volatile std::sig_atomic_t g_tool_stop = 0;
extern "C" void on_tool_stop(int sig) { g_tool_stop = sig; }

/// While the tool runs, SIGINT, SIGTERM and SIGHUP are noted (g_tool_stop) instead of
/// acted on: the waiting loop kills the tool's group and the folder is removed first.
/// Destroyed, it puts the old handlers back and raises a noted signal again, so that kex
/// stops as it does in every other phase (or counts the stop where a race counts them).
class StopsNoted {
 public:
  StopsNoted() {
    g_tool_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_tool_stop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~StopsNoted() {
    for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
    if (g_tool_stop) raise(g_tool_stop);
  }
  StopsNoted(const StopsNoted&) = delete;
  StopsNoted& operator=(const StopsNoted&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3];
};

/// How the tool ended: its wait status (none when it ran past the bound or a stop came
/// and it was killed), and the start of what it wrote on stderr.
struct ToolEnd {
  std::optional<int> status;
  std::string message;
};

/// This process's environment with TMPDIR set to `dir`.
std::vector<std::string> environment_with_tmpdir(const std::string& dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env.emplace_back(*e);
  env.push_back("TMPDIR=" + dir);
  return env;
}

/// In the forked tool, before its exec: a process group of its own, SIGKILL when kex dies,
/// a file-size limit of kMaxAssembled (or less, as inherited) with SIGXFSZ's default action
/// (kex ignores it: the tool is killed at the limit), an address space of kMaxToolMemory
/// (or less, as inherited), no core file, no signal blocked, stdin
/// from /dev/null, stdout and stderr into `err`. exec's errno goes to `report` (closed on
/// exec), then it exits 127.
[[noreturn]] void exec_tool(char* const* argv, char* const* envp, int err, int report, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // kex died before the line above
  rlimit fs{};
  getrlimit(RLIMIT_FSIZE, &fs);
  if (fs.rlim_cur == RLIM_INFINITY || fs.rlim_cur > kMaxAssembled) fs.rlim_cur = kMaxAssembled;
  setrlimit(RLIMIT_FSIZE, &fs);
  rlimit core{};
  getrlimit(RLIMIT_CORE, &core);
  core.rlim_cur = 0;
  setrlimit(RLIMIT_CORE, &core);
  rlimit as{};
  getrlimit(RLIMIT_AS, &as);
  if (as.rlim_cur == RLIM_INFINITY || as.rlim_cur > kMaxToolMemory) as.rlim_cur = kMaxToolMemory;
  setrlimit(RLIMIT_AS, &as);
  signal(SIGXFSZ, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, 0);
  dup2(err, 1);
  dup2(err, 2);
  execvpe(argv[0], argv, envp);
  const int e = errno;
  (void)!write(report, &e, sizeof e);
  _exit(127);
}

/// Starts `args` (exec_tool) with TMPDIR `dir`; its pid. InputError naming the source when
/// it cannot be started.
pid_t spawn_tool(const std::vector<std::string>& args, int err, const std::string& dir, const std::string& source) {
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::vector<std::string> env = environment_with_tmpdir(dir);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw_os_error(terminal_text(source) + ": cannot start " + args[0] + ": pipe", errno);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) exec_tool(argv.data(), envp.data(), err, report[1], parent);
  const int fork_errno = errno;
  close(report[1]);
  int exec_errno = 0;
  const ssize_t got = pid > 0 ? read(report[0], &exec_errno, sizeof exec_errno) : 0;
  close(report[0]);
  if (pid < 0) throw_os_error(terminal_text(source) + ": cannot start " + args[0] + ": fork", fork_errno);
  setpgid(pid, pid);  // also here: a kill right after the fork reaches the group
  if (got == sizeof exec_errno) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw InputError(terminal_text(source) + ": cannot start " + args[0] + " (" + std::strerror(exec_errno) + ")");
  }
  return pid;
}

/// Reads what `err` holds within `ms` milliseconds into `said` (its first kMaxToolMessage
/// bytes kept); false at the end of the pipe or when nothing came.
bool read_said(int err, int ms, std::string& said) {
  pollfd pfd{err, POLLIN, 0};
  if (poll(&pfd, 1, ms) <= 0) return false;
  char chunk[4096];
  const ssize_t k = read(err, chunk, sizeof chunk);
  if (k > 0 && said.size() < kMaxToolMessage) said.append(chunk, std::min(size_t(k), kMaxToolMessage - said.size()));
  return k > 0;
}

/// Follows the tool until it exits, keeping the start of its stderr (read from `err`, the
/// pipe's read end). Past `bound`, or at a stop (g_tool_stop), its group is killed.
ToolEnd wait_for_tool(pid_t pid, int err, std::chrono::milliseconds bound, const std::string& what) {
  const auto until = std::chrono::steady_clock::now() + bound;
  ToolEnd end;
  for (;;) {
    read_said(err, 5, end.message);
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      kill(-pid, SIGKILL);  // whatever it left running (gcc's children) goes with it
      while (read_said(err, 100, end.message)) {
      }
      end.status = status;
      return end;
    }
    if (r < 0 && errno != EINTR) throw InputError(what + " failed (" + std::strerror(errno) + ")");
    if (g_tool_stop || std::chrono::steady_clock::now() >= until) break;
  }
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return end;
}

/// Runs `args` (spawn_tool) and waits for it (wait_for_tool), its stderr through a pipe:
/// what the tool said reaches the user even when $TMPDIR is full.
ToolEnd run_tool(const std::vector<std::string>& args, const std::string& dir, const std::string& source,
                 std::chrono::milliseconds bound) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw_os_error(terminal_text(source) + ": cannot start " + args[0] + ": pipe", errno);
  pid_t pid = -1;
  try {
    pid = spawn_tool(args, fds[1], dir, source);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  ToolEnd end = wait_for_tool(pid, fds[0], bound, terminal_text(source) + ": waiting for " + args[0]);
  close(fds[0]);
  return end;
}

/// The one line for a tool that ended badly: killed at the file-size limit (the object's
/// cap, or a smaller ulimit -f), or its exit status and first words (the temporary object
/// named as such, not by its path).
std::string failure_line(const std::string& source, const std::string& tool, int status, const std::string& said,
                         const std::string& object) {
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) {
    rlimit fs{};
    getrlimit(RLIMIT_FSIZE, &fs);
    const bool ours = fs.rlim_cur == RLIM_INFINITY || fs.rlim_cur > kMaxAssembled;
    return source + ": the object " + tool + " writes is larger than " +
           (ours ? format_bytes(kMaxAssembled) + ", the most kex loads"
                 : format_bytes(uint64_t(fs.rlim_cur)) + ", the file-size limit (ulimit -f)") +
           ": stopped there";
  }
  std::string text = said;
  for (size_t at; (at = text.find(object)) != std::string::npos;) text.replace(at, object.size(), "its object file");
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : "killed by signal " + std::to_string(WTERMSIG(status));
  return source + ": " + tool + " failed (" + how + "): " + (text.empty() ? "no message" : text);
}

/// A bound as "30 s" or, below a second, "300 ms".
std::string bound_text(std::chrono::milliseconds b) {
  return b.count() % 1000 ? std::to_string(b.count()) + " ms" : std::to_string(b.count() / 1000) + " s";
}

}  // namespace

std::string assemble_object(const std::string& source, bool preprocess, std::chrono::milliseconds bound) {
  const StopsNoted stops;  // declared first: a stop is raised again after the folder is gone
  const TempFolder dir(source);
  const std::string out = dir.path + "/object.o";
  // A path that starts with '-' would read as an option.
  const std::string in = source.rfind('-', 0) == 0 ? "./" + source : source;
  const std::vector<std::string> args =
      preprocess ? std::vector<std::string>{"gcc", "-c", "-x", "assembler-with-cpp", "-o", out, in}
                 : std::vector<std::string>{"as", "--64", "-o", out, in};
  const std::string tool = preprocess ? "gcc -c" : "as --64";
  const ToolEnd end = run_tool(args, dir.path, source, bound);
  if (g_tool_stop)
    throw InputError(error_line(source + ": " + tool + " stopped by SIG" + sigabbrev_np(g_tool_stop), 800));
  if (!end.status)
    throw InputError(error_line(source + ": " + tool + " did not finish within " + bound_text(bound) +
                                    ": killed (an assembler that hangs, or a source that never ends)",
                                800));
  if (!WIFEXITED(*end.status) || WEXITSTATUS(*end.status) != 0)
    throw InputError(error_line(failure_line(source, tool, *end.status, end.message, out), 800));
  try {
    return read_regular_file(out, kMaxAssembled, "object " + tool + " wrote");
  } catch (const InputError& e) {
    throw InputError(error_line(source + ": cannot read the object " + tool + " wrote (" + e.what() + ")", 800));
  }
}

}  // namespace kex
