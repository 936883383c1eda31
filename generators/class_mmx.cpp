// MMX class: movq mm0..mm7, movntq for non-temporal stores, emms on exit. A read of
// scratch N loads into mm0..mmN-1 and pxors each into its accumulator mmN+i.
#include "generators/classes.hpp"

namespace kex {
namespace {
using namespace Xbyak;

struct MmxClass final : ClassEmitter {
  void load_fill(CodeGenerator& g, const KernelSpec& s) const override {
    g.movq(g.mm0, g.rsi);
    for (uint32_t i = 1; i < s.scratch; ++i) g.movq(mm(i), g.mm0);
  }
  void load(CodeGenerator& g, int reg, const Address& src, const KernelSpec&) const override {
    g.movq(mm(reg), src);
  }
  void store(CodeGenerator& g, const Address& dst, int reg, const KernelSpec& s) const override {
    if (s.store == Store::nontemporal) g.movntq(dst, mm(reg));
    else g.movq(dst, mm(reg));
  }
  void store_fill(CodeGenerator& g, const Address& dst, int reg, const KernelSpec& s) const override {
    store(g, dst, reg, s);
  }
  void read_begin(CodeGenerator& g, const KernelSpec& s) const override {
    for (uint32_t i = 0; i < s.scratch; ++i) g.pxor(mm(s.scratch + i), mm(s.scratch + i));
  }
  void combine(CodeGenerator& g, int reg, const KernelSpec& s) const override {
    g.pxor(mm(s.scratch + uint32_t(reg)), mm(uint32_t(reg)));
  }
  void read_end(CodeGenerator& g, const KernelSpec& s) const override {
    for (uint32_t i = 1; i < s.scratch; ++i) g.pxor(mm(s.scratch), mm(s.scratch + i));
    g.movq(g.rax, mm(s.scratch));
  }
  void leave(CodeGenerator& g, const KernelSpec&) const override { g.emms(); }
  static Xbyak::Mmx mm(uint32_t i) { return Xbyak::Mmx(static_cast<int>(i)); }
};
}  // namespace

template <>
const ClassEmitter& emitter_of<RegClass::mmx>() {
  static const MmxClass e;
  return e;
}
}  // namespace kex
