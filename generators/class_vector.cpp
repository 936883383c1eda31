// Vector classes, one row each: sse (xmm, 16 B), avx (ymm, 32 B), avx512 (zmm, 64 B).
// Aligned specs use movdqa/vmovdqa(64), unaligned ones movdqu/vmovdqu(64);
// non-temporal stores are movntdq/vmovntdq, which need an aligned destination
// (the skeleton's head provides it). AVX and AVX-512 end with vzeroupper.
// A read of scratch N loads into registers 0..N-1 and xors each into its accumulator,
// register N+i (AVX: vxorps, as AVX alone has no 256-bit integer xor); the end folds
// the accumulators into one, then its lanes through register 0 into rax.
#include "generators/classes.hpp"

namespace kex {
namespace {
using namespace Xbyak;

enum class Vec { sse, avx, avx512 };

struct Vector final : ClassEmitter {
  Vec kind;
  explicit Vector(Vec k) : kind(k) {}

  bool nt_needs_alignment() const override { return true; }

  void load_fill(CodeGenerator& g, const KernelSpec& s) const override {
    switch (kind) {
      case Vec::sse:
        g.movq(g.xmm0, g.rsi);
        g.punpcklqdq(g.xmm0, g.xmm0);
        break;
      case Vec::avx:
        g.vmovq(g.xmm0, g.rsi);
        g.vpunpcklqdq(g.xmm0, g.xmm0, g.xmm0);
        g.vinsertf128(g.ymm0, g.ymm0, g.xmm0, 1);
        break;
      case Vec::avx512:
        g.vpbroadcastq(g.zmm0, g.rsi);
        break;
    }
    (void)s;  // every clear register is zmm0/ymm0/xmm0: the fill lives in one register
  }
  void load(CodeGenerator& g, int reg, const Address& src, const KernelSpec& s) const override {
    const bool a = s.align == Align::aligned;
    switch (kind) {
      case Vec::sse: a ? g.movdqa(Xmm(reg), src) : g.movdqu(Xmm(reg), src); break;
      case Vec::avx: a ? g.vmovdqa(Ymm(reg), src) : g.vmovdqu(Ymm(reg), src); break;
      case Vec::avx512: a ? g.vmovdqa64(Zmm(reg), src) : g.vmovdqu64(Zmm(reg), src); break;
    }
  }
  void store(CodeGenerator& g, const Address& dst, int reg, const KernelSpec& s) const override {
    const bool nt = s.store == Store::nontemporal, a = s.align == Align::aligned;
    switch (kind) {
      case Vec::sse:
        nt ? g.movntdq(dst, Xmm(reg)) : a ? g.movdqa(dst, Xmm(reg)) : g.movdqu(dst, Xmm(reg));
        break;
      case Vec::avx:
        nt ? g.vmovntdq(dst, Ymm(reg)) : a ? g.vmovdqa(dst, Ymm(reg)) : g.vmovdqu(dst, Ymm(reg));
        break;
      case Vec::avx512:
        nt ? g.vmovntdq(dst, Zmm(reg)) : a ? g.vmovdqa64(dst, Zmm(reg)) : g.vmovdqu64(dst, Zmm(reg));
        break;
    }
  }
  void store_fill(CodeGenerator& g, const Address& dst, int, const KernelSpec& s) const override {
    store(g, dst, 0, s);
  }
  void read_begin(CodeGenerator& g, const KernelSpec& s) const override {
    for (uint32_t i = 0; i < s.scratch; ++i) xor_into(g, int(s.scratch + i), int(s.scratch + i));
  }
  void combine(CodeGenerator& g, int reg, const KernelSpec& s) const override {
    xor_into(g, int(s.scratch) + reg, reg);
  }
  /// acc ^= reg, at the class's width.
  void xor_into(CodeGenerator& g, int acc, int reg) const {
    switch (kind) {
      case Vec::sse: g.pxor(Xmm(acc), Xmm(reg)); break;
      case Vec::avx: g.vxorps(Ymm(acc), Ymm(acc), Ymm(reg)); break;
      case Vec::avx512: g.vpxorq(Zmm(acc), Zmm(acc), Zmm(reg)); break;
    }
  }
  void read_end(CodeGenerator& g, const KernelSpec& s) const override {
    const int a = int(s.scratch);
    for (uint32_t i = 1; i < s.scratch; ++i) xor_into(g, a, a + int(i));
    switch (kind) {
      case Vec::sse:
        g.pshufd(g.xmm0, Xmm(a), 0x4e);  // the upper qword down
        g.pxor(g.xmm0, Xmm(a));
        g.movq(g.rax, g.xmm0);
        return;
      case Vec::avx:
        g.vextractf128(g.xmm0, Ymm(a), 1);
        g.vxorps(g.xmm0, g.xmm0, Xmm(a));
        break;
      case Vec::avx512:
        g.vextracti64x4(g.ymm0, Zmm(a), 1);
        g.vpxorq(g.zmm0, g.zmm0, Zmm(a));  // lanes 0..3 hold the fold of both halves
        g.vextracti32x4(g.xmm1, g.zmm0, 1);
        g.vpxorq(g.zmm0, g.zmm0, g.zmm1);
        break;
    }
    g.vpshufd(g.xmm1, g.xmm0, 0x4e);
    g.vpxor(g.xmm0, g.xmm0, g.xmm1);
    g.vmovq(g.rax, g.xmm0);
  }
  void leave(CodeGenerator& g, const KernelSpec&) const override {
    if (kind != Vec::sse) g.vzeroupper();
  }
};
}  // namespace

template <>
const ClassEmitter& emitter_of<RegClass::sse>() {
  static const Vector e(Vec::sse);
  return e;
}
template <>
const ClassEmitter& emitter_of<RegClass::avx>() {
  static const Vector e(Vec::avx);
  return e;
}
template <>
const ClassEmitter& emitter_of<RegClass::avx512>() {
  static const Vector e(Vec::avx512);
  return e;
}
}  // namespace kex
