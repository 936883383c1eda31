// Objects for the object-code loader's tests: assembly written and assembled in a test's
// directory, and loaded code placed in an executable mapping to run it.
#pragma once
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/tmpdir.hpp"

/// Writes `text` to DIR/NAME; returns the path.
inline std::string write_text(const TmpDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  spit(path, text);
  return path;
}

/// Assembles `text` with GNU as into DIR/NAME (an object); returns its path, "" on failure.
inline std::string assemble_text(const TmpDir& dir, const std::string& name, const std::string& text) {
  const std::string src = write_text(dir, name + ".s", text);
  const std::string obj = dir / name;
  return run_sh("as --64 -o '" + obj + "' '" + src + "'") == 0 ? obj : "";
}

/// Bytes copied into a fresh read+execute mapping, unmapped at the end.
struct ExecutableCode {
  void* p = MAP_FAILED;
  size_t n = 0;
  explicit ExecutableCode(const std::vector<uint8_t>& bytes) : n(bytes.size()) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    std::memcpy(p, bytes.data(), n);
    if (mprotect(p, n, PROT_READ | PROT_EXEC) != 0) throw std::runtime_error("mprotect failed");
  }
  ~ExecutableCode() {
    if (p != MAP_FAILED) munmap(p, n);
  }
  ExecutableCode(const ExecutableCode&) = delete;
  ExecutableCode& operator=(const ExecutableCode&) = delete;
  /// The function at byte `offset`, as type F.
  template <class F>
  F at(size_t offset) const {
    return reinterpret_cast<F>(static_cast<char*>(p) + offset);
  }
};
