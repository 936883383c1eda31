#include "src/core/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/core/error.hpp"

namespace kex {

void check_output_path(const std::string& path, bool force) {
  if (path.empty()) throw InputError("output path is empty");
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file; refusing to replace it");
    if (!force) throw InputError(path + ": exists; not overwriting it (use --force)");
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(path + ": directory " + dir + " does not exist");
  if (access(dir.c_str(), W_OK) != 0) throw InputError(path + ": directory " + dir + " is not writable");
}

void write_file_atomic(const std::string& path, const std::string& text, bool force) {
  check_output_path(path, force);
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw InputError(path + ": cannot write (" + std::strerror(errno) + ")");
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      int err = errno;
      close(fd);
      unlink(tmp.c_str());
      throw InputError(path + ": write failed (" + std::strerror(err) + ")");
    }
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw InputError(path + ": write failed (" + std::strerror(err) + ")");
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw InputError(path + ": cannot rename into place (" + std::strerror(err) + ")");
  }
}

}  // namespace kex
