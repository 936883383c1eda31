// Today's Linux x86-64 page and memcpy kernels (docs/seed-kernels.md §11), the ones engineers compare against:
// arch/x86/lib/clear_page_64.S (clear_page_orig, clear_page_rep, clear_page_erms),
// copy_page_64.S (copy_page = rep movsq, copy_page_regs) and memcpy_64.S (memcpy_orig); and
// the multi-page clear_pages(addr, npages) of the 2025 folio_zero_user series (rep stosb /
// rep stosq / the unrolled loop, chosen by CPU feature).
// Rebuilt from reading those files (versions in each row's origin); our own Xbyak emitters.
//
// Kernel ABI adaptation: Linux clear_page takes the page in rdi only and copy_page takes
// (rdi = to, rsi = from); kex calls every page kernel as kernel(dst rdi, src rsi, bytes rdx)
// and runs the routine once per 4096-byte region (region_loop), so the routine bodies
// are unchanged. memcpy_orig already has the memcpy ABI (rdi, rsi, rdx) and takes any
// length. `RET` is a plain ret (no return thunk, no CONFIG_SLS int3); `.p2align 4` becomes
// Xbyak's multi-byte nop padding to 16.
//
// clear_page_orig as emitted, per page:
//   xor eax,eax; mov ecx,64; <align 16>
//   L: dec ecx; mov [rdi],rax; mov [rdi+8],rax; ... mov [rdi+56],rax; lea rdi,[rdi+64]; jnz L
//   nop
#include "generators/presets/impl.hpp"
#include "src/core/cpu_features.hpp"

// Table rows name only the fields they set (designated initializers); the others keep
// Preset's defaults, which is what -Wextra's missing-field-initializers warns about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace kex::presets_detail {

