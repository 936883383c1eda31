// FreeBSD amd64 page kernels from sys/amd64/amd64/support.S (docs/seed-kernels.md §11), in two generations:
//   - the older pagezero (movnti, 32 bytes per iteration, sfence) and pagecopy (a
//     prefetchnta pass over the whole source page, then movq/movnti pairs, sfence);
//   - today's pagezero_std (rep stosq), pagezero_erms (rep stosb; the pagezero ifunc
//     picks it on ERMS CPUs), pagecopy (rep movsq) and sse2_pagezero (the old movnti
//     loop with a frame pointer and a 32-byte-aligned loop).
// Rebuilt from reading the two file versions named in each row's origin; our own Xbyak
// emitters. PUSH_FRAME_POINTER / POP_FRAME_POINTER (sys/amd64/include/asmacros.h) are
// `push rbp; mov rbp, rsp` / `pop rbp`.
//
// Kernel ABI adaptation: pagezero(rdi = page) runs once per 4096-byte region of
// kernel(dst rdi, src rsi, bytes rdx). pagecopy(rdi = from, rsi = to) has the opposite
// pointer order to kex, so the old pagecopy's from/to registers are renamed (from = rsi,
// to = rdi), and the new one's three-mov swap (which only puts from/to where rep movsq
// wants them, where kex already has them) is left out.
//
// Old pagezero as emitted, per page (the counter in rdx runs from -4096 up to 0):
//   mov rdx,-4096; sub rdi,rdx; xor eax,eax
//   L: movnti [rdi+rdx],rax; movnti [rdi+rdx+8],rax; movnti [rdi+rdx+16],rax;
//      movnti [rdi+rdx+24],rax; add rdx,32; jne L
//   sfence
#include "generators/presets/impl.hpp"

// Table rows name only the fields they set (designated initializers); the others keep
// Preset's defaults, which is what -Wextra's missing-field-initializers warns about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace kex::presets_detail {

namespace {
using namespace Xbyak;
using namespace Xbyak::util;


const char* const kOld =
    "FreeBSD sys/amd64/amd64/support.S (\"Copyright (c) 2003 Peter Wemm\"), freebsd/freebsd-src file version of commit "
    "00a82464f2191a802270470b4634e5b67263c4d3 (a pre-2018 tree by its contents: assym.s, XEN lgdt, plain "
    "ENTRY(pagezero))";
const char* const kNew =
    "FreeBSD sys/amd64/amd64/support.S, freebsd/freebsd-src file version of commit "
    "3d5db455951d382a9cb355cb4bc56cac5c277603 (a FreeBSD 12-or-later tree by its contents: assym.inc, the MEMMOVE/"
    "MEMSET macros of the 2018 rework, pagezero_std/pagezero_erms)";

const char* const kZeroAbi =
    " ABI: the original takes the page in rdi; kex runs it once per 4096-byte region of kernel(dst rdi, src rsi, "
    "bytes rdx), unchanged.";

void push_frame(Gen& g) {
  g.push(rbp);
  g.mov(rbp, rsp);
}
void pop_frame(Gen& g) { g.pop(rbp); }

/// `movq $imm, %reg` as GNU as encodes it: REX.W C7 /0 id (sign-extended imm32). Xbyak
/// would shorten a positive one to the 32-bit `mov r32, imm` (B8+r).
void movq_imm32(Gen& g, const Reg64& r, int32_t imm) {
  g.db(0x48 | (r.getIdx() >> 3));
  g.db(0xC7);
  g.db(0xC0 | (r.getIdx() & 7));
  g.dd(static_cast<uint32_t>(imm));
}

/// The movnti loop shared by the old pagezero and sse2_pagezero: rdx = -4096, rdi moved
/// to the page end, 4 movnti of rax = 0 per 32 bytes while rdx counts up to 0; sfence.
/// sse2_pagezero jumps over 0x90 padding that puts the loop on a 32-byte boundary.
void movnti_pagezero(Gen& g, bool aligned_loop) {
  movq_imm32(g, rdx, -int32_t(kPage));
  g.sub(rdi, rdx);
  g.xor_(eax, eax);
  Label loop;
  if (aligned_loop) {
    g.jmp(loop);
    g.align(32, false);  // .p2align 5,0x90
  }
  g.L(loop);
  for (int k = 0; k < 4; ++k) g.movnti(g.ptr[rdi + rdx + 8 * k], rax);
  g.add(rdx, 32);
  g.jne(loop);
  g.sfence();
}

/// Old pagecopy with from = rsi, to = rdi: rax = rdx = -4096, both pointers moved to the
/// page end; prefetchnta of each 64-byte line of the source page, ascending; then 4
/// pairs of (mov rax <- [from+rdx], movnti [to+rdx] <- rax) per 32 bytes; sfence.
void old_pagecopy(Gen& g) {
  movq_imm32(g, rax, -int32_t(kPage));
  g.mov(rdx, rax);
  g.sub(rsi, rax);  // from (rdi in FreeBSD)
  g.sub(rdi, rax);  // to (rsi in FreeBSD)
  Label pf, copy;
  g.L(pf);
  g.prefetchnta(g.ptr[rsi + rax]);
  g.add(rax, 64);
  g.jne(pf);
  g.L(copy);
  for (int k = 0; k < 4; ++k) {
    g.mov(rax, g.ptr[rsi + rdx + 8 * k]);
    g.movnti(g.ptr[rdi + rdx + 8 * k], rax);
  }
  g.add(rdx, 32);
  g.jne(copy);
  g.sfence();
}

/// pagezero_std / pagezero_erms / pagecopy of the new file: frame pointer, rcx = count,
/// (eax = 0,) rep stosq / stosb / movsq.
enum class Rep { stosq, stosb, movsq };
void rep_page(Gen& g, Rep r) {
  push_frame(g);
  movq_imm32(g, rcx, r == Rep::stosb ? kPage : kPage / 8);
  if (r != Rep::movsq) g.xor_(eax, eax);
  g.rep();
  switch (r) {
    case Rep::stosq: g.stosq(); break;
    case Rep::stosb: g.stosb(); break;
    case Rep::movsq: g.movsq(); break;
  }
  pop_frame(g);
}

/// Today's pagezero (both ifunc picks), sse2_pagezero and pagecopy.
std::vector<Preset> freebsd_today_rows() {
  std::vector<Preset> v;
  v.push_back({{.id = "freebsd/pagezero_std",
                .printed = "pagezero_std",
                .family = "freebsd",
                .origin = kNew,
                .confidence = Confidence::high,
                .notes = std::string("What the pagezero ifunc picks without ERMS: push rbp; mov rbp,rsp; mov rcx,512; "
                                     "xor eax,eax; rep stosq; pop rbp.") +
                         kZeroAbi},
               Op::clear,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { rep_page(g, Rep::stosq); })});
  v.push_back({{.id = "freebsd/pagezero_erms",
                .printed = "pagezero_erms",
                .family = "freebsd",
                .origin = kNew,
                .confidence = Confidence::high,
                .notes = std::string("What the pagezero ifunc picks on ERMS CPUs: push rbp; mov rbp,rsp; mov rcx,4096; "
                                     "xor eax,eax; rep stosb; pop rbp.") +
                         kZeroAbi},
               Op::clear,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { rep_page(g, Rep::stosb); })});
  v.push_back({{.id = "freebsd/sse2_pagezero",
                .printed = "sse2_pagezero",
                .family = "freebsd",
                .origin = kNew,
                .confidence = Confidence::high,
                .notes = std::string("The old movnti pagezero kept under this name: push rbp; mov rbp,rsp; rdx = -4096; "
                                     "rdi += 4096; xor eax,eax; jmp over 0x90 padding to a 32-byte boundary (the source "
                                     "keeps the 29-byte loop inside one 32-byte line); 4 movnti [rdi+rdx+8k],rax; add rdx,32; jne; sfence; pop rbp.") +
                         kZeroAbi,
                .features = {"sse2"}},
               Op::clear,
               per_page(r8, [](Gen& g, const PresetOptions&, Subs&) {
                 push_frame(g);
                 movnti_pagezero(g, true);
                 pop_frame(g);
               })});
  v.push_back({{.id = "freebsd/pagecopy",
                .printed = "pagecopy",
                .family = "freebsd",
                .origin = kNew,
                .confidence = Confidence::high,
                .notes = "Today's pagecopy(from rdi, to rsi): push rbp; mov rbp,rsp; mov rcx,512; swap from/to into "
                         "rsi/rdi with three movs through r9; rep movsq; pop rbp. kex passes src in rsi and dst in rdi "
                         "already, so the swap is left out (the only change). Runs once per 4096-byte region."},
               Op::copy,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { rep_page(g, Rep::movsq); })});
  return v;
}

