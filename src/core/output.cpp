#include "src/core/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "src/core/error.hpp"

namespace kex {

namespace {

std::string failure(int err) {
  return std::string("stdout: write failed (") + (err ? std::strerror(err) : "an earlier write was lost") + ")";
}

}  // namespace

void write_stdout(std::string_view text) {
  errno = 0;
  size_t n = text.empty() ? 0 : std::fwrite(text.data(), 1, text.size(), stdout);
  int err = errno;
  if (n == text.size()) {
    errno = 0;
    if (std::fflush(stdout) != 0) err = errno;
  }
  // ferror also catches an earlier printf whose buffer was lost.
  if (n != text.size() || std::ferror(stdout)) throw InputError(failure(err));
}

void guard_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free descriptor, which is `fd` as the ones below are open.
    int got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd) {
      dup2(got, fd);
      close(got);
    }
  }
}

std::string close_stdout() {
  errno = 0;
  int err = 0;
  if (std::fflush(stdout) != 0) err = errno;
  bool lost = std::ferror(stdout) != 0;
  errno = 0;
  if (std::fclose(stdout) != 0) {
    if (!err) err = errno;
    lost = true;
  }
  return lost ? failure(err) : std::string();
}

}  // namespace kex
