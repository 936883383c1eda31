// Satoshi Asami's bcopy package (freebsd-current, 2 May 1996; docs/seed-kernels.md §7): the
// `unroll` generator's integer copy as a parametric preset, and "the FP thing", the
// x87 fild/fistp copy whose kernel form is FreeBSD's fastmove, and FreeBSD's generic_bcopy,
// the kernel's integer bcopy they were candidates to replace.
#include <stdexcept>

#include "generators/presets/impl.hpp"

// The generic_bcopy row names only the fields it sets (designated initializers); the others
// keep Preset's defaults, which is what -Wextra's missing-field-initializers warns about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace kex::presets_detail {

namespace {
using namespace Xbyak;
using namespace Xbyak::util;

const char* const kOriginAsami =
    "Satoshi Asami, bcopy.tar.gz, freebsd-current \"more on fast bcopy\" <199605020935.CAA06965@silvia.HIP.Berkeley.EDU> "
    "(2 May 1996); partly recovered from seed 003";

/// libc-style tail of `rcx` bytes: rep movsd (n/4) then rep movsb (n&3), as the
/// package's "same as libc" tail.
void libc_tail(Gen& g) {
  g.mov(rax, rcx);
  g.shr(rcx, 2);
  g.cld();
  g.rep();
  g.movsd();
  g.mov(rcx, rax);
  g.and_(ecx, 3);
  g.rep();
  g.movsb();
}

/// unroll NAME U P N: loop of dummy "prefetch" loads at S+P, S+2P, ..., S+U (each guarded
/// so its 4-byte read stays inside the copy; none when P is 0), then U bytes of 32-bit
/// loads/stores in groups of N scratch registers (eax, edx[, ebx]), then the libc tail.
void asami_unroll(Gen& g, uint32_t U, uint32_t N, uint32_t P) {
  const Reg32 regs[3] = {eax, edx, ebx};
  if (N == 3) g.push(rbx);  // callee-saved
  g.mov(rcx, rdx);          // ECX = len (bcopy's third argument)
  Label loop, tail;
  g.cmp(rcx, U - 1);
  g.jbe(tail, Gen::T_NEAR);
  g.align(16);
  g.L(loop);
  for (uint32_t off = P; P && off <= U; off += P) {
    Label skip;
    const bool guard = off + 4 > U;
    if (guard) {
      g.cmp(rcx, off + 3);
      g.jbe(skip, Gen::T_NEAR);
    }
    g.mov(eax, g.dword[rsi + off]);
    g.L(skip);
  }
  for (uint32_t first = 0; first < U; first += 4 * N) {
    uint32_t n = std::min<uint32_t>(N, (U - first) / 4);
    for (uint32_t i = 0; i < n; ++i) g.mov(regs[i], g.dword[rsi + first + 4 * i]);
    for (uint32_t i = 0; i < n; ++i) g.mov(g.dword[rdi + first + 4 * i], regs[i]);
  }
  g.add(rcx, -static_cast<int>(U));
  g.add(rsi, U);
  g.add(rdi, U);
  g.cmp(rcx, U - 1);
  g.ja(loop);
  g.L(tail);
  libc_tail(g);
  if (N == 3) g.pop(rbx);
  g.ret();
}

constexpr uint32_t kChunk = 1792;  // fastmove's chunk (i586_bcopy used 3840)

/// FP copy: if len > 63 and src, dst 8-byte aligned: per chunk of <= 1792 bytes, a
/// forward pre-read of one dword per 32-byte line (8 loads per 256 B while >= 256
/// remain), then 64-byte iterations of 8 fild qword and 8 fistp qword in reverse
/// order; the remainder (< 64) and unaligned copies go through the libc tail.
void asami_fp(Gen& g) {
  Label tail, chunk, small, preread, copy;
  g.mov(rcx, rdx);
  g.cmp(rcx, 63);
  g.jbe(tail, Gen::T_NEAR);
  g.mov(eax, esi);
  g.or_(eax, edi);
  g.test(eax, 7);
  g.jnz(tail, Gen::T_NEAR);
  g.L(chunk);  // r8 = bytes after this chunk; rcx = chunk bytes
  g.mov(r8, rcx);
  g.cmp(rcx, kChunk);
  g.jbe(small, Gen::T_NEAR);
  g.mov(ecx, kChunk);
  g.L(small);
  g.sub(r8, rcx);
  g.cmp(rcx, 256);
  g.jb(copy, Gen::T_NEAR);
  g.mov(r9, rsi);
  g.mov(r10, rcx);
  g.L(preread);
  for (int off = 0; off < 256; off += 32) g.mov(eax, g.dword[rsi + off]);
  g.add(rsi, 256);
  g.sub(rcx, 256);
  g.cmp(rcx, 256);
  g.jae(preread);
  g.mov(rsi, r9);
  g.mov(rcx, r10);
  g.L(copy);
  for (int k = 0; k < 8; ++k) g.fild(g.qword[rsi + 8 * k]);
  for (int k = 7; k >= 0; --k) g.fistp(g.qword[rdi + 8 * k]);
  g.add(rcx, -64);
  g.add(rsi, 64);
  g.add(rdi, 64);
  g.cmp(rcx, 63);
  g.ja(copy);
  g.add(rcx, r8);
  g.cmp(rcx, 64);
  g.jae(chunk);
  g.L(tail);
  libc_tail(g);
  g.ret();
}

const char* const kOriginGenericBcopy =
    "FreeBSD sys/i386/i386/support.s rev 1.41.2.2 (1996/11/12, phk), generic_bcopy (\"ws@tools.de (Wolfgang "
    "Solfrank, TooLs GmbH)\"); its forward path is the same instructions as the bcopy of FreeBSD 2.1's support.s (Nov "
    "1995), which went backward whenever dst >= src; ALIGN_TEXT "
    "is `.p2align 2,0x90` (4 bytes, nop filled) in sys/i386/include/asmacros.h of that era";

/// generic_bcopy(src, dst, cnt): rax = dst - src; if (unsigned) rax < cnt the copy
/// overlaps with src below dst and runs backward: the cnt & 3 odd bytes from the end with
/// std; rep movsb, then cnt / 4 dwords with rep movsd from 3 bytes lower, then cld.
/// Otherwise forward: cnt / 4 dwords with cld; rep movsd, then cnt & 3 bytes with rep
/// movsb. The i386 original read src, dst, cnt from the stack (pushing esi, edi) and
/// reloaded cnt from there; here rsi, rdi are the arguments already and rdx keeps cnt.
void generic_bcopy(Gen& g) {
  Label backward;
  g.mov(rcx, rdx);
  g.mov(rax, rdi);
  g.sub(rax, rsi);
  g.cmp(rax, rcx);  // overlapping && src < dst?
  g.jb(backward);
  g.shr(rcx, 2);  // copy by 32-bit words
  g.cld();
  g.rep();
  g.movsd();
  g.mov(rcx, rdx);
  g.and_(ecx, 3);  // any bytes left?
  g.rep();
  g.movsb();
  g.ret();
  g.align(4, false);  // ALIGN_TEXT: 4 bytes, 0x90 fill
  g.L(backward);
  g.add(rdi, rcx);
  g.add(rsi, rcx);
  g.dec(rdi);
  g.dec(rsi);
  g.and_(ecx, 3);  // any fractional bytes?
  g.std();
  g.rep();
  g.movsb();
  g.mov(rcx, rdx);  // copy remainder by 32-bit words
  g.shr(rcx, 2);
  g.sub(rsi, 3);
  g.sub(rdi, 3);
  g.rep();
  g.movsd();
  g.cld();
  g.ret();
}

}  // namespace

