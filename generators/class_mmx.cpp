// MMX class: movq mm0..mm7, movntq for non-temporal stores, emms on exit.
#include "generators/classes.hpp"

namespace kex {
namespace {
using namespace Xbyak;

struct MmxClass final : ClassEmitter {
  void load_fill(CodeGenerator& g, const KernelSpec& s) const override {
    g.movq(g.mm0, g.rax);
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
  void leave(CodeGenerator& g, const KernelSpec&) const override { g.emms(); }
  static Xbyak::Mmx mm(uint32_t i) { return Xbyak::Mmx(static_cast<int>(i)); }
};
}  // namespace

const ClassEmitter& mmx_emitter() {
  static const MmxClass e;
  return e;
}
}  // namespace kex
