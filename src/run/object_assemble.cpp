// Runs GNU as (or gcc for a .S) on a source into a temporary object (src/run/object_assemble.hpp).
#include "src/run/object_assemble.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
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

/// Runs `argv` with stdin from /dev/null and stderr into `err`; returns its wait status.
int spawn_and_wait(const std::vector<std::string>& args, int err, const std::string& source) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err, 1);
  posix_spawn_file_actions_adddup2(&fa, err, 2);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw InputError(terminal_text(source) + ": cannot start " + args[0] + " (" + std::strerror(rc) + ")");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw InputError(terminal_text(source) + ": waiting for " + args[0] + " failed (" + std::strerror(errno) + ")");
  return status;
}

}  // namespace

std::string assemble_object(const std::string& source, bool preprocess) {
  TempFile out("kex-asm"), err("kex-asm-err");
  // A path that starts with '-' would read as an option.
  const std::string in = source.rfind('-', 0) == 0 ? "./" + source : source;
  const std::vector<std::string> args =
      preprocess ? std::vector<std::string>{"gcc", "-c", "-x", "assembler-with-cpp", "-o", out.path, in}
                 : std::vector<std::string>{"as", "--64", "-o", out.path, in};
  const int status = spawn_and_wait(args, err.fd, source);
  const std::string tool = preprocess ? "gcc -c" : "as --64";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "killed by signal " + std::to_string(WTERMSIG(status));
    throw InputError(error_line(source + ": " + tool + " failed (" + how + "): " + tool_message(err.fd), 800));
  }
  return read_regular_file(out.path, kMaxAssembled, "object " + tool + " wrote");
}

}  // namespace kex