Preset asami_unroll_preset(uint32_t unroll, uint32_t scratch, uint32_t every) {
  if (scratch != 2 && scratch != 3) throw std::invalid_argument("asami unroll: scratch must be 2 or 3");
  if (unroll % 4 || unroll < 8 || unroll > 512)
    throw std::invalid_argument("asami unroll: unroll must be a multiple of 4 in 8..512");
  if (every != 0 && (every % 4 || every < 4 || every > unroll))
    throw std::invalid_argument(
        "asami unroll: every (prefetch interval) must be 0 (no prefetch) or a multiple of 4 in 4..unroll");
  Preset p;
  p.id = "asami/unroll:" + std::to_string(unroll) + "/scratch:" + std::to_string(scratch) +
         "/every:" + std::to_string(every);
  // The NAME a user would give `unroll NAME U P N` for this variant, so that every
  // variant prints (and plots) under its own name; the Makefile's one was "unrolled".
  p.printed = "unrolled_" + std::to_string(unroll) + "_" + std::to_string(every) + "_" + std::to_string(scratch);
  if (unroll == 96 && scratch == 2 && every == 32) p.aliases = {"asami/unroll", "unrolled", "unroll"};
  p.op = Op::copy;
  p.family = "asami";
  p.origin = std::string(kOriginAsami) +
             "; loop form from the Berkeley NOW \"Fast Memory Copy\" page (http://now.cs.berkeley.edu/Td/bcopy.html)";
  p.confidence = Confidence::medium;
  p.notes = "Output of `unroll " + p.printed + "` with UNROLL=" + std::to_string(unroll) + ", PREFETCH=" +
            std::to_string(every) + ", NREGS=" + std::to_string(scratch) +
            " (reconstruction of the generator, medium): copies shorter than UNROLL go to the tail; each iteration " +
            (every ? std::string("touches S+P, S+2P, ..., S+UNROLL with dummy 32-bit loads (a touch that could read "
                                 "past the end is guarded by cmp/jbe), then ")
                   : std::string("has no dummy prefetch loads (every:0, the copy before Asami \"added some "
                                 "prefetch\"; kex's spelling, the generator's handling of 0 was not recovered), ")) +
            "copies UNROLL bytes with 32-bit movl in groups of NREGS registers (eax, edx"
            "[, ebx]); tail rep movsl + rep movsb. Ported from i386 bcopy(src,dst,len) on the stack to SysV "
            "(dst rdi, src rsi, len rdx) with 64-bit pointers; the argument order of `unroll` is in conflict "
            "(seed vs Makefile), so the parameters are named.";
  p.region = 1;
  p.emit = [unroll, scratch, every](Gen& g, const PresetOptions&, Subs&) { asami_unroll(g, unroll, scratch, every); };
  return p;
}