namespace {
using namespace Xbyak;
using namespace Xbyak::util;


const char* const kClearPage64 =
    "Linux arch/x86/lib/clear_page_64.S, torvalds/linux file version of commit "
    "0db7058e8e23e6bbab1b4747ecabd1784c34f50b (a v6.1-v6.5 tree by its contents: clear_user_* present, "
    "<asm/export.h> still included); the same instructions in the older version of commit "
    "4332195c5615bf748624094ce4ff6797e475024d, where the three were named clear_page, clear_page_c and clear_page_c_e";
const char* const kCopyPage64 =
    "Linux arch/x86/lib/copy_page_64.S (\"Written 2003 by Andi Kleen, based on a kernel by Evandro Menezes\"), "
    "torvalds/linux file version of commit 254a142007114cad7b0a901215c1558e4315d46f (v6.6 or later by its contents: "
    "<linux/export.h>); the same loops in the older version of commit dbe5def9daede716f3a987c876d184daf22d1193 "
    "(copy_page_c / copy_page)";
const char* const kMemcpy64 =
    "Linux arch/x86/lib/memcpy_64.S (\"Copyright 2002 Andi Kleen\"), memcpy_orig, torvalds/linux file version of "
    "commit 002c6ca75289a4ac4f6738213dd2d258704886e4 (a v6.2-v6.3 tree by its contents: memcpy_erms still present, "
    "SYM_TYPED_FUNC_START); the same memcpy_orig in the older version of commit "
    "a5c3b32a1146e44f6b38fdfdfffc27842953420c";

const char* const kPageAbi =
    " ABI: the original takes the page in rdi (copies: rdi = to, rsi = from); kex runs it once per 4096-byte "
    "region of kernel(dst rdi, src rsi, bytes rdx), unchanged.";

/// clear_page_rep (8-byte elements) and clear_page_erms (bytes): ecx = count, eax = 0, rep stos.
void clear_page_string(Gen& g, bool erms) {
  g.mov(ecx, erms ? kPage : kPage / 8);
  g.xor_(eax, eax);
  g.rep();
  if (erms) g.stosb();
  else g.stosq();
}

/// copy_page's REP_GOOD path: ecx = 512, rep movsq.
void copy_page_rep(Gen& g) {
  g.mov(ecx, kPage / 8);
  g.rep();
  g.movsq();
}

/// copy_page_regs: save rbx, r12 in a 16-byte frame; 59 iterations of 8 loads into
/// rax rbx rdx r8-r12, prefetcht0 S+320, 8 stores, lea rsi / lea rdi (flags from the
/// `dec rcx` at the top); then 5 iterations without the prefetch (`dec ecx`, lea rdi
/// before lea rsi); restore. Clobbers rdx, so the region counter is r14.
void copy_page_regs(Gen& g) {
  const Reg64 r[8] = {rax, rbx, rdx, r8, r9, r10, r11, r12};
  g.sub(rsp, 2 * 8);
  g.mov(g.ptr[rsp], rbx);
  g.mov(g.ptr[rsp + 8], r12);
  g.mov(ecx, kPage / 64 - 5);
  g.align(16);
  Label loop64;
  g.L(loop64);
  g.dec(rcx);
  for (int i = 0; i < 8; ++i) g.mov(r[i], g.ptr[rsi + 8 * i]);
  g.prefetcht0(g.ptr[rsi + 5 * 64]);
  for (int i = 0; i < 8; ++i) g.mov(g.ptr[rdi + 8 * i], r[i]);
  g.lea(rsi, g.ptr[rsi + 64]);
  g.lea(rdi, g.ptr[rdi + 64]);
  g.jnz(loop64);
  g.mov(ecx, 5);
  g.align(16);
  Label loop2;
  g.L(loop2);
  g.dec(ecx);
  for (int i = 0; i < 8; ++i) g.mov(r[i], g.ptr[rsi + 8 * i]);
  for (int i = 0; i < 8; ++i) g.mov(g.ptr[rdi + 8 * i], r[i]);
  g.lea(rdi, g.ptr[rdi + 64]);
  g.lea(rsi, g.ptr[rsi + 64]);
  g.jnz(loop2);
  g.mov(rbx, g.ptr[rsp]);
  g.mov(r12, g.ptr[rsp + 8]);
  g.add(rsp, 2 * 8);
}

/// One 32-byte block of memcpy_orig: the count down by 32, 4 qword loads, the source
/// moved, 4 stores, the destination moved; forward (`dir` 1: offsets 0, 8, 16, 24) or
/// backward from the ends (-1: offsets -8, -16, -24, -32).
void orig_block32(Gen& g, int dir) {
  const Reg64 r[4] = {r8, r9, r10, r11};
  g.sub(rdx, 0x20);
  for (int i = 0; i < 4; ++i) g.mov(r[i], g.ptr[rsi + (dir > 0 ? 8 * i : -8 * (i + 1))]);
  g.lea(rsi, g.ptr[rsi + 32 * dir]);
  for (int i = 0; i < 4; ++i) g.mov(g.ptr[rdi + (dir > 0 ? 8 * i : -8 * (i + 1))], r[i]);
  g.lea(rdi, g.ptr[rdi + 32 * dir]);
}

/// memcpy_orig's tail of 0..31 bytes (edx) with overlapping head/end moves: 16..31,
/// 8..15, 4..7, 1..3 bytes; each ends in its own `ret`.
void orig_tail(Gen& g) {
  Label less16, less8, less3, store1, end;
  g.cmp(edx, 16);
  g.jb(less16);
  g.mov(r8, g.ptr[rsi]);
  g.mov(r9, g.ptr[rsi + 8]);
  g.mov(r10, g.ptr[rsi + rdx - 16]);
  g.mov(r11, g.ptr[rsi + rdx - 8]);
  g.mov(g.ptr[rdi], r8);
  g.mov(g.ptr[rdi + 8], r9);
  g.mov(g.ptr[rdi + rdx - 16], r10);
  g.mov(g.ptr[rdi + rdx - 8], r11);
  g.ret();
  g.align(16);
  g.L(less16);
  g.cmp(edx, 8);
  g.jb(less8);
  g.mov(r8, g.ptr[rsi]);
  g.mov(r9, g.ptr[rsi + rdx - 8]);
  g.mov(g.ptr[rdi], r8);
  g.mov(g.ptr[rdi + rdx - 8], r9);
  g.ret();
  g.align(16);
  g.L(less8);
  g.cmp(edx, 4);
  g.jb(less3);
  g.mov(ecx, g.dword[rsi]);
  g.mov(r8d, g.dword[rsi + rdx - 4]);
  g.mov(g.dword[rdi], ecx);
  g.mov(g.dword[rdi + rdx - 4], r8d);
  g.ret();
  g.align(16);
  g.L(less3);
  g.sub(edx, 1);
  g.jb(end);
  g.movzx(ecx, g.byte[rsi]);
  g.jz(store1);  // flags still from the sub: exactly 1 byte
  g.movzx(r8, g.byte[rsi + 1]);
  g.movzx(r9, g.byte[rsi + rdx]);
  g.mov(g.byte[rdi + 1], r8b);
  g.mov(g.byte[rdi + rdx], r9b);
  g.L(store1);
  g.mov(g.byte[rdi], cl);
  g.L(end);
  g.ret();
}

/// memcpy_orig (any length, rdi = dst, rsi = src, rdx = count; returns dst in rax):
///   count < 32: the tail. Otherwise 32-byte blocks of 4 qword loads then 4 stores,
///   forward, or backward from the end when the low byte of src is below that of dst
///   (signed `cmp sil, dil`, against 4 KiB false dependences); then the tail of < 32
///   bytes (orig_tail).
void memcpy_orig(Gen& g) {
  Label fwd_loop, backward, bwd_loop, tail;
  g.mov(rax, rdi);
  g.cmp(rdx, 0x20);
  g.jb(tail, Gen::T_NEAR);
  g.cmp(sil, dil);  // AT&T `cmp %dil, %sil`: flags of sil - dil
  g.jl(backward);
  g.sub(rdx, 0x20);
  g.L(fwd_loop);
  orig_block32(g, 1);
  g.jae(fwd_loop);
  g.add(edx, 0x20);
  g.jmp(tail);
  g.L(backward);
  g.add(rsi, rdx);
  g.add(rdi, rdx);
  g.sub(rdx, 0x20);
  g.align(16);
  g.L(bwd_loop);
  orig_block32(g, -1);
  g.jae(bwd_loop);
  g.add(edx, 0x20);
  g.sub(rsi, rdx);
  g.sub(rdi, rdx);
  g.L(tail);  // 0..31 bytes left
  orig_tail(g);
}

const char* const kClearPages =
    "Linux clear_pages(addr, npages), arch/x86/include/asm/page_64.h, and memzero_page_aligned_unrolled, "
    "arch/x86/lib/clear_page_64.S, as Ankur Arora's folio_zero_user series (v7) posted "
    "them: \"x86/mm: Simplify clear_page_*\" (the patch before it) and [PATCH v7 15/16] \"x86/clear_page: Introduce "
    "clear_pages()\" <20250917152418.4077386-16-ankur.a.arora@oracle.com> (LKML, 17 Sep 2025); the mm tree took the series "
    "(linux-next commit lists name \"x86/mm: simplify clear_page_*\" and \"x86/clear_page: introduce "
    "clear_pages()\"); the merged page_64.h has the same clear_pages() bodies, the unrolled routine renamed "
    "__clear_pages_unrolled (docs/seed-kernels.md, 11.1)";

/// Which of clear_pages' three ALTERNATIVE_2 bodies Linux patches in on a CPU.
enum class ClearPagesPath { erms, rep_good, unrolled };

/// Linux's choice on this CPU: rep stosb with ERMS; else rep stosq with REP_GOOD, which
/// Linux sets on every x86-64 CPU of the last 15 years that lacks ERMS (kex takes it as
/// present: AMD family 0x10 and later, Intel's P6-descended cores); so the unrolled
/// loop is only ever chosen by asking for it.
ClearPagesPath clear_pages_path() {
  return host_features().has(Feature::erms) ? ClearPagesPath::erms : ClearPagesPath::rep_good;
}

/// clear_pages(rdi, rdx / 4096) with one of its bodies: len = npages * 4096 (= rdx) in
/// rcx, eax = 0 (the asm's "a"(0) input), then rep stosb; or shr rcx,3; rep stosq; or
/// memzero_page_aligned_unrolled inline: shr rcx,6; .p2align 4; loop of dec rcx, 8
/// temporal 8-byte stores, lea rdi,[rdi+64], jnz (flags from the dec); nop. The
/// original requires npages >= 1 (its unrolled loop would run 2^58 times on 0); kex's
/// size 0 returns at once (a test of rcx, the one instruction kex adds).
void clear_pages(Gen& g, ClearPagesPath path) {
  Label done;
  g.mov(rcx, rdx);
  g.xor_(eax, eax);
  g.test(rcx, rcx);
  g.jz(done, Gen::T_NEAR);
  if (path == ClearPagesPath::erms) {
    g.rep();
    g.stosb();
  } else if (path == ClearPagesPath::rep_good) {
    g.shr(rcx, 3);
    g.rep();
    g.stosq();
  } else {
    g.shr(rcx, 6);
    g.align(16);
    Label loop;
    g.L(loop);
    g.dec(rcx);
    for (int k = 0; k < 8; ++k) g.mov(g.qword[rdi + 8 * k], rax);
    g.lea(rdi, g.ptr[rdi + 64]);
    g.jnz(loop);
    g.nop();
  }
  g.L(done);
  g.ret();
}

const char* const kClearPagesAbi =
    " ABI: clear_pages(addr rdi, npages) is called once for the whole extent, npages = bytes / 4096 (kex's sizes "
    "are whole pages; run it at huge-page extents, e.g. 2 MiB = 512 pages on a transparent huge page, as "
    "folio_zero_user clears a huge page); a size of 0 returns at once (the original requires npages >= 1).";

/// clear_pages' four presets: the body this CPU gets, then each body by name.
std::vector<Preset> clear_pages_presets();

/// clear_page_64.S's three bodies: the unrolled fallback, rep stosq and rep stosb.
std::vector<Preset> linux_clear_page_rows() {
  std::vector<Preset> v;
  v.push_back({{.id = "linux/clear_page_orig",
                .printed = "clear_page_orig",
                .family = "linux",
                .origin = kClearPage64,
                .confidence = Confidence::high,
                .notes = std::string("The fallback clear_page for CPUs without REP_GOOD: xor eax,eax; ecx = 64; "
                                     ".p2align 4; loop of dec ecx, 8 x mov [rdi+8k],rax, lea rdi,[rdi+64], jnz (flags "
                                     "from the dec); nop; ret. The same instructions and loop alignment as 2.6.12's "
                                     "clear_page (xmm64/kernel_clear); only the name changed.") +
                         kPageAbi},
               Op::clear,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { clear_page_orig(g); })});
  v.push_back({{.id = "linux/clear_page_rep",
                .printed = "clear_page_rep",
                .family = "linux",
                .origin = kClearPage64,
                .confidence = Confidence::high,
                .notes = std::string("clear_page on REP_GOOD CPUs without ERMS: ecx = 512; xor eax,eax; rep stosq.") +
                         kPageAbi},
               Op::clear,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { clear_page_string(g, false); })});
  v.push_back({{.id = "linux/clear_page_erms",
                .printed = "clear_page_erms",
                .family = "linux",
                .origin = kClearPage64,
                .confidence = Confidence::high,
                .notes = std::string("clear_page on ERMS CPUs (the default on most): ecx = 4096; xor eax,eax; rep "
                                     "stosb. Runs on any x86-64; ERMS only makes it fast.") +
                         kPageAbi},
               Op::clear,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { clear_page_string(g, true); })});
  return v;
}

