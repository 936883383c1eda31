// SHA-256 of outside code's files (Nettle), so results name exactly what was loaded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace kex {

/// SHA-256 of `n` bytes at `p`, as 64 lowercase hex digits.
std::string sha256_hex(const uint8_t* p, size_t n);

/// SHA-256 of the regular file at `path`, as 64 lowercase hex digits, checked before any
/// byte is read (open_regular_file: not a device or FIFO, at most `max_bytes`; `what` names
/// the kind of file in the error). Throws InputError ("PATH: cannot read ...", "PATH: not a
/// regular file (a WHAT is needed)", "PATH: longer than N MiB ...").
std::string file_sha256(const std::string& path, size_t max_bytes, const std::string& what);

/// The most bytes kex reads of a shared object, object file or archive (a static C library is a few MiB).
inline constexpr size_t kMaxLoadedFile = size_t(256) << 20;
/// The most bytes of an assembly source kex hands to the assembler.
inline constexpr size_t kMaxAssemblySource = size_t(64) << 20;

}  // namespace kex
