// Internal: emission helpers shared by the preset families (not a public interface).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "generators/presets/presets.hpp"
#include "src/core/units.hpp"

namespace kex::presets_detail {

using Subs = std::vector<std::string>;
using Gen = Xbyak::CodeGenerator;

/// The page the seed kernels work on (copy_page, clear_page, fast.c's regions).
inline constexpr uint32_t kPage = kPageBytes;

/// Appends `s` unless it is already listed.
void note_subst(Subs& subs, const std::string& s);

/// 3DNow! `femms` (0F 0E); `emms` on CPUs without 3DNow! (recorded).
void femms(Gen& g, Subs& subs);

/// 3DNow! `prefetch m8` (0F 0D /0) at [base + disp]; `prefetcht0` on CPUs with
/// neither 3DNow! nor 3DNowPrefetch (recorded). base must be rax..rdi except rsp/rbp.
void prefetch_3dnow(Gen& g, const Xbyak::Reg64& base, int32_t disp, Subs& subs);

/// fast.c's save_fpu: reserve a 112-byte frame, `fsave [rsp]` (9B DD /6) then `fwait`.
/// With opts.fsave off: nothing (the drop is recorded).
void fpu_save(Gen& g, const PresetOptions& opts, Subs& subs);
/// `frstor [rsp]` (DD /4) and release the frame; nothing with opts.fsave off.
void fpu_restore(Gen& g, const PresetOptions& opts);
/// fast.c v1.6 fast_copy_page's bug: a second `fsave`+`fwait` where frstor belongs.
void fpu_save_again(Gen& g, const PresetOptions& opts);

/// Linux's clear_page_orig (linux.cpp), one page at rdi: eax = 0; 64 iterations of dec
/// ecx, 8 temporal 8-byte stores, lea; the jnz takes its flags from the dec (mov and lea
/// leave them); then a nop. Also the x86-64 clear_page of 2005 that xmm64.c ran.
void clear_page_orig(Gen& g);

/// One page at rdi cleared with non-temporal MMX stores (fastc.cpp): mm0 = 0; 64
/// iterations of 8 movntq (64 B); sfence. fast.c's faster_clear_page and the 2.4
/// kernel's K7 fast_clear_page have this loop.
void movntq_clear_page(Gen& g);

/// Runs `body` (one call of the original routine: it must advance rdi, and rsi for
/// copies, by `region` and preserve `counter`) once per region of rdx bytes, then
/// `ret`. A callee-saved counter is pushed/popped around the loop.
void region_loop(Gen& g, uint32_t region, const Xbyak::Reg64& counter, const std::function<void()>& body);

/// The emit function of a page preset: `body` is one call of the original routine (the
/// region_loop contract: it advances rdi, and rsi for copies, by 4096 and preserves
/// `counter`), run once per 4096-byte region of rdx bytes.
using PageBody = std::function<void(Gen&, const PresetOptions&, Subs&)>;
std::function<void(Gen&, const PresetOptions&, Subs&)> per_page(const Xbyak::Reg64& counter, PageBody body);

// Family tables (one file each), concatenated by presets.cpp in seed order.
std::vector<Preset> fastc_clear_presets();
std::vector<Preset> fastc_copy_presets();
std::vector<Preset> xmm64_clear_presets();
std::vector<Preset> xmm64_copy_presets();
std::vector<Preset> linux24_presets();
std::vector<Preset> asami_presets();
std::vector<Preset> linux_presets();
std::vector<Preset> freebsd_presets();

/// Parametric Asami unroll preset; throws std::invalid_argument on bad parameters.
Preset asami_unroll_preset(uint32_t unroll, uint32_t scratch, uint32_t every);

// Origins shared by several presets.
extern const char* const kOriginFastc;
extern const char* const kOriginHahn;

}  // namespace kex::presets_detail
