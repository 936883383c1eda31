// Code emission entry points and the register-class table the loop skeleton uses.
#pragma once
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <xbyak/xbyak.h>

#include "src/model/dispatch_kernel.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// What a register class contributes to the one loop skeleton (generators/skeleton.cpp).
/// Register indexes are 0..scratch-1; a class maps them onto its own registers.
struct ClassEmitter {
  virtual ~ClassEmitter() = default;
  /// True when registers come back off a stack (x87): the skeleton stores a group
  /// in reverse order of its loads.
  virtual bool lifo() const { return false; }
  /// Callee-saved GPRs the class uses at this scratch count (pushed/popped by the skeleton).
  virtual std::vector<Xbyak::Reg64> callee_saved(const KernelSpec&) const { return {}; }
  /// Clear only: rsi holds the 8-byte fill pattern; put it where store_fill finds it
  /// (without writing rax: kex emit's wrapper enters clears by a tail jump with rax = dst).
  virtual void load_fill(Xbyak::CodeGenerator&, const KernelSpec&) const {}
  virtual void load(Xbyak::CodeGenerator&, int reg, const Xbyak::Address& src, const KernelSpec&) const = 0;
  virtual void store(Xbyak::CodeGenerator&, const Xbyak::Address& dst, int reg, const KernelSpec&) const = 0;
  /// Clear only: store the fill pattern (register `reg` of those load_fill set up).
  virtual void store_fill(Xbyak::CodeGenerator&, const Xbyak::Address& dst, int reg, const KernelSpec&) const = 0;
  /// Read only (validate() refuses the classes that leave these out): register indexes
  /// scratch..2*scratch-1 are the accumulators, one beside each data register.
  /// Zeroes the accumulators.
  virtual void read_begin(Xbyak::CodeGenerator&, const KernelSpec&) const { no_read(); }
  /// Folds data register `reg` into its accumulator (reg + scratch) with a bitwise XOR.
  virtual void combine(Xbyak::CodeGenerator&, int /*reg*/, const KernelSpec&) const { no_read(); }
  /// Folds the accumulators into rax: the XOR of all their 8-byte lanes (may clobber rcx
  /// and the data registers).
  virtual void read_end(Xbyak::CodeGenerator&, const KernelSpec&) const { no_read(); }
  /// Leaves the state the ABI expects (emms, vzeroupper, empty x87 stack).
  virtual void leave(Xbyak::CodeGenerator&, const KernelSpec&) const {}
  /// True when the non-temporal store needs a width-aligned destination.
  virtual bool nt_needs_alignment() const { return false; }
  /// A class with a skeleton of its own (the rep-string family) emits the whole
  /// kernel here and returns true; the shared loop skeleton is then not used.
  virtual bool emit_whole(Xbyak::CodeGenerator&, const KernelSpec&) const { return false; }

 private:
  [[noreturn]] static void no_read() { throw std::logic_error("this register class has no read form"); }
};

/// The emitter of one register class: the row of generators/classes.cpp in the
/// order of reg_classes().
const ClassEmitter& class_emitter(RegClass c);

/// Rows in the emitter table (a test checks it equals reg_classes().size()).
size_t class_emitter_count();

/// Where a kernel's main loop lies, in bytes from the kernel's first byte: from the
/// loop's first instruction (its branch target) to the end of its closing branch.
struct LoopRange {
  uint64_t begin = 0, end = 0;
  bool operator==(const LoopRange&) const = default;
};

/// Emits one complete kernel for a valid spec (validate(s) empty) at the generator's
/// current position, ending in `ret`. Returns the main loop's range (with block
/// prefetch, the inner loop over a block); nullopt for the string class, whose
/// `rep` instruction is its loop. Throws Xbyak::Error on emission failure.
std::optional<LoopRange> emit_kernel(Xbyak::CodeGenerator& g, const KernelSpec& s);

/// Emits a dispatch kernel (src/model/dispatch_kernel.hpp) as one routine: rdx compared
/// with each row's bound in ascending order (cmp and jbe; r11 holds a bound above 2^31-1),
/// the last row falling through, then each member as emit_kernel emits it, each ending in
/// its own ret. Throws Xbyak::Error on emission failure.
void emit_dispatch(Xbyak::CodeGenerator& g, const DispatchKernel& d);

/// Why this CPU cannot run `s` (missing AVX-512, ...), or empty when it can.
std::string cpu_unsupported_reason(const KernelSpec& s);

/// 8 copies of the fill byte.
inline uint64_t fill_pattern(uint8_t fill) { return 0x0101010101010101ull * fill; }

}  // namespace kex
