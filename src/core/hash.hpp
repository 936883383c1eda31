// FNV-1a 64: the hash kex records of bytes it made (generated code, the partial
// output an interrupted run wrote). It tells kex's own bytes from other bytes put
// there by accident; it is no defence against a forgery (nothing cryptographic).
#pragma once
#include <cstdint>
#include <string_view>

namespace kex {

/// FNV-1a 64 over `bytes`.
constexpr uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace kex
