#include "src/run/file_sha256.hpp"

#include <nettle/sha2.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "src/core/error.hpp"

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

std::string file_sha256(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) throw InputError(path + ": cannot read: " + std::strerror(errno));
  sha256_ctx ctx;
  sha256_init(&ctx);
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) sha256_update(&ctx, n, buf);
  if (std::ferror(f.get())) throw InputError(path + ": cannot read: " + std::strerror(errno));
  return hex_of(ctx);
}

}  // namespace kex