/// copy_page (rep movsq), copy_page_regs and memcpy_orig.
std::vector<Preset> linux_copy_rows() {
  std::vector<Preset> v;
  v.push_back({{.id = "linux/copy_page",
                .printed = "copy_page",
                .family = "linux",
                .origin = kCopyPage64,
                .confidence = Confidence::high,
                .notes = std::string("copy_page on REP_GOOD CPUs: ecx = 512; rep movsq. The ALTERNATIVE \"jmp "
                                     "copy_page_regs\" at its head is patched out on those CPUs and is not emitted.") +
                         kPageAbi},
               Op::copy,
               per_page(rdx, [](Gen& g, const PresetOptions&, Subs&) { copy_page_rep(g); })});
  v.push_back({{.id = "linux/copy_page_regs",
                .printed = "copy_page_regs",
                .family = "linux",
                .origin = kCopyPage64,
                .confidence = Confidence::high,
                .notes = std::string("copy_page without REP_GOOD: save rbx, r12 (16-byte frame); ecx = 59; "
                                     ".p2align 4; 59 iterations of dec rcx, 8 qword loads (rax rbx rdx r8-r12), "
                                     "prefetcht0 S+320, 8 stores, lea rsi, lea rdi; ecx = 5; .p2align 4; 5 iterations "
                                     "of dec ecx without the prefetch, lea rdi before lea rsi; restore. 2.6.12's "
                                     "copy_page (xmm64/v26_copy_page) has the same loops, alignment and lea order, and "
                                     "saved r13 too (unused) in a 24-byte frame.") +
                         kPageAbi},
               Op::copy,
               per_page(r14, [](Gen& g, const PresetOptions&, Subs&) { copy_page_regs(g); })});
  v.push_back({{.id = "linux/memcpy_orig",
                .printed = "memcpy_orig",
                .family = "linux",
                .origin = kMemcpy64,
                .confidence = Confidence::high,
                .notes = "__memcpy's path on CPUs without REP_GOOD (FSRM in later trees), any length: under 32 bytes "
                         "straight to the tail; else 32-byte blocks of 4 qword loads then 4 stores, forward, or "
                         "backward from the end when (signed) the low byte of src is below the low byte of dst "
                         "(\"memory false dependence\"); the tail of 16..31, 8..15, 4..7 and 1..3 bytes with "
                         "overlapping first/last moves. Already the kex ABI (rdi dst, rsi src, rdx count); returns "
                         "dst in rax, which kex ignores.",
                .region = 1},
               Op::copy,
               [](Gen& g, const PresetOptions&, Subs&) { memcpy_orig(g); }});
  return v;
}

}  // namespace

