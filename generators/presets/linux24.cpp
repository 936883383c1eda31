// Linux 2.4 arch/i386/lib/mmx.c `_mmx_memcpy` (docs/seed-kernels.md §4): the kernel's own
// 3DNow! memcpy for any length.
#include "generators/presets/impl.hpp"

namespace kex::presets_detail {

namespace {
using namespace Xbyak;
using namespace Xbyak::util;

/// One 64-byte step: 2 x (4 movq loads into mm0-3, 4 temporal movq stores).
void quads(Gen& g) {
  for (int half = 0; half < 2; ++half) {
    for (int r = 0; r < 4; ++r) g.movq(Mmx(r), g.qword[rsi + 32 * half + 8 * r]);
    for (int r = 0; r < 4; ++r) g.movq(g.qword[rdi + 32 * half + 8 * r], Mmx(r));
  }
  g.add(rsi, 64);
  g.add(rdi, 64);
}

void mmx_memcpy(Gen& g, const PresetOptions& o, Subs& s) {
  // r8 = len; rcx = i = len / 64 (2.4: `i = len >> 6`).
  g.mov(r8, rdx);
  g.mov(rcx, rdx);
  g.shr(rcx, 6);
  // kernel_fpu_begin(): in user space the stand-in is fsave/fwait (frstor at the end).
  if (o.fsave) note_subst(s, "kernel_fpu_begin/kernel_fpu_end -> fsave+fwait ... frstor (user space)");
  else note_subst(s, "kernel_fpu_begin/kernel_fpu_end -> emms at the end (fsave switch off)");
  fpu_save(g, o, s);
  for (int off : {0, 64, 128, 192, 256}) prefetch_3dnow(g, rsi, off, s);
  Label slow, slow_loop, done, fast_loop;
  g.cmp(rcx, 5);
  g.jbe(slow, Gen::T_NEAR);
  g.L(fast_loop);  // for (; i > 5; i--): with the in-loop prefetch
  prefetch_3dnow(g, rsi, 320, s);
  quads(g);
  g.dec(rcx);
  g.cmp(rcx, 5);
  g.ja(fast_loop);
  g.L(slow);  // for (; i > 0; i--): the last 5 without it, so it never leaves the source
  g.test(rcx, rcx);
  g.jz(done, Gen::T_NEAR);
  g.L(slow_loop);
  quads(g);
  g.dec(rcx);
  g.jnz(slow_loop);
  g.L(done);
  if (o.fsave) fpu_restore(g, o);
  else g.emms();
  // __memcpy(to, from, len & 63): rep movsl, then movsw / movsb for the last 3 bytes.
  g.mov(rcx, r8);
  g.and_(ecx, 63);
  g.mov(rax, rcx);
  g.shr(ecx, 2);
  g.rep();
  g.movsd();
  Label no2, no1;
  g.test(al, 2);
  g.jz(no2);
  g.movsw();
  g.L(no2);
  g.test(al, 1);
  g.jz(no1);
  g.movsb();
  g.L(no1);
  g.ret();
}
}  // namespace

std::vector<Preset> linux24_presets() {
  Preset p;
  p.id = "linux24/_mmx_memcpy";
  p.printed = "_mmx_memcpy";
  p.aliases = {"mmx_memcpy"};
  p.op = Op::copy;
  p.family = "linux24";
  p.origin =
      "Linux 2.4.35 arch/i386/lib/mmx.c _mmx_memcpy (GitHub muzaffar101/rtLinux2.4.35, commit 6c8e8704...; 2.4.0 in "
      "Robin329/Linux-2.4.0 lacks the 59+5 split)";
  p.confidence = "high";
  p.notes =
      "Any length: i = len/64; kernel_fpu_begin; 3DNow! prefetch S+0..256; 64-byte iterations of 2 x (4 movq "
      "loads, 4 movq stores), with prefetch S+320 while more than 5 remain and without it for the last 5; "
      "kernel_fpu_end; the len&63 tail through __memcpy (rep movsl, movsw, movsb). Its in_interrupt() fallback "
      "and CR0.TS handling cannot occur in user space.";
  p.features = {"mmx", "3dnow"};
  p.region = 1;
  p.emit = mmx_memcpy;
  return {p};
}

}  // namespace kex::presets_detail
