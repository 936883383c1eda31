// Runs GNU as (or gcc for a .S) on a source into a temporary object (src/run/object_assemble.hpp).
#include "src/run/object_assemble.hpp"

#include <fcntl.h>
#include <spawn.h>
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
#include "src/core/terminal_text.hpp"

extern char** environ;

namespace kex {

namespace {

constexpr size_t kMaxAssembled = size_t(64) << 20;  // an object as writes
constexpr size_t kMaxToolMessage = 2000;            // bytes of the tool's stderr kept

/// A mkstemp file in $TMPDIR (or /tmp), removed and closed when this goes out of scope.
struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(const char* stem) {
    const char* dir = std::getenv("TMPDIR");
    std::string t = std::string(dir && *dir ? dir : "/tmp") + "/" + stem + "-XXXXXX";
    fd = mkstemp(t.data());
    if (fd < 0) throw InputError(t + ": cannot make a temporary file (" + std::strerror(errno) + ")");
    path = t;
  }
  ~TempFile() {
    if (fd >= 0) close(fd);
    unlink(path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

/// The first bytes the tool wrote to `fd` (its stderr), as one terminal-safe line.
std::string tool_message(int fd) {
  std::string text(kMaxToolMessage, '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? size_t(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "no message" : text;
}

/// A bound as "30 s" or, below a second, "300 ms".
std::string bound_text(std::chrono::milliseconds b) {
  return b.count() % 1000 ? std::to_string(b.count()) + " ms" : std::to_string(b.count() / 1000) + " s";
}

/// Waits for `pid` up to `bound`; past it, kills its process group (gcc's cc1 and as with
/// it) and returns nullopt. Else its wait status.
std::optional<int> wait_within(pid_t pid, std::chrono::milliseconds bound, const std::string& what) {
  const auto until = std::chrono::steady_clock::now() + bound;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) throw InputError(what + " failed (" + std::strerror(errno) + ")");
    if (std::chrono::steady_clock::now() >= until) break;
    usleep(5000);
  }
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return std::nullopt;
}

/// Runs `argv` in a process group of its own with stdin from /dev/null and stderr into
/// `err`; returns its wait status, or nullopt when it ran past `bound` and was killed.
std::optional<int> spawn_and_wait(const std::vector<std::string>& args, int err, const std::string& source,
                                  std::chrono::milliseconds bound) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err, 1);
  posix_spawn_file_actions_adddup2(&fa, err, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw InputError(terminal_text(source) + ": cannot start " + args[0] + " (" + std::strerror(rc) + ")");
  return wait_within(pid, bound, terminal_text(source) + ": waiting for " + args[0]);
}

}  // namespace

std::string assemble_object(const std::string& source, bool preprocess, std::chrono::milliseconds bound) {
  TempFile out("kex-asm"), err("kex-asm-err");
  // A path that starts with '-' would read as an option.
  const std::string in = source.rfind('-', 0) == 0 ? "./" + source : source;
  const std::vector<std::string> args =
      preprocess ? std::vector<std::string>{"gcc", "-c", "-x", "assembler-with-cpp", "-o", out.path, in}
                 : std::vector<std::string>{"as", "--64", "-o", out.path, in};
  const std::optional<int> done = spawn_and_wait(args, err.fd, source, bound);
  const std::string tool = preprocess ? "gcc -c" : "as --64";
  if (!done)
    throw InputError(error_line(source + ": " + tool + " did not finish within " + bound_text(bound) +
                                    ": killed (an assembler that hangs, or a source that never ends)",
                                800));
  const int status = *done;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "killed by signal " + std::to_string(WTERMSIG(status));
    throw InputError(error_line(source + ": " + tool + " failed (" + how + "): " + tool_message(err.fd), 800));
  }
  return read_regular_file(out.path, kMaxAssembled, "object " + tool + " wrote");
}

}  // namespace kex
