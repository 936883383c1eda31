// CodeArena: many kernels JIT-compiled into one W^X buffer (docs/methodology.md §1.1, §1.6).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <xbyak/xbyak.h>

namespace kex {

/// One generated function: where it starts, how many bytes, and an FNV-1a hash
/// of those bytes. Valid only after CodeArena::finalize().
struct CodeRef {
  const uint8_t* code = nullptr;
  size_t size = 0;
  uint64_t hash = 0;
  template <class Fn>
  Fn as() const { return reinterpret_cast<Fn>(const_cast<uint8_t*>(code)); }
};

/// Emits kernels one after another into an AutoGrow Xbyak buffer that is RW while
/// emitting and RX (never RWX) after finalize(). Addresses are stable only after
/// finalize(); add() returns an index for ref(). Not copyable.
class CodeArena {
 public:
  CodeArena();
  ~CodeArena();
  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;

  /// Runs `emit` and places its code at a 64-byte-aligned position. `emit` must use
  /// only relative branches (no absolute addresses). On Xbyak::Error nothing is
  /// added and the error propagates. Returns the kernel's index.
  size_t add(const std::function<void(Xbyak::CodeGenerator&)>& emit);
  /// Makes the buffer read+execute; no add() afterwards.
  void finalize();
  bool finalized() const { return finalized_; }
  CodeRef ref(size_t index) const;
  size_t count() const { return spans_.size(); }

 private:
  struct Span { size_t offset, size; };
  std::unique_ptr<Xbyak::CodeGenerator> gen_;
  std::unique_ptr<Xbyak::CodeGenerator> scratch_;
  std::vector<Span> spans_;
  bool finalized_ = false;
};

/// FNV-1a 64 over a byte range (the code hash reported in results).
uint64_t fnv1a(const uint8_t* p, size_t n);

}  // namespace kex
