// Named reference kernels (generators/presets/, docs/seed-kernels.md): byte-exact verification on 1, 2 and 17 regions,
// and a Capstone check of each preset's defining instructions against the spec
// (docs/seed-kernels.md), driven by the expectation table below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "generators/disasm_ext.hpp"
#include "generators/jit.hpp"
#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "generators/presets/presets.hpp"
#include "src/run/verify.hpp"

using namespace kex;

namespace {

/// `n` instructions with this mnemonic whose operand text contains `operand`.
struct Count {
  std::string mnemonic, operand;
  int n;
};
/// Defining instructions of one preset. `order` lists "mnemonic|operand-part" items that
/// must appear in this order (as a subsequence of the disassembly). `aligned` gives
/// items whose nth occurrence must start at a multiple of N bytes from the kernel's
/// start (a `.p2align` of the source; kernels start 64-byte aligned).
struct Expect {
  std::string id;
  std::vector<Count> counts;
  std::vector<std::string> order;
  struct Aligned {
    std::string item;
    int n;
    int nth = 1;  ///< which occurrence (1 = first)
  };
  std::vector<Aligned> aligned = {};
};

const char* kPf3 = "prefetch";  // 3DNow! prefetch (mapped below when substituted)

// Shorthands for the fast.c MMX family.
std::vector<Count> fpu(int fsaves, int frstors) { return {{"fnsave", "", fsaves}, {"frstor", "", frstors}}; }
std::vector<Count> operator+(std::vector<Count> a, const std::vector<Count>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Expect>& expectations() {
  static const std::vector<Expect> t = {
      {"fastc/normal_clear_page", {{"rep stosd", "", 1}, {"cld", "", 0}, {"mov", "ecx, 0x400", 1}}, {}},
      {"fastc/slow_zero_page", {{"rep stosd", "", 1}, {"cld", "", 1}}, {"cld|", "rep stosd|"}},
      {"fastc/fast_clear_page",
       std::vector<Count>{{"movq", "ptr [rdi", 16}, {"movntq", "", 0}, {"sfence", "", 0}, {"femms", "", 1},
                          {"mov", "ecx, 0x20", 1}} + fpu(1, 1),
       {"fnsave|", "pxor|mm0", "movq|[rdi]", "movq|[rdi + 0x78]", "femms|", "frstor|"}},
      {"hahn/fast_clear_page",
       std::vector<Count>{{"movq", "ptr [rdi", 16}, {"sfence", "", 1}, {"femms", "", 1}} + fpu(1, 1),
       {"fnsave|", "movq|[rdi + 0x78]", "sfence|", "femms|", "frstor|"}},
      {"fastc/faster_clear_page",
       std::vector<Count>{{"movntq", "", 8}, {"movq", "", 0}, {"sfence", "", 1}, {"femms", "", 1},
                          {"mov", "ecx, 0x40", 1}} + fpu(1, 1),
       {"fnsave|", "movntq|[rdi]", "movntq|[rdi + 0x38]", "sfence|", "femms|", "frstor|"}},
      {"fastc/even_faster_clear",
       std::vector<Count>{{"movntq", "", 8}, {"sfence", "", 1}, {"femms", "", 1}} + fpu(1, 1),
       {"fnsave|", "movntq|", "sfence|", "femms|", "frstor|"}},
      {"xmm64/kernel_clear",
       {{"mov", "qword ptr [rdi", 8}, {"mov", "ecx, 0x40", 1}, {"rep stosq", "", 0}},
       {"xor|eax, eax", "mov|ecx, 0x40", "dec|ecx", "mov|qword ptr [rdi], rax", "mov|qword ptr [rdi + 0x38], rax",
        "lea|rdi, [rdi + 0x40]", "jne|", "nop|"},
       // .p2align 4 before the loop, as clear_page.S of 2.6.12
       {{"dec|ecx", 16}}},
      {"xmm64/kernel_clear_rep", {{"rep stosq", "", 1}, {"mov", "ecx, 0x200", 1}}, {}},
      {"xmm64/xmm_clear",
       {{"movntdq", "", 4}, {"movdqa", "", 0}, {"movdqu", "", 2}, {"sfence", "", 1}, {"pxor", "xmm0", 1}},
       {"movdqu|[rsp], xmm0", "pxor|", "movntdq|[rdi]", "movntdq|[rdi + 0x30]", "sfence|", "movdqu|xmm0, "}},
      {"xmm64/xmma_clear", {{"movdqa", "ptr [rdi", 4}, {"movntdq", "", 0}, {"sfence", "", 0}}, {}},
      {"xmm64/xmm2_clear",
       {{"movntdq", "", 8}, {"movdqu", "", 4}, {"pxor", "", 2}, {"sfence", "", 1}, {"mov", "ecx, 0x20", 1}},
       {"movntdq|[rdi], xmm0", "movntdq|[rdi + 0x10], xmm1"}},
      {"xmm64/xmma2_clear", {{"movdqa", "ptr [rdi", 8}, {"movntdq", "", 0}, {"sfence", "", 0}}, {}},
      {"xmm64/xmm3_clear", {{"movdqa", "ptr [rdi", 4}, {"prefetcht0", "[rdi + 0x140]", 1}, {"movntdq", "", 0}}, {}},
      {"xmm64/nt_clear", {{"movnti", "ptr [rdi", 8}, {"sfence", "", 1}, {"movdqu", "", 0}}, {"movnti|", "sfence|"}},
      {"fastc/normal_copy_page", {{"rep movsd", "", 1}, {"cld", "", 0}, {"mov", "ecx, 0x400", 1}}, {}},
      {"fastc/slow_copy_page", {{"rep movsd", "", 1}, {"cld", "", 1}}, {"cld|", "rep movsd|"}},
      {"fastc/fast_copy_page",
       std::vector<Count>{{kPf3, "", 6},
                          {kPf3, "[rsi]", 1},
                          {kPf3, "[rsi + 0x100]", 1},
                          {kPf3, "[rsi + 0x140]", 1},
                          {"movq", "mm", 16},
                          {"femms", "", 1},
                          {"sfence", "", 0}} +
           fpu(2, 0),  // the v1.6 bug: a second fsave instead of frstor
       {"fnsave|", "prefetch|[rsi]", "prefetch|[rsi + 0x100]", "prefetch|[rsi + 0x140]", "movq|mm0, qword ptr [rsi]",
        "movq|qword ptr [rdi + 0x18], mm3", "movq|mm0, qword ptr [rsi + 0x20]", "femms|", "fnsave|"}},
      {"hahn/fast_copy_page",
       std::vector<Count>{{kPf3, "", 6}, {kPf3, "[rsi + 0xc4]", 1}, {kPf3, "[rsi + 0x140]", 0}, {"movq", "mm", 16}} +
           fpu(1, 1),
       {"fnsave|", "prefetch|[rsi + 0x100]", "prefetch|[rsi + 0xc4]", "movq|", "sfence|", "femms|", "frstor|"}},
      {"fastc/faster_copy",
       std::vector<Count>{{"prefetchnta", "", 5},
                          {"prefetchnta", "[rsi + 0x140]", 1},
                          {"movq", "mm", 8},
                          {"movntq", "", 8},
                          {"sfence", "", 1},
                          {"femms", "", 1}} +
           fpu(1, 1),
       {"prefetchnta|[rsi]", "prefetchnta|[rsi + 0xc0]", "fnsave|", "prefetchnta|[rsi + 0x140]", "movq|mm0,",
        "movq|mm7,", "movntq|[rdi], mm0", "movntq|[rdi + 0x38], mm7", "femms|", "sfence|", "frstor|"}},
      {"hahn/faster_copy",
       std::vector<Count>{{"prefetchnta", "", 5}, {"prefetchnta", "[rsi + 0xc4]", 1}, {"movq", "mm", 8},
                          {"movntq", "", 8}, {"sfence", "", 1}} +
           fpu(1, 1),
       {"prefetchnta|[rsi + 0xc0]", "fnsave|", "movq|mm7,", "prefetchnta|[rsi + 0xc4]", "movntq|[rdi], mm0",
        "femms|", "frstor|", "sfence|"}},
      {"fastc/even_faster",
       std::vector<Count>{{"prefetchnta", "", 5}, {"prefetchnta", "[rsi + 0x100]", 1}, {"movq", "mm", 8},
                          {"movntq", "", 8}} +
           fpu(1, 1),
       {"fnsave|", "prefetchnta|[rsi + 0x100]", "movq|mm0,", "movntq|mm0", "movq|mm1,", "movntq|mm1", "movq|mm7,",
        "movntq|mm7", "femms|", "sfence|", "frstor|"}},
      {"hahn/even_faster",
       std::vector<Count>{{"prefetchnta", "", 5}, {"prefetchnta", "[rsi + 0xc8]", 1}, {"movntq", "", 8}} + fpu(1, 1),
       {"prefetchnta|[rsi + 0xc8]", "movq|mm0,", "movntq|mm0", "femms|", "frstor|", "sfence|"}},
      {"fastc/no_prefetch",
       std::vector<Count>{{"prefetchnta", "", 0}, {"prefetcht0", "", 0}, {kPf3, "", 0}, {"mov", "eax, dword ptr", 4},
                          {"movq", "mm", 8}, {"movntq", "", 8}, {"emms", "", 1}} +
           fpu(1, 1),
       // one dword per 64-byte line, groups from the page end (0xf00) down, +0xc0..+0 inside each
       {"mov|ecx, 0x10", "lea|r8, [rsi + 0xf00]", "mov|[r8 + 0xc0]", "mov|[r8 + 0x80]", "mov|[r8 + 0x40]",
        "mov|[r8]", "sub|r8, 0x100", "fnsave|", "movq|mm0,", "movntq|mm0", "movq|mm1,", "sfence|", "emms|",
        "frstor|"}},
      {"fastc/no_prefetch2",
       std::vector<Count>{{"prefetchnta", "", 0}, {"mov", "eax, dword ptr", 4}, {"movntq", "", 8}} + fpu(1, 1),
       {"mov|r8, rsi", "mov|[r8 + 0xc0]", "mov|[r8]", "add|r8, 0x100", "fnsave|", "movq|mm7,", "movntq|mm0",
        "sfence|"}},
      {"xmm64/xmm_copy_page_no",
       {{"movdqa", "xmm", 2}, {"movntdq", "", 2}, {"prefetchnta", "", 0}, {"sfence", "", 1}, {"mov", "ecx, 0x80", 1}},
       {}},
      {"xmm64/xmm_copy_page",
       {{"prefetchnta", "", 6}, {"prefetchnta", "[rsi + 0x140]", 1}, {"movdqa", "xmm", 2}, {"movntdq", "", 2},
        {"sfence", "", 1}, {"movdqu", "", 4}, {"mov", "ecx, 0x80", 1}},
       {"prefetchnta|[rsi]", "prefetchnta|[rsi + 0x100]", "movdqu|[rsp], xmm0", "prefetchnta|[rsi + 0x140]",
        "movdqa|xmm0, xmmword ptr [rsi]", "movdqa|xmm1, xmmword ptr [rsi + 0x10]", "movntdq|[rdi], xmm0",
        "sfence|"}},
      {"xmm64/xmma_copy_page", {{"prefetchnta", "", 6}, {"movdqa", "", 4}, {"movntdq", "", 0}, {"sfence", "", 0}}, {}},
      {"xmm64/xmm3_copy_page",
       {{"movdqa", "", 8}, {"prefetcht0", "[rsi + 0x140]", 1}, {"movntdq", "", 0}, {"mov", "ecx, 0x40", 1}},
       {}},
      {"xmm64/v26_copy_page",
       {{"mov", "qword ptr [rsi", 16},
        {"mov", "qword ptr [rdi", 16},
        {"prefetcht0", "[rsi + 0x140]", 1},
        {"mov", "ecx, 0x3b", 1},
        {"mov", "ecx, 5", 1},
        {"movnti", "", 0},
        {"sfence", "", 0}},
       {"sub|rsp, 0x18", "mov|[rsp], rbx", "mov|ecx, 0x3b", "dec|rcx", "mov|rax, qword ptr [rsi]",
        "mov|r12, qword ptr [rsi + 0x38]", "prefetcht0|[rsi + 0x140]", "mov|qword ptr [rdi], rax",
        "lea|rsi, [rsi + 0x40]", "lea|rdi, [rdi + 0x40]", "jne|", "mov|ecx, 5", "dec|ecx",
        "mov|r12, qword ptr [rsi + 0x38]", "mov|[rdi + 0x38], r12", "lea|rdi, [rdi + 0x40]", "lea|rsi, [rsi + 0x40]",
        "jne|", "add|rsp, 0x18"},
       // both loops .p2align 4, as copy_page.S of 2.6.12
       {{"dec|rcx", 16}, {"dec|ecx", 16}}},
      {"xmm64/v26_copy_page_rep", {{"rep movsq", "", 1}, {"mov", "ecx, 0x200", 1}}, {}},
      {"xmm64/nt_copy_page",
       {{"movnti", "ptr [rdi", 16}, {"mov", "qword ptr [rsi", 16}, {"sfence", "", 1}, {"prefetcht0", "", 1}},
       {"mov|ecx, 0x3b", "prefetcht0|", "movnti|", "mov|ecx, 5", "movnti|", "sfence|"}},
      {"linux24/_mmx_memcpy",
       std::vector<Count>{{kPf3, "", 6}, {kPf3, "[rsi + 0x140]", 1}, {"movq", "mm", 32}, {"rep movsd", "", 1},
                          {"movsw", "", 1}, {"movsb", "", 1}, {"movntq", "", 0}} +
           fpu(1, 1),
       {"fnsave|", "prefetch|[rsi]", "prefetch|[rsi + 0x100]", "cmp|rcx, 5", "prefetch|[rsi + 0x140]", "movq|mm0,",
        "ja|", "movq|mm0,", "jne|", "rep movsd|", "movsw|", "movsb|", "frstor|", "ret|"}},
      // Linux 2.4 mmx.c CONFIG_MK7 (kernel_fpu_begin/end -> fsave ... frstor, no femms)
      {"linux24/fast_clear_page_k7",
       std::vector<Count>{{"movntq", "qword ptr [rdi", 8}, {"movq", "", 0}, {"sfence", "", 1}, {"femms", "", 0},
                          {"emms", "", 0}, {"pxor", "mm0, mm0", 1}, {"mov", "ecx, 0x40", 1}} + fpu(1, 1),
       {"fnsave|", "pxor|mm0", "movntq|[rdi], mm0", "movntq|[rdi + 0x38], mm0", "add|rdi, 0x40", "dec|ecx", "jne|",
        "sfence|", "frstor|"}},
      {"linux24/fast_copy_page_k7",
       std::vector<Count>{{kPf3, "", 6}, {kPf3, "[rsi + 0x140]", 1}, {kPf3, "[rsi + 0x100]", 1},
                          {"movq", "mm", 16}, {"movntq", "qword ptr [rdi", 16}, {"sfence", "", 1}, {"femms", "", 0},
                          {"emms", "", 0}, {"mov", "ecx, 0x3b", 1}, {"mov", "ecx, 5", 1}} + fpu(1, 1),
       // the 59 iterations with the prefetch, then 5 without: it never leaves the page
       {"fnsave|", "prefetch|[rsi]", "prefetch|[rsi + 0x100]", "mov|ecx, 0x3b", "prefetch|[rsi + 0x140]",
        "movq|mm0, qword ptr [rsi]", "movntq|[rdi], mm0", "movq|mm1, qword ptr [rsi + 8]", "movntq|[rdi + 8], mm1",
        "movq|mm7, qword ptr [rsi + 0x38]", "movntq|[rdi + 0x38], mm7", "jne|", "mov|ecx, 5",
        "movq|mm0, qword ptr [rsi]", "movntq|[rdi + 0x38], mm7", "jne|", "sfence|", "frstor|"}},
      {"linux24/fast_copy_page_k7_2.4.0",
       std::vector<Count>{{kPf3, "", 6}, {kPf3, "[rsi + 0x140]", 1}, {"movq", "mm", 8}, {"movntq", "", 8},
                          {"sfence", "", 1}, {"femms", "", 0}, {"mov", "ecx, 0x40", 1}, {"mov", "ecx, 5", 0}} +
           fpu(1, 1),
       {"fnsave|", "prefetch|[rsi]", "prefetch|[rsi + 0x100]", "mov|ecx, 0x40", "prefetch|[rsi + 0x140]",
        "movq|mm0,", "movntq|[rdi], mm0", "movq|mm7,", "movntq|[rdi + 0x38], mm7", "jne|", "sfence|", "frstor|"}},
      // today's Linux arch/x86/lib/{clear,copy}_page_64.S, memcpy_64.S
      {"linux/clear_page_orig",
       {{"mov", "qword ptr [rdi", 8}, {"mov", "ecx, 0x40", 1}, {"rep stosq", "", 0}, {"movnti", "", 0}},
       {"xor|eax, eax", "mov|ecx, 0x40", "dec|ecx", "mov|qword ptr [rdi], rax", "mov|qword ptr [rdi + 0x38], rax",
        "lea|rdi, [rdi + 0x40]", "jne|", "nop|"},
       {{"dec|ecx", 16}}},
      {"linux/clear_page_rep", {{"rep stosq", "", 1}, {"rep stosb", "", 0}, {"mov", "ecx, 0x200", 1}},
       {"mov|ecx, 0x200", "xor|eax, eax", "rep stosq|"}},
      {"linux/clear_page_erms", {{"rep stosb", "", 1}, {"rep stosq", "", 0}, {"mov", "ecx, 0x1000", 1}},
       {"mov|ecx, 0x1000", "xor|eax, eax", "rep stosb|"}},
      {"linux/copy_page", {{"rep movsq", "", 1}, {"mov", "ecx, 0x200", 1}, {"mov", "qword ptr [rsi", 0}},
       {"mov|ecx, 0x200", "rep movsq|"}},
      {"linux/copy_page_regs",
       {{"mov", "qword ptr [rsi", 16},
        {"mov", "qword ptr [rdi", 16},
        {"prefetcht0", "[rsi + 0x140]", 1},
        {"mov", "ecx, 0x3b", 1},
        {"mov", "ecx, 5", 1},
        {"mov", "r13", 0},  // 2.6.12 saved r13 too
        {"sub", "rsp, 0x10", 1},
        {"movnti", "", 0}},
       {"sub|rsp, 0x10", "mov|qword ptr [rsp], rbx", "mov|qword ptr [rsp + 8], r12", "mov|ecx, 0x3b", "dec|rcx",
        "mov|rax, qword ptr [rsi]", "mov|r12, qword ptr [rsi + 0x38]", "prefetcht0|[rsi + 0x140]",
        "mov|qword ptr [rdi], rax", "lea|rsi, [rsi + 0x40]", "lea|rdi, [rdi + 0x40]", "jne|", "mov|ecx, 5",
        "dec|ecx", "mov|qword ptr [rdi + 0x38], r12", "lea|rdi, [rdi + 0x40]", "lea|rsi, [rsi + 0x40]", "jne|",
        "mov|rbx, qword ptr [rsp]", "add|rsp, 0x10"},
       {{"dec|rcx", 16}, {"dec|ecx", 16}}},
      {"linux/memcpy_orig",
       {{"cmp", "sil, dil", 1}, {"jl", "", 1}, {"jae", "", 2}, {"movzx", "", 3}, {"ret", "", 4},
        {"lea", "rsi, [rsi + 0x20]", 1}, {"lea", "rsi, [rsi - 0x20]", 1}},
       {"mov|rax, rdi", "cmp|rdx, 0x20", "jb|", "cmp|sil, dil", "jl|", "sub|rdx, 0x20", "sub|rdx, 0x20",
        "mov|r8, qword ptr [rsi]", "mov|r11, qword ptr [rsi + 0x18]", "lea|rsi, [rsi + 0x20]",
        "mov|qword ptr [rdi], r8", "lea|rdi, [rdi + 0x20]", "jae|", "add|edx, 0x20", "jmp|", "add|rsi, rdx",
        "add|rdi, rdx", "sub|rdx, 0x20", "sub|rdx, 0x20", "mov|r8, qword ptr [rsi - 8]",
        "mov|r11, qword ptr [rsi - 0x20]", "lea|rsi, [rsi - 0x20]", "mov|qword ptr [rdi - 8], r8", "jae|",
        "add|edx, 0x20", "sub|rsi, rdx", "sub|rdi, rdx", "cmp|edx, 0x10", "jb|", "mov|r10, qword ptr [rsi + rdx - 0x10]",
        "mov|qword ptr [rdi + rdx - 8], r11", "ret|", "cmp|edx, 8", "mov|r9, qword ptr [rsi + rdx - 8]", "ret|",
        "cmp|edx, 4", "mov|ecx, dword ptr [rsi]", "mov|r8d, dword ptr [rsi + rdx - 4]", "ret|", "sub|edx, 1",
        "jb|", "movzx|ecx, byte ptr [rsi]", "je|", "movzx|r8, byte ptr [rsi + 1]", "movzx|r9, byte ptr [rsi + rdx]",
        "mov|byte ptr [rdi + 1], r8b", "mov|byte ptr [rdi + rdx], r9b", "mov|byte ptr [rdi], cl", "ret|"},
       // .p2align 4 before the backward loop (4th `sub rdx, 0x20`) and the three short tails
       {{"sub|rdx, 0x20", 16, 4}, {"cmp|edx, 8", 16}, {"cmp|edx, 4", 16}, {"sub|edx, 1", 16}}},
      // clear_pages(addr, npages) of the 2025 folio_zero_user series: one call over the whole extent
      // the body Linux patches in on this CPU
      host_features().has(Feature::erms)
          ? Expect{"linux/clear_pages", {{"rep stosb", "", 1}, {"rep stosq", "", 0}}, {"xor|eax, eax", "rep stosb|"}}
          : Expect{"linux/clear_pages", {{"rep stosq", "", 1}, {"rep stosb", "", 0}}, {"shr|rcx, 3", "rep stosq|"}},
      {"linux/clear_pages_erms",
       {{"rep stosb", "", 1}, {"rep stosq", "", 0}, {"shr", "", 0}, {"mov", "qword ptr [rdi", 0}},
       {"mov|rcx, rdx", "xor|eax, eax", "test|rcx, rcx", "je|", "rep stosb|", "ret|"}},
      {"linux/clear_pages_rep",
       {{"rep stosq", "", 1}, {"rep stosb", "", 0}, {"shr", "rcx, 3", 1}},
       {"mov|rcx, rdx", "xor|eax, eax", "test|rcx, rcx", "je|", "shr|rcx, 3", "rep stosq|", "ret|"}},
      {"linux/clear_pages_unrolled",
       {{"mov", "qword ptr [rdi", 8}, {"shr", "rcx, 6", 1}, {"dec", "rcx", 1}, {"rep stosq", "", 0},
        {"rep stosb", "", 0}},
       {"mov|rcx, rdx", "xor|eax, eax", "test|rcx, rcx", "je|", "shr|rcx, 6", "dec|rcx", "mov|qword ptr [rdi], rax",
        "mov|qword ptr [rdi + 0x38], rax", "lea|rdi, [rdi + 0x40]", "jne|", "nop|", "ret|"},
       // .p2align 4 before the loop, as memzero_page_aligned_unrolled
       {{"dec|rcx", 16}}},
      // FreeBSD sys/amd64/amd64/support.S
      {"freebsd/pagezero_std",
       {{"rep stosq", "", 1}, {"mov", "rcx, 0x200", 1}, {"push", "rbp", 1}, {"pop", "rbp", 1}},
       {"push|rbp", "mov|rbp, rsp", "mov|rcx, 0x200", "xor|eax, eax", "rep stosq|", "pop|rbp"}},
      {"freebsd/pagezero_erms",
       {{"rep stosb", "", 1}, {"mov", "rcx, 0x1000", 1}, {"push", "rbp", 1}},
       {"push|rbp", "mov|rbp, rsp", "mov|rcx, 0x1000", "xor|eax, eax", "rep stosb|", "pop|rbp"}},
      {"freebsd/sse2_pagezero",
       {{"movnti", "qword ptr [rdi + rdx", 4}, {"sfence", "", 1}, {"jmp", "", 1}, {"push", "rbp", 1},
        {"mov", "rdx, -0x1000", 1}},
       {"push|rbp", "mov|rbp, rsp", "mov|rdx, -0x1000", "sub|rdi, rdx", "xor|eax, eax", "jmp|",
        "movnti|[rdi + rdx], rax", "movnti|[rdi + rdx + 8], rax", "movnti|[rdi + rdx + 0x18], rax", "add|rdx, 0x20",
        "jne|", "sfence|", "pop|rbp"},
       {{"movnti|[rdi + rdx], rax", 32}}},
      {"freebsd/pagecopy",
       {{"rep movsq", "", 1}, {"mov", "rcx, 0x200", 1}, {"push", "rbp", 1}, {"mov", "r9", 0}},
       {"push|rbp", "mov|rbp, rsp", "mov|rcx, 0x200", "rep movsq|", "pop|rbp"}},
      {"freebsd/pagezero_movnti",
       {{"movnti", "qword ptr [rdi + rdx", 4}, {"sfence", "", 1}, {"push", "rbp", 0}, {"jmp", "", 0}},
       {"mov|rdx, -0x1000", "sub|rdi, rdx", "xor|eax, eax", "movnti|[rdi + rdx], rax",
        "movnti|[rdi + rdx + 0x18], rax", "add|rdx, 0x20", "jne|", "sfence|"}},
      {"freebsd/pagecopy_movnti",
       {{"prefetchnta", "[rsi + rax]", 1}, {"movnti", "qword ptr [rdi + rdx", 4},
        {"mov", "rax, qword ptr [rsi + rdx", 4}, {"sfence", "", 1}},
       {"mov|rax, -0x1000", "mov|rdx, rax", "sub|rsi, rax", "sub|rdi, rax", "prefetchnta|[rsi + rax]",
        "add|rax, 0x40", "jne|", "mov|rax, qword ptr [rsi + rdx]", "movnti|[rdi + rdx], rax",
        "mov|rax, qword ptr [rsi + rdx + 0x18]", "movnti|[rdi + rdx + 0x18], rax", "add|rdx, 0x20", "jne|",
        "sfence|"}},
      // FreeBSD i386 support.s rev 1.41.2.2 generic_bcopy: forward rep movsl/movsb, backward with std
      {"asami/generic_bcopy",
       {{"rep movsd", "", 2}, {"rep movsb", "", 2}, {"std", "", 1}, {"cld", "", 2}, {"ret", "", 2},
        {"mov", "dword ptr", 0}},
       {"mov|rcx, rdx", "mov|rax, rdi", "sub|rax, rsi", "cmp|rax, rcx", "jb|", "shr|rcx, 2", "cld|", "rep movsd|",
        "mov|rcx, rdx", "and|ecx, 3", "rep movsb|", "ret|", "add|rdi, rcx", "add|rsi, rcx", "dec|rdi", "dec|rsi",
        "and|ecx, 3", "std|", "rep movsb|", "mov|rcx, rdx", "shr|rcx, 2", "sub|rsi, 3", "sub|rdi, 3", "rep movsd|",
        "cld|", "ret|"},
       // ALIGN_TEXT (.p2align 2) before the backward path
       {{"add|rdi, rcx", 4}}},
      {"asami/fp_copy",
       {{"fild", "qword ptr [rsi", 8}, {"fistp", "qword ptr [rdi", 8}, {"mov", "eax, dword ptr [rsi", 8},
        {"mov", "ecx, 0x700", 1}, {"rep movsd", "", 1}, {"rep movsb", "", 1}},
       {"test|eax, 7", "mov|ecx, 0x700", "cmp|rcx, 0x100", "mov|eax, dword ptr [rsi]",
        "mov|eax, dword ptr [rsi + 0xe0]", "fild|[rsi]", "fild|[rsi + 0x38]", "fistp|[rdi + 0x38]", "fistp|[rdi]",
        "rep movsd|", "rep movsb|"}},
  };
  return t;
}

/// Expectations of a parametric Asami unroll preset, computed from its parameters.
Expect unroll_expect(uint32_t u, uint32_t n, uint32_t p) {
  Expect e;
  e.id = "asami/unroll:" + std::to_string(u) + "/scratch:" + std::to_string(n) + "/every:" + std::to_string(p);
  int touches = p ? static_cast<int>(u / p) : 0, guarded = 0;  // every:0 = no prefetch touches
  for (uint32_t off = p; p && off <= u; off += p) guarded += off + 4 > u;
  e.counts = {{"mov", "dword ptr [rsi", static_cast<int>(u / 4) + touches},
              {"mov", "dword ptr [rdi", static_cast<int>(u / 4)},
              {"mov", "ebx, dword ptr [rsi", n == 3 ? static_cast<int>(u / 12) : 0},
              {"push", "rbx", n == 3 ? 1 : 0},
              {"cmp", "rcx, ", 2 + guarded},
              {"rep movsd", "", 1},
              {"rep movsb", "", 1}};
  char buf[64];  // Capstone prints displacements below 10 in decimal
  snprintf(buf, sizeof buf, p < 10 ? "mov|eax, dword ptr [rsi + %u]" : "mov|eax, dword ptr [rsi + 0x%x]", p);
  e.order = {buf, "mov|eax, dword ptr [rsi]", "mov|edx, dword ptr [rsi + 4]", "mov|dword ptr [rdi], eax",
             "rep movsd|", "rep movsb|"};
  if (!p) e.order.erase(e.order.begin());
  return e;
}

/// The mnemonic this CPU gets for one the spec names (3DNow! substitutions).
std::string on_this_cpu(const std::string& m) {
  const FeatureSet f = host_features();
  if (m == "femms" && !f.has(Feature::amd3dnow)) return "emms";
  if (m == "prefetch" && !f.has(Feature::prefetch3dnow)) return "prefetcht0";
  return m;
}

struct Built {
  CodeArena arena;
  std::vector<size_t> idx;
};

std::vector<Insn> code_of(const Preset& p, const PresetOptions& o = {}) {
  CodeArena a;
  std::vector<std::string> subs;
  size_t i = a.add([&](Xbyak::CodeGenerator& g) { p.emit(g, o, subs); });
  a.finalize();
  auto r = a.ref(i);
  auto insns = disassemble_all(r.code, r.size);
  size_t decoded = 0;
  for (const auto& in : insns) decoded += in.bytes.size();
  REQUIRE_MESSAGE(decoded == r.size, p.id << ": disassembly stopped at byte " << decoded << " of " << r.size);
  return insns;
}

void check_expect(const Expect& e) {
  const Preset* p = find_preset(e.id);
  REQUIRE_MESSAGE(p, e.id);
  CHECK(p->id == e.id);
  auto insns = code_of(*p);
  std::string listing = format_listing(insns);
  for (const auto& c : e.counts) {
    std::string m = on_this_cpu(c.mnemonic);
    int got = 0;
    for (const auto& in : insns) got += in.mnemonic == m && in.operands.find(c.operand) != std::string::npos;
    CHECK_MESSAGE(got == c.n, e.id << ": " << m << " '" << c.operand << "' x" << got << ", spec says " << c.n
                                   << "\n" << listing);
  }
  for (const auto& a : e.aligned) {
    auto bar = a.item.find('|');
    std::string m = a.item.substr(0, bar), opnd = a.item.substr(bar + 1);
    const Insn* hit = nullptr;
    int seen = 0;
    for (const auto& in : insns)
      if (in.mnemonic == m && in.operands.find(opnd) != std::string::npos && ++seen == a.nth) {
        hit = &in;
        break;
      }
    REQUIRE_MESSAGE(hit, e.id << ": '" << a.item << "' #" << a.nth << " not found\n" << listing);
    CHECK_MESSAGE(hit->offset % a.n == 0, e.id << ": '" << a.item << "' #" << a.nth << " at 0x" << std::hex
                                              << hit->offset << ", not a multiple of " << std::dec << a.n << "\n"
                                              << listing);
  }
  size_t at = 0;
  for (const auto& item : e.order) {
    auto bar = item.find('|');
    std::string m = on_this_cpu(item.substr(0, bar)), opnd = item.substr(bar + 1);
    while (at < insns.size() && !(insns[at].mnemonic == m && insns[at].operands.find(opnd) != std::string::npos)) ++at;
    CHECK_MESSAGE(at < insns.size(), e.id << ": '" << item << "' not found in order\n" << listing);
    if (at >= insns.size()) break;
    ++at;
  }
}

}  // namespace

TEST_CASE("every preset has a disassembly expectation, and ids are unique" * doctest::test_suite("presets")) {
  std::set<std::string> ids, expected;
  for (const auto& e : expectations()) expected.insert(e.id);
  for (const auto& p : presets()) {
    CHECK_MESSAGE(ids.insert(p.id).second, "duplicate id " << p.id);
    // kex reads its own results files back: every id and printed name is in the grammar
    // the results reader enforces on files from elsewhere.
    CHECK_MESSAGE(is_preset_id(p.id), p.id);
    CHECK_FALSE(kernel_name_error(KernelKind::preset, p.id));
    for (const std::string& printed : {p.printed, p.hahn_printed})
      CHECK_MESSAGE((printed.size() <= 128 && std::all_of(printed.begin(), printed.end(),
                                                         [](char c) { return c >= 0x20 && c <= 0x7e; })),
                    p.id);
    if (p.id.rfind("asami/unroll", 0) != 0) CHECK_MESSAGE(expected.count(p.id), "no expectation for " << p.id);
    CHECK_FALSE(p.printed.empty());
    CHECK(p.emit);
    CHECK_FALSE(p.origin.empty());
    if (p.confidence == Confidence::low) CHECK_MESSAGE(p.notes.find("RECONSTRUCTION") != std::string::npos, p.id);
  }
}

TEST_CASE("defining instructions and their counts match the spec" * doctest::test_suite("presets")) {
  for (const auto& e : expectations()) {
    CAPTURE(e.id);
    check_expect(e);
  }
  for (auto [u, n, p] : {std::tuple{96u, 2u, 32u}, {64u, 3u, 32u}, {128u, 2u, 64u}, {36u, 3u, 8u}, {96u, 3u, 0u}}) {
    auto e = unroll_expect(u, n, p);
    CAPTURE(e.id);
    check_expect(e);
  }
}

TEST_CASE("the fsave switch drops exactly the x87 save/restore" * doctest::test_suite("presets")) {
  for (const auto& p : presets()) {
    auto on = code_of(p, {true}), off = code_of(p, {false});
    auto count = [](const std::vector<Insn>& v, const char* m) {
      int n = 0;
      for (const auto& i : v) n += i.mnemonic == m;
      return n;
    };
    CHECK_MESSAGE(count(off, "fnsave") + count(off, "frstor") == 0, p.id);
    auto subs = preset_substitutions(p, {false});
    bool had = count(on, "fnsave") > 0;
    bool noted = false;
    for (const auto& s : subs) noted = noted || s.find("fsave") != std::string::npos;
    CHECK_MESSAGE(had == noted, p.id);
  }
}

TEST_CASE("every preset verifies byte-exact on 1, 2 and 17 regions at several alignments" *
          doctest::test_suite("presets")) {
  std::vector<const Preset*> list;
  for (const auto& p : presets()) list.push_back(&p);
  for (const char* name : {"asami/unroll:64/scratch:3/every:32", "asami/unroll:128/scratch:2/every:64",
                           "asami/unroll:36/scratch:3/every:8", "asami/unroll:96/scratch:3/every:0"})
    list.push_back(find_preset(name));
  CodeArena arena;
  struct Job {
    const Preset* p;
    bool fsave;
    size_t code;
  };
  std::vector<Job> jobs;
  for (const Preset* p : list) {
    REQUIRE(p);
    if (!preset_unsupported_reason(*p).empty()) continue;
    for (bool fs : {true, false}) {
      std::vector<std::string> subs;
      jobs.push_back({p, fs, arena.add([&](Xbyak::CodeGenerator& g) { p->emit(g, {fs}, subs); })});
    }
  }
  arena.finalize();
  std::vector<VerifyTarget> targets;
  std::vector<std::string> what;
  for (const auto& j : jobs) {
    for (uint64_t n : {1u, 2u, 17u}) {
      VerifyTarget t;
      t.fn = arena.ref(j.code).as<KernelFn>();
      t.is_copy = j.p->op == Op::copy;
      t.alignment = j.p->alignment;
      t.size_multiple = n * j.p->region;  // sizes tried: 0 and exactly n regions
      t.max_size = n * j.p->region;
      targets.push_back(t);
      what.push_back(j.p->id + (j.fsave ? "" : " (no fsave)") + ", " + std::to_string(n) + " region(s)");
    }
    if (j.p->region == 1) {  // any-length kernels: also every size verify_sizes picks
      VerifyTarget t;
      t.fn = arena.ref(j.code).as<KernelFn>();
      t.is_copy = j.p->op == Op::copy;
      t.max_size = 5 * 4096 + 77;
      targets.push_back(t);
      what.push_back(j.p->id + (j.fsave ? "" : " (no fsave)") + ", sizes 0.." + std::to_string(t.max_size));
    }
  }
  CHECK(targets.size() >= 3 * 2 * presets().size() - 12);
  auto res = verify_in_child(targets);
  for (size_t i = 0; i < res.size(); ++i) CHECK_MESSAGE(res[i].empty(), what[i] << ": " << res[i]);
}

TEST_CASE("kernels leave the x87/MMX state empty, as the ABI requires" * doctest::test_suite("presets")) {
  // After each call, the x87 tag word must mark all 8 registers empty (0xffff), i.e.
  // emms/femms/frstor ran. Runs in-process on aligned buffers of two regions.
  CodeArena arena;
  std::vector<std::pair<const Preset*, size_t>> built;
  for (const auto& p : presets())
    if (preset_unsupported_reason(p).empty())
      built.push_back({&p, arena.add([&](Xbyak::CodeGenerator& g) {
                         std::vector<std::string> s;
                         p.emit(g, {}, s);
                       })});
  arena.finalize();
  alignas(64) static uint8_t src[2 * 4096 + 64], dst[2 * 4096 + 64];
  for (auto [p, i] : built) {
    arena.ref(i).as<KernelFn>()(dst, src, 2 * p->region);
    uint8_t env[28];
    asm volatile("fnstenv %0" : "=m"(env));
    uint16_t tag = static_cast<uint16_t>(env[8] | env[9] << 8);
    asm volatile("fldenv %0" ::"m"(env));
    CHECK_MESSAGE(tag == 0xffff, p->id << ": x87 tag word 0x" << std::hex << tag);
  }
}

TEST_CASE("generic_bcopy moves overlapping ranges as bcopy must: backward when dst is above src" *
          doctest::test_suite("presets")) {
  // kex's verification copies between separate buffers (the forward path); this runs the
  // backward path too, in-process, against memmove, and checks the direction flag is clear after.
  const Preset* p = find_preset("bcopy");
  REQUIRE(p);
  CHECK(p->id == "asami/generic_bcopy");
  CodeArena arena;
  const size_t i = arena.add([&](Xbyak::CodeGenerator& g) {
    std::vector<std::string> s;
    p->emit(g, {}, s);
  });
  arena.finalize();
  const KernelFn fn = arena.ref(i).as<KernelFn>();
  uint8_t got[256], want[256];
  for (int shift : {-9, -4, -1, 1, 2, 3, 4, 5, 63})
    for (size_t n : {0u, 1u, 3u, 4u, 7u, 64u, 101u}) {
      for (int k = 0; k < 256; ++k) got[k] = want[k] = static_cast<uint8_t>(k * 7 + 1);
      uint8_t* const s = got + 80;
      fn(s + shift, s, n);
      std::memmove(want + 80 + shift, want + 80, n);
      CHECK_MESSAGE(std::memcmp(got, want, sizeof got) == 0, "dst = src + " << shift << ", " << n << " bytes");
      uint64_t flags;
      asm volatile("pushfq; popq %0" : "=r"(flags));
      CHECK_MESSAGE((flags & 0x400) == 0, "direction flag left set");
    }
}

TEST_CASE("lookup by id, printed name, alias, qualifier and parameters" * doctest::test_suite("presets")) {
  CHECK(find_preset("hahn/faster_copy")->family == "hahn");
  // A name several presets share is ambiguous: an error naming them all, never one chosen silently.
  CHECK(find_presets("faster_copy").size() == 2);
  CHECK_THROWS_WITH_AS(find_preset("faster_copy"),
                       "preset name 'faster_copy' is ambiguous: fastc/faster_copy, hahn/faster_copy (give the id; see "
                       "kex list presets)",
                       InputError);
  CHECK_THROWS_WITH_AS(find_preset("2.4 non MMX"),
                       "preset name '2.4 non MMX' is ambiguous: fastc/normal_clear_page, fastc/normal_copy_page (give "
                       "the id; see kex list presets)",
                       InputError);
  CHECK_THROWS_AS(find_preset("kernel clear"), InputError);
  CHECK_THROWS_AS(find_preset("copy_page"), InputError);  // linux/copy_page's name, v26_copy_page's alias
  CHECK(find_preset("clear_page")->id == "xmm64/kernel_clear");  // one preset's alias
  CHECK(find_preset("copy:2.4 non MMX")->id == "fastc/normal_copy_page");
  CHECK(find_preset("copy:warm up run")->id == "fastc/fast_copy_page");
  CHECK(find_preset("nt clear")->id == "xmm64/nt_clear");
  CHECK(find_preset("nt clear  ")->id == "xmm64/nt_clear");
  CHECK(find_preset("kernel clear (rep stosq)")->id == "xmm64/kernel_clear_rep");
  CHECK(find_preset("normal_clear_page")->id == "fastc/normal_clear_page");
  const Preset* u = find_preset("asami/unroll:64/scratch:3/every:16");
  REQUIRE(u);
  CHECK(u->id == "asami/unroll:64/scratch:3/every:16");
  CHECK(find_preset("asami/unroll/every:16/scratch:3/unroll:64") == u);  // cached, any order
  CHECK(find_preset("asami/unroll")->id == "asami/unroll:96/scratch:2/every:32");
  CHECK(find_preset("asami/unroll:64/scratch:4/every:32") == nullptr);
  CHECK(find_preset("asami/unroll:66/scratch:2/every:32") == nullptr);
  CHECK(find_preset("asami/unroll:64/scratch:2/every:2") == nullptr);
  // Every variant prints under its own name, `unroll NAME U P N` order; every:0 = no prefetch.
  CHECK(u->printed == "unrolled_64_16_3");
  const Preset* nopf = find_preset("asami/unroll:128/scratch:2/every:0");
  REQUIRE(nopf);
  CHECK(nopf->printed == "unrolled_128_0_2");
  CHECK(nopf->notes.find("no dummy prefetch loads") != std::string::npos);
  CHECK(find_preset("unrolled")->id == "asami/unroll:96/scratch:2/every:32");
  CHECK(find_preset("no such kernel") == nullptr);
  CHECK(find_preset("pagezero")->id == "freebsd/pagezero_movnti");
  CHECK_THROWS_AS(find_preset("pagecopy"), InputError);  // today's printed name and the old one's alias
  CHECK(find_preset("pagecopy (movnti)")->id == "freebsd/pagecopy_movnti");
  CHECK(find_preset("K7 fast_copy_page 2.4.0")->id == "linux24/fast_copy_page_k7_2.4.0");
  CHECK(find_presets("pagecopy").size() == 2);
  CHECK_THROWS_WITH_AS(find_preset("copy:fast_copy_page"),
                       "preset name 'copy:fast_copy_page' is ambiguous: fastc/fast_copy_page, hahn/fast_copy_page, "
                       "linux24/fast_copy_page_k7, linux24/fast_copy_page_k7_2.4.0 (give the id; see kex list presets)",
                       InputError);
  CHECK(find_presets("fast_copy_page").size() == 4);  // fastc alias, Hahn, linux24 2.4.35 and 2.4.0
  CHECK(find_preset("linux24/fast_copy_page_k7_2.4.0")->origin.find("2.4.0") != std::string::npos);
  // a kernel whose source was not found is not a preset, but is known by name
  CHECK(find_preset("Bruce's code") == nullptr);
  const UnavailablePreset* u2 = find_unavailable_preset("Bruce's code");
  REQUIRE(u2);
  CHECK(u2->id == "asami/bruce_bcopy");
  CHECK(find_unavailable_preset(" asami/bruce_bcopy ") == u2);
  CHECK(u2->reason.find("not in the recovered part of bcopy.tar.gz") != std::string::npos);
  CHECK(find_unavailable_preset("") == nullptr);
}

TEST_CASE("named sets follow the seeds' tables" * doctest::test_suite("presets")) {
  auto names = [](std::string_view set) {
    std::vector<std::string> v;
    for (auto* p : preset_set(set)) v.push_back((p->op == Op::clear ? "clear " : "copy ") + p->id);
    return v;
  };
  auto hahn = names("hahn");
  REQUIRE(hahn.size() == 9);
  CHECK(hahn[2] == "clear hahn/fast_clear_page");
  CHECK(hahn[8] == "copy hahn/even_faster");
  // fast.c v1.6 as Arjan posted it: both tables, no no_prefetch; Manfred's copy (seed 004):
  // the copy table with no_prefetch and no clear table.
  auto fastc = names("fastc");
  REQUIRE(fastc.size() == 12);
  CHECK(fastc[0] == "clear fastc/fast_clear_page");
  CHECK(fastc[11] == "copy fastc/even_faster");
  auto spraul = names("spraul");
  REQUIRE(spraul.size() == 7);
  CHECK(spraul[0] == "copy fastc/fast_copy_page");
  CHECK(spraul[6] == "copy fastc/no_prefetch");
  CHECK(preset_set_harness("fastc") == Harness::fastc);
  CHECK(preset_set_harness("spraul") == Harness::fastc);
  CHECK(preset_set_harness("hahn") == Harness::hahn);
  CHECK(preset_set_harness("xmm64") == Harness::xmm64);
  CHECK_FALSE(preset_set_harness("reference"));
  CHECK_FALSE(preset_set_harness("asami"));
  CHECK_FALSE(preset_set_harness("faster_copy"));
  CHECK(preset_sets_harness({"spraul", "fastc"}) == Harness::fastc);
  CHECK_FALSE(preset_sets_harness({"spraul", "hahn"}));
  CHECK_FALSE(preset_sets_harness({"xmm64", "faster_copy"}));
  CHECK_FALSE(preset_sets_harness({}));
  // Asami's experiment: unroll 32..256 by 32 with 2 and 3 registers, with the prefetch every
  // 32 bytes and without, then the FP copy and FreeBSD's generic_bcopy; every name distinct.
  auto asami = preset_set("asami");
  REQUIRE(asami.size() == 34);
  CHECK(asami.front()->id == "asami/unroll:32/scratch:2/every:32");
  CHECK(asami[16]->id == "asami/unroll:32/scratch:2/every:0");
  CHECK(asami[32]->id == "asami/fp_copy");
  CHECK(asami.back()->id == "asami/generic_bcopy");  // the kernel bcopy they were measured against
  std::set<std::string> printed;
  for (const Preset* p : asami) CHECK_MESSAGE(printed.insert(p->printed).second, p->printed);
  auto x = preset_set("xmm64");
  REQUIRE(x.size() == 26);  // seed 000: 14 clear lines, 12 copy lines
  CHECK(x.front() == x[4]);  // 'warm up run' is fast_clear_page again
  CHECK(x[1] == x[13]);      // 'kernel clear' ran first and last
  auto r = preset_set("reference");
  CHECK(r.size() == x.size() + 5);
  std::set<const Preset*> page_kernels(r.begin(), r.end());
  for (const auto& p : presets())  // every page kernel the seeds timed
    if ((p.family == "fastc" || p.family == "hahn" || p.family == "xmm64") && p.region == 4096 &&
        p.id.find("_rep") == std::string::npos && p.id != "fastc/no_prefetch2")
      CHECK_MESSAGE(page_kernels.count(&p), p.id << " missing from reference");
  for (const auto* p : r) CHECK_MESSAGE((p->family == "fastc" || p->family == "hahn" || p->family == "xmm64"), p->id);
  CHECK(names("linux") == std::vector<std::string>{"clear linux/clear_page_orig", "clear linux/clear_page_rep",
                                                    "clear linux/clear_page_erms", "copy linux/copy_page",
                                                    "copy linux/copy_page_regs", "copy linux/memcpy_orig",
                                                    "clear linux/clear_pages", "clear linux/clear_pages_erms",
                                                    "clear linux/clear_pages_rep", "clear linux/clear_pages_unrolled"});
  CHECK(names("freebsd") == std::vector<std::string>{"clear freebsd/pagezero_std", "clear freebsd/pagezero_erms",
                                                      "clear freebsd/sse2_pagezero", "copy freebsd/pagecopy",
                                                      "clear freebsd/pagezero_movnti", "copy freebsd/pagecopy_movnti"});
  CHECK(names("linux24") == std::vector<std::string>{"clear linux24/fast_clear_page_k7", "copy linux24/fast_copy_page_k7",
                                                      "copy linux24/fast_copy_page_k7_2.4.0", "copy linux24/_mmx_memcpy"});
  for (const char* set : {"linux", "freebsd", "linux24"})
    CHECK(std::find(preset_set_names().begin(), preset_set_names().end(), set) != preset_set_names().end());
  CHECK(preset_set("all").size() == presets().size());
  CHECK(preset_set("nope").empty());
}

