// x87 class: fild/fistp qword through the FPU stack. Integer load/store of 64 bits
// round-trips every bit pattern (fld/fstp would quiet signalling NaNs;
// docs/methodology.md §1.2). Stores pop in reverse order of the loads (lifo).
// Clears keep the fill pattern in st0 and store copies of it (fld st0; fistp).
#include "generators/classes.hpp"

namespace kex {
namespace {
using namespace Xbyak;

struct X87 final : ClassEmitter {
  bool lifo() const override { return true; }
  void load_fill(CodeGenerator& g, const KernelSpec&) const override {
    g.push(g.rsi);
    g.fild(g.qword[g.rsp]);
    g.pop(g.rsi);
  }
  void load(CodeGenerator& g, int, const Address& src, const KernelSpec&) const override {
    g.fild(g.qword[src.getRegExp()]);
  }
  void store(CodeGenerator& g, const Address& dst, int, const KernelSpec&) const override {
    g.fistp(g.qword[dst.getRegExp()]);
  }
  void store_fill(CodeGenerator& g, const Address& dst, int, const KernelSpec&) const override {
    g.fld(g.st0);
    g.fistp(g.qword[dst.getRegExp()]);
  }
  void leave(CodeGenerator& g, const KernelSpec& s) const override {
    if (s.op == Op::clear) g.fstp(g.st0);  // empty x87 stack on return
  }
};
}  // namespace

template <>
const ClassEmitter& emitter_of<RegClass::x87>() {
  static const X87 e;
  return e;
}
}  // namespace kex