std::vector<Preset> asami_presets() {
  std::vector<Preset> v;
  v.push_back(asami_unroll_preset(96, 2, 32));
  Preset p;
  p.id = "asami/fp_copy";
  p.printed = "FP copy";
  p.aliases = {"the FP thing", "fastmove", "fp_copy"};
  p.op = Op::copy;
  p.family = "asami";
  p.origin = std::string(kOriginAsami) +
             "; core as FreeBSD sys/i386/i386/support.s rev 1.36 fastmove (31 May 1996, I586_FAST_BCOPY)";
  p.confidence = Confidence::medium;
  p.notes =
      "x87 copy through fild/fistp qword (bit-exact for every pattern): copies of 64 bytes or more with src and dst "
      "8-byte aligned run in chunks of at most 1792 bytes (fastmove; i586_bcopy used 3840): a forward block pre-read "
      "of one dword per 32-byte line while >= 256 bytes of the chunk remain, then 64-byte iterations of 8 fild and "
      "8 fistp in reverse order; everything else through the libc tail (rep movsl, rep movsb). The kernel's FPU "
      "save/CR0.TS handling is absent (the user-space package had none); the ABI's empty x87 stack gives the 8 free "
      "slots.";
  p.features = {};
  p.region = 1;
  p.emit = [](Gen& g, const PresetOptions&, Subs&) { asami_fp(g); };
  v.push_back(p);
  v.push_back(
      {{.id = "asami/generic_bcopy",
        .printed = "generic_bcopy",
        .aliases = {"bcopy"},
        .family = "asami",
        .origin = kOriginGenericBcopy,
        .confidence = Confidence::high,
        .notes = "The FreeBSD kernel's integer bcopy of the time, the experiment's bcopy baseline (the copy Asami's "
                 "kernels were candidates to replace): forward unless dst - src < cnt (unsigned: an overlap with src "
                 "below dst); forward: shr ecx,2; cld; rep movsl; reload cnt; and ecx,3; rep movsb; backward "
                 "(ALIGN_TEXT): the odd bytes from the end with std; rep movsb, then the dwords with rep movsl from 3 "
                 "bytes lower; cld. Ported from i386 bcopy(src,dst,cnt) on the stack to kernel(dst rdi, src rsi, cnt "
                 "rdx): no push/pop of esi/edi (rsi and rdi are the arguments), 64-bit pointers and count, cnt kept in "
                 "rdx where the original reloaded it from 20(%esp).",
        .region = 1},
       Op::copy,
       [](Gen& g, const PresetOptions&, Subs&) { generic_bcopy(g); }});
  return v;
}

}  // namespace kex::presets_detail
