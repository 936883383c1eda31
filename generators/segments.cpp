#include "generators/segments.hpp"

#include <cstddef>
#include <stdexcept>

namespace kex {

static_assert(offsetof(SegState, fs_base) == 0 && offsetof(SegState, gs_base) == 8 &&
              offsetof(SegState, start_tsc) == 16 && offsetof(SegState, ticks) == 24);

namespace {

using namespace Xbyak;
using namespace Xbyak::util;

constexpr int kArchSetGs = 0x1001, kArchSetFs = 0x1002;  // <asm/prctl.h>
constexpr int kSysArchPrctl = 158;

const Segment& segment(CodeGenerator& g, SegReg r) { return r == SegReg::fs ? g.fs : g.gs; }

/// Sets the fs/gs base to the value in rsi: `wr{fs,gs}base rsi` when the kernel
/// enabled FSGSBASE for user space, else arch_prctl(ARCH_SET_{FS,GS}, rsi), which
/// also loads the null selector. Clobbers rax, rcx, rdi, r11 (syscall).
void set_base_from_rsi(CodeGenerator& g, SegReg r, bool fsgsbase) {
  if (fsgsbase) {
    // F3 REX.W 0F AE /2 (wrfsbase) or /3 (wrgsbase), rm = rsi; Xbyak 6.68 has no mnemonic.
    g.db(0xF3); g.db(0x48); g.db(0x0F); g.db(0xAE);
    g.db(r == SegReg::fs ? 0xD6 : 0xDE);
    return;
  }
  g.mov(eax, kSysArchPrctl);
  g.mov(edi, r == SegReg::fs ? kArchSetFs : kArchSetGs);
  g.syscall();
}

/// rax = lfence; rdtsc; lfence as a 64-bit value. Clobbers rdx.
void read_tsc(CodeGenerator& g) {
  g.lfence();
  g.rdtsc();
  g.lfence();
  g.shl(rdx, 32);
  g.or_(rax, rdx);
}

/// One iteration of the loop body.
void emit_iteration(CodeGenerator& g, const SegKernelSpec& s, uint32_t k) {
  const bool seg = s.seg != SegReg::none;
  auto prefix = [&] { if (seg) g.putSeg(segment(g, s.seg)); };
  switch (s.variant) {
    case SegVariant::baseline:
      break;  // the 2006 `<none>` case: only the loop itself
    case SegVariant::loop2006:
    case SegVariant::mixed:
      // push SEG; mov SEG, sel; add dword [SEG:m], 1; pop SEG  (docs/seed-kernels.md §8)
      g.push(segment(g, s.seg));
      g.mov(segment(g, s.seg), ebp);
      prefix();
      g.add(dword[rbx], 1);
      g.pop(segment(g, s.seg));
      if (s.variant == SegVariant::mixed) {  // an access through the restored selector
        prefix();
        g.add(dword[r8], 1);
      }
      break;
    case SegVariant::latency:  // pointer chase: each load's address is the previous load's value
      prefix();
      g.mov(rax, qword[rax]);
      break;
    case SegVariant::throughput: {  // independent loads into rotating registers
      static const Reg64 dst[] = {rcx, rdx, rsi, rdi, r8, r9, r10, r11};
      prefix();
      g.mov(dst[k % 8], qword[rbx + 8 * (k % 8)]);
      break;
    }
    case SegVariant::null_load:
      g.mov(segment(g, s.seg), ebp);  // ebp = 0
      break;
  }
}

/// Puts back the selector saved at entry (r14d: fs, r15d: gs) and, when it was
/// null, the base from SegState.
void restore_segment(CodeGenerator& g, SegReg r, bool fsgsbase) {
  const Reg32 saved = r == SegReg::fs ? r14d : r15d;
  Label done;
  g.mov(segment(g, r), saved);
  g.test(saved, saved);
  g.jnz(done);
  g.mov(rsi, qword[r13 + (r == SegReg::fs ? offsetof(SegState, fs_base) : offsetof(SegState, gs_base))]);
  set_base_from_rsi(g, r, fsgsbase);
  g.L(done);
}

}  // namespace

void emit_segment_kernel(CodeGenerator& g, const SegKernelSpec& s) {
  if (s.unroll == 0) throw std::invalid_argument("segment kernel: unroll must be >= 1");
  const bool needs_seg = s.variant == SegVariant::loop2006 || s.variant == SegVariant::mixed ||
                         s.variant == SegVariant::null_load;
  if (needs_seg && s.seg == SegReg::none)
    throw std::invalid_argument("segment kernel: variant " + std::string(to_string(s.variant)) +
                                " needs fs or gs");
  for (const Reg64& r : {rbx, rbp, r12, r13, r14, r15}) g.push(r);
  g.mov(r12, rdi);  // passes
  g.mov(r13, rsi);  // SegState*
  g.mov(ax, g.fs);
  g.movzx(r14d, ax);  // fs selector at entry
  g.mov(ax, g.gs);
  g.movzx(r15d, ax);  // gs selector at entry

  // Setup (untimed).
  if (s.seg != SegReg::none && s.load_entry) {
    g.mov(ecx, uint32_t(s.entry_selector));
    g.mov(segment(g, s.seg), ecx);  // what the loop's `push SEG` saves and `pop SEG` reloads
  }
  if (s.seg != SegReg::none && s.set_base) {
    g.mov(rsi, s.base);
    set_base_from_rsi(g, s.seg, s.use_fsgsbase);
  }
  g.mov(rbx, s.operand);
  g.mov(ebp, s.variant == SegVariant::null_load ? 0u : uint32_t(s.selector));
  g.mov(r8, s.restored_operand);

  read_tsc(g);
  g.mov(qword[r13 + offsetof(SegState, start_tsc)], rax);
  if (s.variant == SegVariant::latency) g.mov(rax, s.operand);

  Label loop;
  g.align(16);
  g.L(loop);
  for (uint32_t k = 0; k < s.unroll; ++k) emit_iteration(g, s, k);
  g.dec(r12);
  g.jnz(loop, CodeGenerator::T_NEAR);

  read_tsc(g);
  g.sub(rax, qword[r13 + offsetof(SegState, start_tsc)]);
  g.mov(qword[r13 + offsetof(SegState, ticks)], rax);

  if (s.seg != SegReg::none) restore_segment(g, s.seg, s.use_fsgsbase);

  g.mov(rax, qword[r13 + offsetof(SegState, ticks)]);
  for (const Reg64& r : {r15, r14, r13, r12, rbp, rbx}) g.pop(r);
  g.ret();
}

}  // namespace kex
