// GPR class: 8-byte mov, movnti for non-temporal stores. Scratch registers come
// from rax, rcx, r8, r9, r10, then callee-saved rbx, r12, r13 (pushed/popped). A read
// of scratch N loads into the first N and xors each into its accumulator, register N+i.
#include "generators/classes.hpp"

namespace kex {
namespace {
using namespace Xbyak;

const Reg64& data_reg(int i) {
  static const Reg64 regs[] = {util::rax, util::rcx, util::r8, util::r9, util::r10, util::rbx, util::r12, util::r13};
  return regs[i];
}

struct Gpr final : ClassEmitter {
  std::vector<Reg64> callee_saved(const KernelSpec& s) const override {
    std::vector<Reg64> r;
    const uint32_t used = s.op == Op::read ? 2 * s.scratch : s.op == Op::copy ? s.scratch : 0;
    for (uint32_t i = 5; i < used; ++i) r.push_back(data_reg(static_cast<int>(i)));
    return r;
  }
  void load(CodeGenerator& g, int reg, const Address& src, const KernelSpec&) const override {
    g.mov(data_reg(reg), src);
  }
  void store(CodeGenerator& g, const Address& dst, int reg, const KernelSpec& s) const override {
    if (s.store == Store::nontemporal) g.movnti(dst, data_reg(reg));
    else g.mov(dst, data_reg(reg));
  }
  void read_begin(CodeGenerator& g, const KernelSpec& s) const override {
    for (uint32_t i = 0; i < s.scratch; ++i) g.xor_(data_reg(acc(i, s)).cvt32(), data_reg(acc(i, s)).cvt32());
  }
  void combine(CodeGenerator& g, int reg, const KernelSpec& s) const override {
    g.xor_(data_reg(acc(uint32_t(reg), s)), data_reg(reg));
  }
  void read_end(CodeGenerator& g, const KernelSpec& s) const override {
    for (uint32_t i = 1; i < s.scratch; ++i) g.xor_(data_reg(acc(0, s)), data_reg(acc(i, s)));
    g.mov(g.rax, data_reg(acc(0, s)));
  }
  static int acc(uint32_t i, const KernelSpec& s) { return static_cast<int>(s.scratch + i); }
  // Clears store rsi (the fill pattern, generators/skeleton.cpp) from every "register".
  void store_fill(CodeGenerator& g, const Address& dst, int, const KernelSpec& s) const override {
    if (s.store == Store::nontemporal) g.movnti(dst, g.rsi);
    else g.mov(dst, g.rsi);
  }
};
}  // namespace

template <>
const ClassEmitter& emitter_of<RegClass::gpr>() {
  static const Gpr e;
  return e;
}
}  // namespace kex