void clear_page_orig(Gen& g) {
  g.xor_(eax, eax);
  g.mov(ecx, kPage / 64);
  g.align(16);
  Label loop;
  g.L(loop);
  g.dec(ecx);
  for (int k = 0; k < 8; ++k) g.mov(g.qword[rdi + 8 * k], rax);
  g.lea(rdi, g.ptr[rdi + 64]);
  g.jnz(loop);
  g.nop();
}

std::vector<Preset> linux_presets() {
  std::vector<Preset> v = linux_clear_page_rows();
  for (auto& p : linux_copy_rows()) v.push_back(std::move(p));
  for (auto& p : clear_pages_presets()) v.push_back(std::move(p));
  return v;
}

namespace {

std::vector<Preset> clear_pages_presets() {
  std::vector<Preset> v;
  v.push_back({{.id = "linux/clear_pages",
                .printed = "clear_pages",
                .family = "linux",
                .origin = kClearPages,
                .confidence = Confidence::high,
                .notes = std::string("The body Linux's ALTERNATIVE_2 patches in on this CPU (the substitutions say "
                                     "which): rep stosb with ERMS (linux/clear_pages_erms), else rep stosq with "
                                     "REP_GOOD (linux/clear_pages_rep); kex takes REP_GOOD as present on every "
                                     "x86-64 CPU without ERMS, so the unrolled fallback (linux/clear_pages_unrolled) "
                                     "is never chosen here.") +
                         kClearPagesAbi},
               Op::clear,
               [](Gen& g, const PresetOptions&, Subs& subs) {
                 const ClearPagesPath path = clear_pages_path();
                 note_subst(subs, path == ClearPagesPath::erms
                                      ? "clear_pages on this CPU: rep stosb (ERMS)"
                                      : "clear_pages on this CPU: shr rcx,3; rep stosq (REP_GOOD, no ERMS)");
                 clear_pages(g, path);
               }});
  v.push_back({{.id = "linux/clear_pages_erms",
                .printed = "clear_pages_erms",
                .family = "linux",
                .origin = kClearPages,
                .confidence = Confidence::high,
                .notes = std::string("clear_pages' ERMS body: rcx = npages * 4096, eax = 0, rep stosb, over the whole "
                                     "extent in one instruction. Runs on any x86-64; ERMS (and FSRS/FZLRM for short "
                                     "ones) only make it fast.") +
                         kClearPagesAbi},
               Op::clear,
               [](Gen& g, const PresetOptions&, Subs&) { clear_pages(g, ClearPagesPath::erms); }});
  v.push_back({{.id = "linux/clear_pages_rep",
                .printed = "clear_pages_rep",
                .family = "linux",
                .origin = kClearPages,
                .confidence = Confidence::high,
                .notes = std::string("clear_pages' REP_GOOD body: rcx = npages * 4096, eax = 0, shr rcx,3; rep "
                                     "stosq.") +
                         kClearPagesAbi},
               Op::clear,
               [](Gen& g, const PresetOptions&, Subs&) { clear_pages(g, ClearPagesPath::rep_good); }});
  v.push_back({{.id = "linux/clear_pages_unrolled",
                .printed = "clear_pages_unrolled",
                .family = "linux",
                .origin = kClearPages,
                .confidence = Confidence::high,
                .notes = std::string("clear_pages' fallback, memzero_page_aligned_unrolled (clear_page_orig's loop "
                                     "over any page-aligned length): rcx = npages * 4096, eax = 0; shr rcx,6; "
                                     ".p2align 4; loop of dec rcx, 8 x mov [rdi+8k],rax, lea rdi,[rdi+64], jnz; nop; "
                                     "ret. The original is a call; here it is inline (no call/ret pair).") +
                         kClearPagesAbi},
               Op::clear,
               [](Gen& g, const PresetOptions&, Subs&) { clear_pages(g, ClearPagesPath::unrolled); }});
  return v;
}

}  // namespace

}  // namespace kex::presets_detail