/// The older movnti pagezero and the prefetching movnti pagecopy.
std::vector<Preset> freebsd_old_rows() {
  std::vector<Preset> v;
  v.push_back({{.id = "freebsd/pagezero_movnti",
                .printed = "pagezero (movnti)",  // tells it apart in seed-layout tables
                .aliases = {"pagezero"},
                .family = "freebsd",
                .origin = kOld,
                .confidence = Confidence::high,
                .notes = std::string("The older pagezero: rdx = -4096; rdi += 4096; xor eax,eax; loop of 4 movnti "
                                     "[rdi+rdx+8k],rax (32 B), add rdx,32, jne; sfence. No frame pointer, no loop "
                                     "alignment.") +
                         kZeroAbi,
                .features = {"sse2"}},
               Op::clear,
               per_page(r8, [](Gen& g, const PresetOptions&, Subs&) { movnti_pagezero(g, false); })});
  v.push_back({{.id = "freebsd/pagecopy_movnti",
                .printed = "pagecopy (movnti)",
                .aliases = {"pagecopy"},
                .family = "freebsd",
                .origin = kOld,
                .confidence = Confidence::high,
                .notes = "The older pagecopy(from rdi, to rsi): rax = rdx = -4096; both pointers += 4096; prefetchnta "
                         "[from+rax] for every 64-byte line of the source page (add rax,64; jne); then 4 pairs of mov "
                         "rax,[from+rdx] / movnti [to+rdx],rax per 32 bytes (add rdx,32; jne); sfence. Ported with "
                         "from/to renamed to kex's rsi/rdi (FreeBSD passes from in rdi); runs once per 4096-byte "
                         "region.",
                .features = {"sse2"}},
               Op::copy,
               per_page(r8, [](Gen& g, const PresetOptions&, Subs&) { old_pagecopy(g); })});
  return v;
}

}  // namespace

std::vector<Preset> freebsd_presets() {
  std::vector<Preset> v = freebsd_today_rows();
  for (auto& p : freebsd_old_rows()) v.push_back(std::move(p));
  return v;
}

}  // namespace kex::presets_detail
