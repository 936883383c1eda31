// SHA-256 of outside code's files (Nettle), so results name exactly what was loaded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace kex {

/// SHA-256 of `n` bytes at `p`, as 64 lowercase hex digits.
std::string sha256_hex(const uint8_t* p, size_t n);

/// SHA-256 of the regular file at `path`, as 64 lowercase hex digits. Throws InputError
/// ("PATH: cannot read: REASON") when it cannot be opened or read.
std::string file_sha256(const std::string& path);

}  // namespace kex
