#include "src/run/piped_fork.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "src/core/limits.hpp"

namespace kex {

PipedFork fork_with_pipe(const std::string& what) {
  int fds[2];
  if (pipe(fds) != 0) throw_os_error("cannot start " + what + ": pipe", errno);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    throw_os_error("cannot start " + what + ": fork", err);
  }
  close(fds[pid == 0 ? 0 : 1]);
  return {pid, fds[pid == 0 ? 1 : 0]};
}

}  // namespace kex
