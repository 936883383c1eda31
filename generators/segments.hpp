// JIT loops for the segment-register test (docs/seed-kernels.md §8, docs/methodology.md §3):
// Jeremy Fitzhardinge's 2006 loop (save the segment register, load a selector,
// read-modify-write through the override, restore), with a chosen selector in the
// register on entry to the loop (on i386, gs held glibc's TLS selector and fs null),
// its "mixed" variant, and the modern costs (override-load latency and throughput,
// null-selector loads).
#pragma once
#include <cstdint>

#include <xbyak/xbyak.h>

#include "src/model/segment_kinds.hpp"  // SegReg, SegVariant and their words

namespace kex {

/// Memory block shared by the caller and a segment kernel (its layout is part of
/// the kernel ABI; the offsets are fixed by static_asserts in segments.cpp).
struct SegState {
  uint64_t fs_base = 0;    ///< in: fs base put back when the saved fs selector is null (glibc TLS)
  uint64_t gs_base = 0;    ///< in: gs base put back when the saved gs selector is null
  uint64_t start_tsc = 0;  ///< scratch
  uint64_t ticks = 0;      ///< out: TSC ticks of the timed loop (also the return value)
};

/// One segment kernel. Addresses are operand offsets *through the segment*, i.e.
/// linear address minus the segment base in force when the access runs.
struct SegKernelSpec {
  SegVariant variant = SegVariant::baseline;
  SegReg seg = SegReg::none;    ///< none: no prefix, no segment-register writes (plain loads, <none>)
  uint16_t selector = 0;        ///< 2006/mixed: loaded each iteration; null-load: ignored (0 is loaded)
  bool set_base = false;        ///< before timing, set the fs/gs base to `base` (arch_prctl or wr*base)
  uint64_t base = 0;            ///< the base set when set_base (latency/throughput: the base measured;
                                ///< mixed: 0, so the base the kernel restores at a context switch for
                                ///< a null selector agrees with the one a null load leaves in the CPU)
  uint64_t operand = 0;         ///< 2006/mixed: RMW offset; latency: chase start; throughput: first load offset
  uint64_t restored_operand = 0;///< mixed: RMW offset through the restored (saved) selector
  bool load_entry = false;      ///< before timing, load `entry_selector` into `seg` (2006/mixed: the
                                ///< selector the loop's push saves and its pop reloads; mixed: the
                                ///< restored selector the second access goes through)
  uint16_t entry_selector = 0;  ///< loaded from ecx, so a fault here is told from the loop's load (ebp)
  uint32_t unroll = 16;         ///< iterations per loop pass
  bool use_fsgsbase = false;    ///< restore bases with wrfsbase/wrgsbase (only when AT_HWCAP2 says FSGSBASE)
};

/// Kernel ABI (SysV): `passes` loop passes of `unroll` iterations each (>= 1), the
/// state block in rsi. Setup before the timed loop, in this order: load the entry
/// selector (load_entry), then set the base (set_base), so a null entry load does
/// not clear a base set on purpose. Returns the TSC ticks between `lfence; rdtsc; lfence` pairs
/// around the loop, so call overhead and setup/restore are outside. On return the
/// touched segment register holds its selector from entry and, if that was null,
/// its base is the one in SegState (restored by arch_prctl or wr*base from inside
/// the kernel, so glibc's fs-based TLS is never seen broken by C code).
using SegKernelFn = uint64_t (*)(uint64_t passes, SegState* state);

/// Emits one segment kernel (ending in `ret`) with relative branches only.
void emit_segment_kernel(Xbyak::CodeGenerator& g, const SegKernelSpec& s);

}  // namespace kex
