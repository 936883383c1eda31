#include "generators/jit.hpp"

#include <stdexcept>

#include "src/core/hash.hpp"

namespace kex {

uint64_t fnv1a(const uint8_t* p, size_t n) { return fnv1a64({reinterpret_cast<const char*>(p), n}); }

namespace {
constexpr size_t kScratchBytes = 1 << 18;  // largest single kernel
}

CodeArena::CodeArena()
    : gen_(std::make_unique<Xbyak::CodeGenerator>(1 << 16, Xbyak::AutoGrow)),
      scratch_(std::make_unique<Xbyak::CodeGenerator>(kScratchBytes, Xbyak::DontSetProtectRWE)) {}
CodeArena::~CodeArena() = default;

size_t CodeArena::add(const std::function<void(Xbyak::CodeGenerator&)>& emit) {
  if (finalized_) throw std::logic_error("CodeArena::add after finalize");
  // Emit into a never-executable scratch buffer first, so a kernel that fails to
  // emit leaves no half-written code or dangling labels behind. Kernels use only
  // relative branches, so their bytes are position independent and copied as is.
  scratch_->reset();
  emit(*scratch_);
  if (scratch_->hasUndefinedLabel()) throw Xbyak::Error(Xbyak::ERR_LABEL_IS_NOT_FOUND);
  gen_->align(64);
  size_t start = gen_->getSize();
  const uint8_t* p = scratch_->getCode();
  for (size_t i = 0, n = scratch_->getSize(); i < n; ++i) gen_->db(p[i]);
  spans_.push_back({start, gen_->getSize() - start});
  return spans_.size() - 1;
}

void CodeArena::finalize() {
  if (finalized_) return;
  gen_->readyRE();  // AutoGrow: resolves labels and mprotects the buffer to r-x
  finalized_ = true;
}

CodeRef CodeArena::ref(size_t i) const {
  if (!finalized_) throw std::logic_error("CodeArena::ref before finalize");
  const auto& s = spans_.at(i);
  CodeRef r;
  r.code = gen_->getCode() + s.offset;
  r.size = s.size;
  r.hash = fnv1a(r.code, r.size);
  return r;
}

}  // namespace kex
