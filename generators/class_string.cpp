// The `rep` string family: rep movs{b,w,d,q} / rep stos{b,w,d,q}, element size =
// spec.unroll. Forward: elements, then the byte remainder. Backward: std, the
// elements from the top down, cld, then the leading bytes forward. A clear's stos needs
// the fill pattern in rax: it saves rax in r10 first and restores it before ret, in
// straight-line code, so keeps_rax (generators/disasm_regs.hpp) holds and kex emit's
// wrapper enters it by a tail jump with rax = dst.
#include "generators/classes.hpp"

namespace kex {

namespace {
using namespace Xbyak;

void emit_string_kernel(CodeGenerator& g, const KernelSpec& s) {
  const uint32_t e = s.unroll;
  const int shift = e == 8 ? 3 : e == 4 ? 2 : e == 2 ? 1 : 0;
  const bool copy = s.op == Op::copy;
  auto rep_op = [&](uint32_t size) {
    g.rep();
    if (copy) {
      switch (size) {
        case 1: g.movsb(); break;
        case 2: g.movsw(); break;
        case 4: g.movsd(); break;
        default: g.movsq(); break;
      }
    } else {
      switch (size) {
        case 1: g.stosb(); break;
        case 2: g.stosw(); break;
        case 4: g.stosd(); break;
        default: g.stosq(); break;
      }
    }
  };
  if (!copy) {
    g.mov(g.r10, g.rax);
    g.mov(g.rax, fill_pattern(s.fill));
  }
  auto ret = [&] {
    if (!copy) g.mov(g.rax, g.r10);
    g.ret();
  };
  if (s.direction == Direction::forward) {
    g.mov(g.rcx, g.rdx);
    if (shift) g.shr(g.rcx, shift);
    rep_op(e);
    if (e > 1) {
      g.mov(g.rcx, g.rdx);
      g.and_(g.rcx, e - 1);
      rep_op(1);
    }
    ret();
    return;
  }
  g.mov(g.r8, g.rdi);
  g.mov(g.r9, g.rsi);
  g.lea(g.rdi, g.ptr[g.rdi + g.rdx - e]);
  if (copy) g.lea(g.rsi, g.ptr[g.rsi + g.rdx - e]);
  g.mov(g.rcx, g.rdx);
  if (shift) g.shr(g.rcx, shift);
  g.std();
  rep_op(e);
  g.cld();
  if (e > 1) {
    g.mov(g.rdi, g.r8);
    g.mov(g.rsi, g.r9);
    g.mov(g.rcx, g.rdx);
    g.and_(g.rcx, e - 1);
    rep_op(1);
  }
  ret();
}


struct StringClass final : ClassEmitter {
  void load(CodeGenerator&, int, const Address&, const KernelSpec&) const override {}
  void store(CodeGenerator&, const Address&, int, const KernelSpec&) const override {}
  void store_fill(CodeGenerator&, const Address&, int, const KernelSpec&) const override {}
  bool emit_whole(CodeGenerator& g, const KernelSpec& s) const override {
    emit_string_kernel(g, s);
    return true;
  }
};
}  // namespace

template <>
const ClassEmitter& emitter_of<RegClass::string>() {
  static const StringClass e;
  return e;
}

}  // namespace kex
