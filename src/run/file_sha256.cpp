#include "src/run/file_sha256.hpp"

#include <nettle/sha2.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"

namespace kex {

namespace {

std::string hex_of(const sha256_ctx& ctx_in) {
  sha256_ctx ctx = ctx_in;
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(const uint8_t* p, size_t n) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, n, p);
  return hex_of(ctx);
}

std::string file_sha256(const std::string& path, size_t max_bytes, const std::string& what) {
  const int fd = open_regular_file(path, max_bytes, what);
  sha256_ctx ctx;
  sha256_init(&ctx);
  uint8_t buf[1 << 16];
  size_t total = 0;
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      throw InputError(path + ": cannot read: " + std::strerror(err));
    }
    if (n == 0) break;
    total += size_t(n);
    if (total > max_bytes) {  // it grew while being read
      close(fd);
      throw InputError(path + ": longer than " + std::to_string(max_bytes >> 20) + " MiB: a " + what + " is at most that");
    }
    sha256_update(&ctx, size_t(n), buf);
  }
  close(fd);
  return hex_of(ctx);
}

}  // namespace kex
