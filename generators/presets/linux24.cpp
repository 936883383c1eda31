// Linux 2.4 arch/i386/lib/mmx.c (docs/seed-kernels.md §4, §11): the kernel's own 3DNow! memcpy
// for any length (`_mmx_memcpy`) and the Athlon (CONFIG_MK7) page kernels `fast_clear_page`
// and `fast_copy_page`. The generic MMX page kernels are fast.c's '2.4 MMX version'
// (fastc/fast_clear_page, fastc/fast_copy_page).
//
// Page kernels as emitted here (fsave on, a CPU with 3DNow! prefetch), once per page:
//   fsave [rsp]; fwait                      ; stands in for kernel_fpu_begin() / clts
//   prefetch [rsi+0] ... prefetch [rsi+256] ; copy only, 0F 0D /0
//   mov ecx, 59                             ; 2.4.35 (64 in 2.4.0)
//   L: prefetch [rsi+320]; movq mm0,[rsi]; movntq [rdi],mm0; ... movq mm7,[rsi+56];
//      movntq [rdi+56],mm7; add rsi,64; add rdi,64; dec ecx; jnz L
//   mov ecx, 5; L2: the same without the prefetch   ; 2.4.35 only
//   sfence; frstor [rsp]                    ; stands in for kernel_fpu_end() / stts
#include "generators/presets/impl.hpp"

namespace kex::presets_detail {

namespace {
using namespace Xbyak;
using namespace Xbyak::util;


/// How the kernel version brackets its MMX use, and the user-space stand-in kex emits.
enum class KernelFpu {
  v240,     ///< 2.4.0: clts, or fnsave+fwait if the task owns the FPU ... stts
  v2435     ///< 2.4.35: kernel_fpu_begin() ... kernel_fpu_end()
};

/// Opens the MMX section: fsave+fwait (frstor at the end) with opts.fsave, else nothing
/// (emms at the end). Either way the stand-in is recorded.
void kernel_fpu_begin(Gen& g, const PresetOptions& o, Subs& s, KernelFpu v) {
  const char* what = v == KernelFpu::v240 ? "clts (or fnsave+fwait) ... stts" : "kernel_fpu_begin/kernel_fpu_end";
  if (o.fsave) note_subst(s, std::string(what) + " -> fsave+fwait ... frstor (user space)");
  else note_subst(s, std::string(what) + " -> emms at the end (fsave switch off)");
  fpu_save(g, o, s);
}

/// Closes it: frstor restores the saved (empty) x87 tag word; without fsave, emms.
void kernel_fpu_end(Gen& g, const PresetOptions& o) {
  if (o.fsave) fpu_restore(g, o);
  else g.emms();
}

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
  kernel_fpu_begin(g, o, s, KernelFpu::v2435);
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
  // __memcpy(to, from, len & 63): rep movsl, then movsw / movsb for the last 3 bytes;
  // the source calls it before kernel_fpu_end(), so the tail runs inside the MMX section.
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
  kernel_fpu_end(g, o);
  g.ret();
}
/// CONFIG_MK7 fast_clear_page (2.4.0 and 2.4.35 have the same loop): mm0 = 0; 64
/// iterations of 8 movntq (64 B); sfence.
void k7_clear_page(Gen& g, const PresetOptions& o, Subs& s, KernelFpu v) {
  kernel_fpu_begin(g, o, s, v);
  movntq_clear_page(g);
  kernel_fpu_end(g, o);
}

/// One K7 copy step: 8 interleaved (movq mmk <- [rsi+8k], movntq [rdi+8k] <- mmk), then
/// both pointers advance by 64.
void k7_step(Gen& g) {
  for (int k = 0; k < 8; ++k) {
    g.movq(Mmx(k), g.qword[rsi + 8 * k]);
    g.movntq(g.qword[rdi + 8 * k], Mmx(k));
  }
  g.add(rsi, 64);
  g.add(rdi, 64);
}

/// CONFIG_MK7 fast_copy_page: 3DNow! prefetch S+0..256 after the FPU is taken, then 64
/// K7 steps with prefetch S+320 (2.4.0), or 59 with it and 5 without (2.4.35: the
/// prefetch never leaves the source page); sfence.
void k7_copy_page(Gen& g, const PresetOptions& o, Subs& s, KernelFpu v) {
  kernel_fpu_begin(g, o, s, v);
  for (int off : {0, 64, 128, 192, 256}) prefetch_3dnow(g, rsi, off, s);
  const bool split = v == KernelFpu::v2435;
  g.mov(ecx, split ? (kPage - 320) / 64 : kPage / 64);
  Label with_pf;
  g.L(with_pf);
  prefetch_3dnow(g, rsi, 320, s);
  k7_step(g);
  g.dec(ecx);
  g.jnz(with_pf);
  if (split) {
    g.mov(ecx, 320 / 64);
    Label without_pf;
    g.L(without_pf);
    k7_step(g);
    g.dec(ecx);
    g.jnz(without_pf);
  }
  g.sfence();
  kernel_fpu_end(g, o);
}

const char* const kOrigin240 =
    "Linux 2.4.0 arch/i386/lib/mmx.c (GitHub Robin329/Linux-2.4.0, commit b787e46f189eb53fd379fb418893af58ecbf4d04)";
const char* const kOrigin2435 =
    "Linux 2.4.35 arch/i386/lib/mmx.c, #ifdef CONFIG_MK7 branch (GitHub muzaffar101/rtLinux2.4.35, commit "
    "6c8e87048598101106ad2d44f50175b79f1623d5, an I-pipe tree whose mmx.c page kernels are the stock ones)";

/// `printed` tells the rows apart in seed-layout tables ("K7 fast_copy_page 2.4.0"); the
/// kernel's own function name is an alias.
Preset k7_row(std::string id, std::string printed, Op op, std::string origin, std::string notes, KernelFpu v) {
  Preset p;
  p.id = std::move(id);
  p.printed = std::move(printed);
  p.aliases = {op == Op::clear ? "fast_clear_page" : "fast_copy_page"};
  p.op = op;
  p.family = "linux24";
  p.origin = std::move(origin);
  p.confidence = Confidence::high;
  p.notes = std::move(notes) +
            " Ported from i386 (page at 4(%esp), cdecl) to the kex ABI (dst rdi, src rsi, one call per 4096-byte "
            "region); the kernel's in_interrupt() fallback (slow_*_page, = fastc/slow_*) and the __ex_table fixup "
            "that patches a faulting prefetch into a jmp cannot occur here.";
  p.features = op == Op::clear ? std::vector<std::string>{"mmx", "sse"} : std::vector<std::string>{"mmx", "sse", "3dnow"};
  p.emit = [op, v](Gen& g, const PresetOptions& o, Subs& s) {
    region_loop(g, kPage, rdx, [&] {
      if (op == Op::clear) k7_clear_page(g, o, s, v);
      else k7_copy_page(g, o, s, v);
    });
  };
  return p;
}

}  // namespace

