#include "src/core/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/core/error.hpp"

namespace kex {

namespace {

std::string too_long(const std::string& path, size_t max_bytes, const std::string& what) {
  return path + ": longer than " + std::to_string(max_bytes >> 20) + " MiB: a " + what + " is at most that";
}

std::string cannot_read(const std::string& path, const std::string& what, int err) {
  return path + ": cannot read " + what + " (" + std::strerror(err) + ")";
}

}  // namespace

int open_regular_file(const std::string& path, size_t max_bytes, const std::string& what) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) throw InputError(cannot_read(path, what, errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw InputError(path + ": not a regular file (a " + what + " is needed)");
  }
  if (uint64_t(st.st_size) > max_bytes) {
    close(fd);
    throw InputError(too_long(path, max_bytes, what));
  }
  return fd;
}

std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& what) {
  const int fd = open_regular_file(path, max_bytes, what);
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t k = read(fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      const int err = errno;
      close(fd);
      throw InputError(cannot_read(path, what, err));
    }
    if (k == 0) break;
    text.append(chunk, size_t(k));
    if (text.size() > max_bytes) {  // it grew while being read
      close(fd);
      throw InputError(too_long(path, max_bytes, what));
    }
  }
  close(fd);
  return text;
}

}  // namespace kex
