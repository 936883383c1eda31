// Named reference kernels: every copy/clear kernel of the seed posts, rebuilt from
// docs/seed-kernels.md as JIT code, and the kernels engineers compare them against
// today (docs/seed-kernels.md §11). One file per family of origin under generators/presets/:
// fastc.cpp (fast.c v1.6, Hahn's athlon.c, Manfred's no_prefetch), xmm64.cpp (LaHaise's
// SSE test and the 2005 x86-64 kernel routines), linux24.cpp (Linux 2.4 mmx.c: Athlon
// page kernels and _mmx_memcpy), asami.cpp (Asami's bcopy package), linux.cpp (today's
// Linux clear_page_*/copy_page*/memcpy_orig), freebsd.cpp (FreeBSD amd64 pagezero and
// pagecopy); presets.cpp holds the table, the lookup and the named sets.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xbyak/xbyak.h>

#include "src/model/plan.hpp"
#include "src/model/point.hpp"
#include "src/model/spec.hpp"

namespace kex {

struct PresetOptions {
  /// Keep fsave/fwait … frstor (108-byte x87 image) inside each kernel, where the
  /// originals timed them. false drops the pair (and records that as a substitution).
  bool fsave = true;
};

/// One named kernel of the seeds: its facts (PresetFacts, src/model/plan.hpp: id, printed
/// names, family, origin, confidence, notes, features, region, alignment; what results
/// carry), its op and its emitter. A row is written {{.id = ..., ...}, op, emit}. `emit`
/// writes a complete function with the KernelFn
/// ABI (rdi = dst, rsi = src, rdx = bytes; clears ignore src), ending in `ret`, using
/// only relative branches. Page kernels (region 4096) run the original routine once
/// per 4096-byte region of `bytes` (bytes must be a multiple of region; 0 is a no-op),
/// exactly as the harnesses called them once per page. region 1 kernels take any length.
/// Every deviation from the original that this CPU or the options force is appended
/// to `substitutions` ("femms -> emms (no 3DNow!)").
struct Preset : PresetFacts {
  Op op = Op::copy;
  std::function<void(Xbyak::CodeGenerator&, const PresetOptions&, std::vector<std::string>& substitutions)> emit;
};

/// Every fixed preset, in seed order: clears then copies of fast.c v1.6, Hahn's
/// variants, Manfred's/Karl Vogel's no_prefetch, LaHaise's xmm64 kernels, Linux 2.4
/// (Athlon fast_clear_page/fast_copy_page, _mmx_memcpy), Asami's bcopy presets (the
/// unroll default 96/2/32 and the FP copy), then today's Linux and FreeBSD kernels.
const std::vector<Preset>& presets();

/// Looks a preset up by id, printed name (surrounding blanks ignored) or alias, or
/// builds a parametric Asami unroll preset from "asami/unroll:U/scratch:N/every:P"
/// (U bytes per iteration, multiple of 4, 8..512; N = 2 or 3; P = prefetch interval,
/// multiple of 4, 4..U, or 0 for no prefetch; any token order; missing tokens take 96,
/// 2 and 32); it prints as "unrolled_U_P_N" (seed 003's `unroll NAME U P N` order).
/// A "copy:" or "clear:" prefix restricts the op. An id is exact; a printed name or
/// alias several presets share ('faster_copy': fast.c's and Hahn's; 'kernel clear';
/// '2.4 non MMX' without copy:/clear:) is ambiguous: InputError "preset name 'NAME' is
/// ambiguous: ID, ID (give the id...)" (find_presets lists them). Returns nullptr when
/// nothing matches. The pointer stays valid for the process.
const Preset* find_preset(std::string_view id_or_printed_or_alias);

/// Every preset the name matches, in presets() order (see find_preset).
std::vector<const Preset*> find_presets(std::string_view name);

/// Why this CPU cannot run the preset (a required feature without a substitute is
/// missing), or "" when it can. 3DNow! femms/prefetch are substituted, never blocking.
std::string preset_unsupported_reason(const Preset&);

/// The facts results carry about a preset: its row's (Hahn's name, when it has none, its
/// printed name), with the substitutions made here and whether fsave/frstor were kept.
PresetFacts preset_facts(const Preset&, const std::vector<std::string>& substitutions, bool fsave);

/// Emits `p` into a throw-away (never executable) buffer and returns the substitutions
/// this CPU and `opts` force. Throws Xbyak::Error if the preset cannot be emitted.
std::vector<std::string> preset_substitutions(const Preset& p, const PresetOptions& opts = {});

/// Named sets, each in its seed's order (a kernel the seed ran twice appears twice):
///   "fastc"     Arjan van de Ven's fast.c v1.6 clear + copy tables, as his program ran them
///               (LKML, 2001; docs/seed-kernels.md §1.1)
///   "spraul"    Manfred Spraul's athlon.c of Oct 2002: fast.c v1.6's copy table with his
///               no_prefetch, and no clear table (seed 004)
///   "hahn"      Hahn's athlon.c tables (seed 001)
///   "xmm64"     LaHaise's SSE test program tables (seed 000)
///   "asami"     Asami's experiment (seed 003): unroll 32..256 step 32 with 2 and 3 scratch
///               registers, prefetch every 32 bytes then without prefetch (every:0), then the
///               FP copy, then FreeBSD's generic_bcopy (the kernel bcopy they were candidates
///               to replace); run under kex's harness at his sizes (configs/asami.json)
///   "reference" the seed tables merged: seed 000's order, no_prefetch after even_faster
///               (seed 004), then Hahn's own variants (seed 001)
///   "linux24"   Linux 2.4 mmx.c: the Athlon page kernels and _mmx_memcpy
///   "linux"     today's Linux clear_page_orig/_rep/_erms, copy_page, copy_page_regs, memcpy_orig
///   "freebsd"   FreeBSD amd64 pagezero_std/_erms, sse2_pagezero, pagecopy, and the older
///               movnti pagezero/pagecopy
///   "all"       presets(), each once
/// Unknown names give an empty vector.
std::vector<const Preset*> preset_set(std::string_view name);

/// Names accepted by preset_set.
const std::vector<std::string>& preset_set_names();

/// The seed program whose table a set is, as the harness that reproduces it (its banner,
/// buffer line, buffer offset and layout): fastc, spraul -> fastc; hahn -> hahn; xmm64 ->
/// xmm64. nullopt for a set of no single seed program (reference, asami, linux, ...) and
/// for a name that is not a set.
std::optional<Harness> preset_set_harness(std::string_view set);

/// The one harness of `names` when every name is a seed program's set and they agree
/// (e.g. {"xmm64"} -> xmm64); nullopt otherwise (a kernel name, a mix, an empty list).
std::optional<Harness> preset_sets_harness(const std::vector<std::string>& names);

/// A named kernel kex does not offer because no source for it was found: `kex list
/// presets` prints these rows, and looking one up says why instead of "unknown".
struct UnavailablePreset {
  std::string id;       ///< the id it would have ("asami/bruce_bcopy")
  std::string printed;  ///< how the seed names it
  std::string family;
  std::string reason;   ///< what was searched and what is missing
};
const std::vector<UnavailablePreset>& unavailable_presets();

/// The unavailable row whose id or printed name is `name` (surrounding blanks ignored), or nullptr.
const UnavailablePreset* find_unavailable_preset(std::string_view name);

}  // namespace kex
