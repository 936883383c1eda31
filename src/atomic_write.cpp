#include "atomic_write.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.hpp"

namespace kex {

namespace {
std::string err_text(int e) { return std::strerror(e); }
}  // namespace

void write_file_atomic(const std::string& path, const std::string& text, bool force) {
  struct stat st;
  if (!force && ::lstat(path.c_str(), &st) == 0)
    throw UserError(path + ": exists: pass --force to overwrite it");
  std::string tmpl = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw UserError(path + ": cannot create a file there: " + err_text(errno));
  auto fail = [&](const std::string& what) {
    int e = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw UserError(path + ": " + what + ": " + err_text(e));
  };
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    done += size_t(n);
  }
  if (::fchmod(fd, 0644) != 0) fail("chmod failed");
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmpl.c_str());
    throw UserError(path + ": close failed: " + err_text(e));
  }
  if (!force) {
    // link() fails with EEXIST if someone created `path` meanwhile: no overwrite race.
    if (::link(tmpl.c_str(), path.c_str()) == 0) {
      ::unlink(tmpl.c_str());
      return;
    }
    int e = errno;
    if (e == EEXIST) {
      ::unlink(tmpl.c_str());
      throw UserError(path + ": exists: pass --force to overwrite it");
    }
    // Filesystems without hard links: fall back to rename (existence checked above).
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmpl.c_str());
    throw UserError(path + ": rename failed: " + err_text(e));
  }
}

}  // namespace kex