std::vector<Preset> linux24_presets() {
  std::vector<Preset> v;
  v.push_back(k7_row(
      "linux24/fast_clear_page_k7", "K7 fast_clear_page", Op::clear, std::string(kOrigin2435) + "; the same loop in " + kOrigin240,
      "Athlon clear_page: kernel_fpu_begin (2.4.0: clts or fnsave+fwait); pxor mm0; 64 iterations of 8 movntq "
      "(64 B); sfence; kernel_fpu_end (2.4.0: stts). No femms/emms: the kernel leaves the MMX state to the lazy FPU "
      "restore, which frstor stands in for. 2.4.0 and 2.4.35 differ only in the FPU bracket, so one row serves both. "
      "fast.c's faster_clear_page is this loop with fsave/femms/frstor around it.",
      KernelFpu::v2435));
  v.push_back(k7_row(
      "linux24/fast_copy_page_k7", "K7 fast_copy_page", Op::copy, kOrigin2435,
      "Athlon copy_page as of 2.4.35: kernel_fpu_begin; 3DNow! prefetch S+0,64,128,192,256; 59 iterations of "
      "prefetch S+320 and 8 interleaved movq mmk / movntq pairs (mm0-7, 64 B), then 5 iterations without the "
      "prefetch, so it never reads past the source page ((4096-320)/64 = 59); sfence; kernel_fpu_end.",
      KernelFpu::v2435));
  v.push_back(k7_row(
      "linux24/fast_copy_page_k7_2.4.0", "K7 fast_copy_page 2.4.0", Op::copy, kOrigin240,
      "Athlon copy_page as of 2.4.0 (the only fast_copy_page there): clts or fnsave+fwait; 3DNow! prefetch "
      "S+0..256; 64 iterations of prefetch S+320 and 8 interleaved movq mmk / movntq pairs, so the last 5 "
      "prefetches reach up to 320 bytes past the source page; sfence; stts. The 59+5 split came later (by 2.4.35).",
      KernelFpu::v240));
  Preset p;
  p.id = "linux24/_mmx_memcpy";
  p.printed = "_mmx_memcpy";
  p.aliases = {"mmx_memcpy"};
  p.op = Op::copy;
  p.family = "linux24";
  p.origin =
      "Linux 2.4.35 arch/i386/lib/mmx.c _mmx_memcpy (GitHub muzaffar101/rtLinux2.4.35, commit 6c8e8704...; 2.4.0 in "
      "Robin329/Linux-2.4.0 lacks the 59+5 split)";
  p.confidence = Confidence::high;
  p.notes =
      "Any length: i = len/64; kernel_fpu_begin; 3DNow! prefetch S+0..256; 64-byte iterations of 2 x (4 movq "
      "loads, 4 movq stores), with prefetch S+320 while more than 5 remain and without it for the last 5; "
      "the len&63 tail through __memcpy (rep movsl, movsw, movsb); then kernel_fpu_end, after the tail as in the "
      "source. Its in_interrupt() fallback and CR0.TS handling cannot occur in user space.";
  p.features = {"mmx", "3dnow"};
  p.region = 1;
  p.emit = mmx_memcpy;
  v.push_back(p);
  return v;
}

}  // namespace kex::presets_detail
