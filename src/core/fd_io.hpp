// Whole writes to and reads from a file descriptor (pipes between kex's processes, output files).
#pragma once
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kex {

/// Writes all `n` bytes at `p` to `fd`, retrying after EINTR and short writes.
/// Returns false on failure with errno set (EIO when write(2) wrote nothing).
inline bool write_all(int fd, const void* p, size_t n) {
  auto* b = static_cast<const uint8_t*>(p);
  while (n) {
    const ssize_t k = write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return false;
    }
    b += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

/// Reads `fd` to end of file into `out` (appending), retrying after EINTR. Returns
/// false on a read error with errno set.
inline bool read_all(int fd, std::string& out) {
  char chunk[4096];
  for (;;) {
    const ssize_t k = read(fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return false;
    if (k == 0) return true;
    out.append(chunk, static_cast<size_t>(k));
  }
}

}  // namespace kex
