// Benjamin LaHaise's "SSE test program" (xmm64.c, May 2005, seed 000): its SSE and
// movnti kernels and the 2005 x86-64 kernel routines it timed (docs/seed-kernels.md §5, §6).
// xmm64.c itself was never found: only xmm_clear / xmm_copy_page rest on the kernel
// patch of the same RFC; the other SSE/NT kernels are reconstructions (low confidence).
#include "generators/presets/impl.hpp"

namespace kex::presets_detail {

namespace {

using namespace Xbyak;
using namespace Xbyak::util;


const char* const kOriginRfc =
    "Benjamin LaHaise, RFC \"x86-64: Use SSE for copy_page and clear_page\", patch v2.6.12-rc4-xmm-2.diff, LKML "
    "<20050530181626.GA10212@kvack.org> (30 May 2005); timed by xmm64.c (seed 000, <429B7AB5.5080400@gmail.com>; "
    "the program itself was not found)";
const char* const kOriginRecon =
    "Reconstruction from the name and the seed 000 timings (<429B7AB5.5080400@gmail.com>, 31 May 2005); LaHaise's "
    "xmm64.c (kvack.org/~bcrl/xmm64.c) was never found";
const char* const kOriginNtRecon =
    "Reconstruction: added to xmm64.c after dean gaudet suggested movnti with 64-bit registers "
    "(<Pine.LNX.4.62.0505301209010.25345@twinlark.arctic.org>); timings from seed 000; xmm64.c not found";
const char* const kOriginClearS =
    "Linux v2.6.12-rc2 arch/x86_64/lib/clear_page.S (torvalds/linux 1da177e4c3f41524e886b7f1b8a0c1fc7321cac2), "
    "as timed by LaHaise's xmm64.c (seed 000)";
const char* const kOriginCopyS =
    "Linux v2.6.12-rc2 arch/x86_64/lib/copy_page.S (torvalds/linux 1da177e4c3f41524e886b7f1b8a0c1fc7321cac2; "
    "\"Written 2003 by Andi Kleen, based on a kernel by Evandro Menezes\"), as timed by LaHaise's xmm64.c (seed 000)";

/// An XMM clear: `regs` zeroed registers saved/restored with movdqu on the stack,
/// `bytes` per iteration of 16-byte stores (movntdq or temporal movdqa), optional
/// prefetcht0 `pf` bytes ahead of the destination, sfence after NT stores.
struct XmmClear {
  int regs = 1;
  uint32_t bytes = 64;
  bool nt = true;
  int pf = 0;  ///< 0: none
};

void xmm_save(Gen& g, int regs) {
  g.sub(rsp, 16 * regs);
  for (int r = 0; r < regs; ++r) g.movdqu(g.ptr[rsp + 16 * r], Xmm(r));
}
void xmm_restore(Gen& g, int regs) {
  for (int r = 0; r < regs; ++r) g.movdqu(Xmm(r), g.ptr[rsp + 16 * r]);
  g.add(rsp, 16 * regs);
}

void xmm_clear(Gen& g, const XmmClear& k) {
  xmm_save(g, k.regs);
  for (int r = 0; r < k.regs; ++r) g.pxor(Xmm(r), Xmm(r));
  g.mov(ecx, kPage / k.bytes);
  Label loop;
  g.L(loop);
  if (k.pf) g.prefetcht0(g.ptr[rdi + k.pf]);
  for (uint32_t off = 0, i = 0; off < k.bytes; off += 16, ++i) {
    Xmm x(static_cast<int>(i % k.regs));
    if (k.nt) g.movntdq(g.ptr[rdi + off], x);
    else g.movdqa(g.ptr[rdi + off], x);
  }
  g.add(rdi, k.bytes);
  g.dec(ecx);
  g.jnz(loop);
  if (k.nt) g.sfence();
  xmm_restore(g, k.regs);
}

/// An XMM copy: movdqa loads into `regs` registers then stores (movntdq or movdqa),
/// `bytes` per iteration; prefetchnta prologue/in-loop at `pf` (0: none), or
/// prefetcht0 when `pf_t0`.
struct XmmCopy {
  int regs = 2;
  uint32_t bytes = 32;
  bool nt = true;
  std::vector<int> prologue;
  int pf = 0;
  bool pf_t0 = false;
};

void xmm_copy(Gen& g, const XmmCopy& k) {
  for (int off : k.prologue) g.prefetchnta(g.ptr[rsi + off]);
  xmm_save(g, k.regs);
  g.mov(ecx, kPage / k.bytes);
  Label loop;
  g.L(loop);
  if (k.pf) {
    if (k.pf_t0) g.prefetcht0(g.ptr[rsi + k.pf]);
    else g.prefetchnta(g.ptr[rsi + k.pf]);
  }
  for (uint32_t first = 0; first < k.bytes; first += 16 * k.regs) {
    for (int r = 0; r < k.regs; ++r) g.movdqa(Xmm(r), g.ptr[rsi + first + 16 * r]);
    for (int r = 0; r < k.regs; ++r) {
      if (k.nt) g.movntdq(g.ptr[rdi + first + 16 * r], Xmm(r));
      else g.movdqa(g.ptr[rdi + first + 16 * r], Xmm(r));
    }
  }
  g.add(rsi, k.bytes);
  g.add(rdi, k.bytes);
  g.dec(ecx);
  g.jnz(loop);
  if (k.nt) g.sfence();
  xmm_restore(g, k.regs);
}

/// copy_page.S of 2.6.12: save rbx, r12, r13 in a 24-byte frame; 59 iterations of 8
/// loads (rax rbx rdx r8-r12), prefetcht0 S+320, 8 stores, lea rsi then lea rdi; then 5
/// without the prefetch, lea rdi then lea rsi (the source's order). Each loop label is
/// aligned to 16 bytes with multi-byte nops, as the source's `.p2align 4`.
/// `nt` (the nt_copy_page reconstruction) stores with movnti and ends with sfence.
void gpr_copy_page(Gen& g, bool nt) {
  const Reg64 regs[8] = {rax, rbx, rdx, r8, r9, r10, r11, r12};
  g.sub(rsp, 24);
  g.mov(g.ptr[rsp], rbx);
  g.mov(g.ptr[rsp + 8], r12);
  g.mov(g.ptr[rsp + 16], r13);
  for (int pass = 0; pass < 2; ++pass) {
    const bool pf = pass == 0;
    g.mov(ecx, pf ? 64 - 5 : 5);
    g.align(16);
    Label loop;
    g.L(loop);
    if (pf) g.dec(rcx);
    else g.dec(ecx);
    for (int i = 0; i < 8; ++i) g.mov(regs[i], g.ptr[rsi + 8 * i]);
    if (pf) g.prefetcht0(g.ptr[rsi + 320]);
    for (int i = 0; i < 8; ++i) {
      if (nt) g.movnti(g.ptr[rdi + 8 * i], regs[i]);
      else g.mov(g.ptr[rdi + 8 * i], regs[i]);
    }
    if (pf) {
      g.lea(rsi, g.ptr[rsi + 64]);
      g.lea(rdi, g.ptr[rdi + 64]);
    } else {
      g.lea(rdi, g.ptr[rdi + 64]);
      g.lea(rsi, g.ptr[rsi + 64]);
    }
    g.jnz(loop);
  }
  if (nt) g.sfence();
  g.mov(rbx, g.ptr[rsp]);
  g.mov(r12, g.ptr[rsp + 8]);
  g.mov(r13, g.ptr[rsp + 16]);
  g.add(rsp, 24);
}

Preset xmm64_preset(std::string id, std::string printed, std::vector<std::string> aliases, Op op,
                    const char* origin, Confidence confidence, std::string notes,
                    std::vector<std::string> features, uint32_t alignment, const Reg64& counter,
                    std::function<void(Gen&)> body) {
  Preset p;
  p.id = std::move(id);
  p.printed = std::move(printed);
  p.aliases = std::move(aliases);
  p.op = op;
  p.family = "xmm64";
  p.origin = origin;
  p.confidence = confidence;
  p.notes = std::move(notes);
  p.features = std::move(features);
  p.alignment = alignment;
  p.emit = [body, counter](Gen& g, const PresetOptions&, Subs&) { region_loop(g, kPage, counter, [&] { body(g); }); };
  return p;
}

const char* const kSaveNote =
    " The register save uses movdqu to a stack slot (\"gcc doesn't align stack variables\"); kernel-only CR0.TS and "
    "preemption handling are left out.";

/// The kernel's clear_page of 2005: the unrolled loop and the rep stosq alternative.
std::vector<Preset> xmm64_kernel_clear_rows() {
  std::vector<Preset> v;
  v.push_back(xmm64_preset(
      "xmm64/kernel_clear", "kernel clear", {"clear_page"}, Op::clear, kOriginClearS, Confidence::high,
      "x86-64 clear_page of 2005: xor eax,eax; ECX=64; .p2align 4 (multi-byte nops to 16 bytes); loop of dec ecx, "
      "8 x mov [rdi+8k],rax, lea rdi,[rdi+64], jnz (flags from the dec); nop. Confidence: high for the code, medium "
      "that xmm64.c timed this unrolled path.",
      {}, 1, rdx, [](Gen& g) { clear_page_orig(g); }));
  v.push_back(xmm64_preset(
      "xmm64/kernel_clear_rep", "kernel clear", {"kernel clear (rep stosq)", "clear_page_c"}, Op::clear,
      kOriginClearS, Confidence::high,
      "clear_page's alternative patched in on K8 rev C and later (X86_FEATURE_K8_C): ECX=512, EAX=0, rep stosq. "
      "Not what the seed's P4 ran.",
      {}, 1, rdx, [](Gen& g) {
        g.mov(ecx, kPage / 8);
        g.xor_(eax, eax);
        g.rep();
        g.stosq();
      }));
  return v;
}

/// The SSE clears of the RFC patch and their reconstructions, and the movnti clear.
std::vector<Preset> xmm64_xmm_clear_rows() {
  std::vector<Preset> v;
  v.push_back(xmm64_preset("xmm64/xmm_clear", "xmm_clear", {"c_clear_page_xmm"}, Op::clear, kOriginRfc, Confidence::medium,
                           std::string("Kernel c_clear_page_xmm in user space: save xmm0; pxor xmm0; 64 iterations of "
                                       "4 movntdq (64 B); sfence; restore xmm0.") + kSaveNote,
                           {"sse2"}, 16, rdx, [](Gen& g) { xmm_clear(g, {1, 64, true, 0}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmma_clear", "xmma_clear", {}, Op::clear, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION: xmm_clear with temporal aligned movdqa stores (\"a\" = aligned) and no "
      "sfence; its timings sit with the temporal clears.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_clear(g, {1, 64, false, 0}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmm2_clear", "xmm2_clear", {}, Op::clear, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION (loop shape unknown): a 128-byte unroll of 8 movntdq alternating xmm0/xmm1, "
      "32 iterations, sfence; timings follow xmm_clear.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_clear(g, {2, 128, true, 0}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmma2_clear", "xmma2_clear", {}, Op::clear, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION (loop shape unknown): xmm2_clear with temporal movdqa stores, no sfence.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_clear(g, {2, 128, false, 0}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmm3_clear", "xmm3_clear", {}, Op::clear, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION (unknown kernel, do not treat as authentic): temporal movdqa stores, 64 B per "
      "iteration, with prefetcht0 of the destination 320 B ahead; its time sits with the temporal clears.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_clear(g, {1, 64, false, 320}); }));
  v.push_back(xmm64_preset(
      "xmm64/nt_clear", "nt clear  ", {"nt clear", "nt_clear"}, Op::clear, kOriginNtRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION (low/medium in the spec): RAX=0; 64 iterations of 8 movnti [P+8k],rax; "
      "sfence; no XMM state. The seed printed the name with two trailing blanks.",
      {"sse2"}, 1, rdx, [](Gen& g) {
        g.xor_(eax, eax);
        g.mov(ecx, kPage / 64);
        Label loop;
        g.L(loop);
        for (int k = 0; k < 8; ++k) g.movnti(g.ptr[rdi + 8 * k], rax);
        g.add(rdi, 64);
        g.dec(ecx);
        g.jnz(loop);
        g.sfence();
      }));
  return v;
}

}  // namespace

std::vector<Preset> xmm64_clear_presets() {
  std::vector<Preset> v = xmm64_kernel_clear_rows();
  for (auto& p : xmm64_xmm_clear_rows()) v.push_back(std::move(p));
  return v;
}

std::vector<Preset> xmm64_copy_presets() {
  std::vector<Preset> v;
  const std::vector<int> pro = {0, 64, 128, 192, 256};
  v.push_back(xmm64_preset(
      "xmm64/xmm_copy_page_no", "xmm_copy_page_no", {}, Op::copy, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION: xmm_copy_page without any prefetch (\"no prefetch\"): 128 iterations of 2 "
      "movdqa loads and 2 movntdq stores; sfence.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_copy(g, {2, 32, true, {}, 0, false}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmm_copy_page", "xmm_copy_page", {"c_copy_page_xmm"}, Op::copy, kOriginRfc, Confidence::medium,
      std::string("Kernel c_copy_page_xmm in user space: prefetchnta S+0..256 (of the source; the posted patch "
                  "prefetched its save area, a bug); save xmm0-1; 128 iterations of prefetchnta S+320, 2 movdqa "
                  "loads, 2 movntdq stores (each line is prefetched twice); sfence; restore.") +
          kSaveNote,
      {"sse2"}, 16, rdx, [pro](Gen& g) { xmm_copy(g, {2, 32, true, pro, 320, false}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmma_copy_page", "xmma_copy_page", {}, Op::copy, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION: xmm_copy_page with temporal movdqa stores (\"a\" = aligned) and its prefetches; "
      "no sfence.",
      {"sse2"}, 16, rdx, [pro](Gen& g) { xmm_copy(g, {2, 32, false, pro, 320, false}); }));
  v.push_back(xmm64_preset(
      "xmm64/xmm3_copy_page", "xmm3_copy_page", {}, Op::copy, kOriginRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION (unknown kernel, do not treat as authentic): 64 B per iteration, 4 movdqa loads "
      "(xmm0-3) then 4 temporal movdqa stores, prefetcht0 S+320; the fastest SSE copy in the seed, close to rep movs.",
      {"sse2"}, 16, rdx, [](Gen& g) { xmm_copy(g, {4, 64, false, {}, 320, true}); }));
  v.push_back(xmm64_preset(
      "xmm64/v26_copy_page", "v26_copy_page", {"copy_page"}, Op::copy, kOriginCopyS, Confidence::high,
      "x86-64 copy_page of 2005 (\"don't use streaming store\"): save rbx,r12,r13 (r13 unused); .p2align 4; 59 "
      "iterations of dec rcx, 8 loads (rax rbx rdx r8-r12), prefetcht0 S+320, 8 stores, lea rsi, lea rdi; .p2align 4; "
      "then 5 iterations of dec ecx without the prefetch, lea rdi before lea rsi. Confidence: high for the code, "
      "medium that xmm64.c timed this unrolled path.",
      {}, 1, r14, [](Gen& g) { gpr_copy_page(g, false); }));
  v.push_back(xmm64_preset(
      "xmm64/v26_copy_page_rep", "v26_copy_page", {"v26_copy_page (rep movsq)", "copy_page_c"}, Op::copy,
      kOriginCopyS, Confidence::high,
      "copy_page's alternative patched in on K8 rev C and later: ECX=512, rep movsq. Not what the seed's P4 ran.",
      {}, 1, rdx, [](Gen& g) {
        g.mov(ecx, kPage / 8);
        g.rep();
        g.movsq();
      }));
  v.push_back(xmm64_preset(
      "xmm64/nt_copy_page", "nt_copy_page", {}, Op::copy, kOriginNtRecon, Confidence::low,
      "LOW-CONFIDENCE RECONSTRUCTION: v26_copy_page with movnti stores (8 GPR loads, then 8 movnti per 64 B) and "
      "an sfence; its prefetch and loop shape are unknown and taken from v26 (prefetcht0 S+320 for 59 iterations, 5 "
      "without; the loops aligned to 16 bytes).",
      {"sse2"}, 1, r14, [](Gen& g) { gpr_copy_page(g, true); }));
  return v;
}

}  // namespace kex::presets_detail
