// The one loop skeleton every register class shares (docs/DESIGN.md "The parameter space").
//
// Registers: rdi = dst, rsi = src (a clear: the 8-byte fill pattern), rdx = bytes left,
// r11 = prefetch/tail scratch, rcx = head/tail counter. Copies and clears never write rax
// (a clear's rep stosb saves it in r8 around the one instruction that needs al), so kex
// emit's wrapper can set rax = dst and jump in (generators/disasm_regs.hpp). Forward loops advance rdi/rsi; backward loops keep them
// at the buffer start and walk rdx down, addressing [base + rdx + offset].
// Layout: prologue, optional head (aligns dst for NT stores that need it), optional
// block-prefetch loop, main loop, tail (elements of the class width, then bytes),
// epilogue (sfence after NT stores, class state, ret).
//
// Edges (KernelSpec::edges): `bytes` moves the head and the tail's last bytes one at a
// time. `overlap` moves each edge with one unaligned temporal class-width move that may
// overlap bytes moved before or after it, as glibc's memcpy does; below one width in all
// it takes a small path of single bytes. copy/avx512/unroll:256/scratch:4/nt/fwd/overlap:
//     cmp rdx, 64 ; jb small                 small path
//     vmovdqu64 zmm0, [rsi] ; vmovdqu64 [rdi], zmm0     head: dst's first 64 bytes
//     mov rcx, rdi ; neg rcx ; and rcx, 63 ; add rdi, rcx ; add rsi, rcx ; sub rdx, rcx
//     main loop (vmovntdq to a 64-byte-aligned dst)
//     test rdx, 63 ; jz elems
//     vmovdqu64 zmm0, [rsi+rdx-64] ; vmovdqu64 [rdi+rdx-64], zmm0 ; and rdx, -64
//   elems: whole 64-byte elements (vmovntdq) from the top down; epilogue
//   small: single bytes from the top down; epilogue
//
// Reads (Op::read) load like copies and store nothing in the loops: each data register
// is folded into its accumulator (ClassEmitter::combine), single bytes into r14b; rdi
// stays at dst, and the epilogue stores read_fold (src/model/spec.hpp) there.
// read/sse/unroll:32/scratch:2: main loop
//     movdqu xmm0, [rsi] ; movdqu xmm1, [rsi+16] ; pxor xmm2, xmm0 ; pxor xmm3, xmm1
//     add rsi, 32 ; sub rdx, 32 ; cmp rdx, 32 ; jae loop
//   epilogue: xmm2 ^= xmm3, its two qwords into rax, rax's 8 bytes into al, al ^= r14b,
//     mov [rdi], rax
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators/emit.hpp"

namespace kex {

namespace {

using namespace Xbyak;
using namespace Xbyak::util;

struct Ctx {
  CodeGenerator& g;
  const KernelSpec& s;
  const ClassEmitter& cls;
  uint32_t w;                        ///< the class width in bytes
  std::vector<Reg64> saved;          ///< callee-saved GPRs the class uses, pushed in this order
  size_t start = 0;                  ///< g.getSize() at the kernel's first byte
  std::optional<LoopRange> main_range;    ///< set by the loop that does the bulk of the work
  Label small;                       ///< overlap edges: the path below one width in all
  Label rep_big;                     ///< rep:N: the path of N bytes and more
  bool copy() const { return s.op == Op::copy; }
  bool read() const { return s.op == Op::read; }
  bool clear() const { return s.op == Op::clear; }
  /// The register whose address the loops walk and the head aligns (src for reads).
  const Reg64& lead() const { return read() ? g.rsi : g.rdi; }
  bool fwd() const { return s.direction == Direction::forward; }
  bool overlap() const { return s.edges == Edges::overlap; }

  RegExp exp(const Reg64& base, int64_t off) const {
    return fwd() ? base + static_cast<size_t>(off) : base + g.rdx + static_cast<size_t>(off);
  }
  Address at(const Reg64& base, int64_t off) const { return g.ptr[exp(base, off)]; }

  /// One byte at [base + rdx] after rdx was decremented (head/tail byte moves).
  void byte_move() {
    if (read()) {
      g.xor_(g.r14b, g.byte[g.rsi + g.rdx]);
    } else if (copy()) {
      g.mov(g.r11b, g.byte[g.rsi + g.rdx]);
      g.mov(g.byte[g.rdi + g.rdx], g.r11b);
    } else {
      g.mov(g.byte[g.rdi + g.rdx], static_cast<int>(s.fill));
    }
  }

  /// One class-width element at [base + rdx].
  void elem_move() {
    if (read()) {
      cls.load(g, 0, g.ptr[g.rsi + g.rdx], s);
      cls.combine(g, 0, s);
    } else if (copy()) {
      cls.load(g, 0, g.ptr[g.rsi + g.rdx], s);
      cls.store(g, g.ptr[g.rdi + g.rdx], 0, s);
    } else {
      cls.store_fill(g, g.ptr[g.rdi + g.rdx], 0, s);
    }
  }

  /// One edge: an unaligned temporal class-width move at [base + off] (with_rdx:
  /// [base + rdx + off]) through register 0, whatever the spec's alignment and store
  /// (an edge may lie anywhere; NT stores need aligned addresses).
  void edge_move(bool with_rdx, int64_t off) {
    KernelSpec e = s;
    e.store = Store::temporal;
    e.align = Align::unaligned;
    const auto d = static_cast<size_t>(off);
    auto at_edge = [&](const Reg64& base) { return with_rdx ? g.ptr[base + g.rdx + d] : g.ptr[base + d]; };
    if (copy()) {
      cls.load(g, 0, at_edge(g.rsi), e);
      cls.store(g, at_edge(g.rdi), 0, e);
    } else {
      cls.store_fill(g, at_edge(g.rdi), 0, e);
    }
  }

  void prefetch_one(const RegExp& e) {
    const Address a = g.ptr[e];
    switch (s.prefetch) {
      case Prefetch::nta: g.prefetchnta(a); break;
      case Prefetch::t0: g.prefetcht0(a); break;
      case Prefetch::t1: g.prefetcht1(a); break;
      case Prefetch::t2: g.prefetcht2(a); break;
      case Prefetch::w: g.prefetchw(a); break;
      case Prefetch::load: g.mov(g.r11d, g.dword[e]); break;
      case Prefetch::none: break;
    }
  }

  /// Prefetches for the iteration at the current base: one per pf_every bytes,
  /// `pf_distance` ahead of the data (src for copies, dst for clears).
  void prefetches() {
    if (s.prefetch == Prefetch::none) return;
    const Reg64& base = copy() || read() ? g.rsi : g.rdi;
    int n = static_cast<int>((s.unroll + s.pf_every - 1) / s.pf_every);
    for (int k = 0; k < n; ++k) {
      int idx = fwd() ? k : n - 1 - k;
      int64_t off = int64_t(s.pf_distance) + int64_t(idx) * s.pf_every;
      if (s.prefetch != Prefetch::load) {
        prefetch_one(exp(base, off));
        continue;
      }
      // A dummy load must stay inside the buffer: guard it as Asami's unroll did.
      Label skip;
      if (fwd()) {
        if (off < 0) continue;  // validate() forbids; never read before the start
        if (off + 4 > int64_t(s.unroll)) {
          g.cmp(g.rdx, off + 4);
          g.jb(skip, CodeGenerator::T_NEAR);
        }
      } else {
        if (off + 4 > int64_t(s.unroll)) continue;  // above the block already copied: skip
        if (off < 0) {
          g.cmp(g.rdx, -off);
          g.jb(skip, CodeGenerator::T_NEAR);
        }
      }
      prefetch_one(exp(base, off));
      g.L(skip);
    }
  }

  /// The data moves of one iteration, in groups of `scratch` registers.
  void body() {
    const int n = static_cast<int>(s.unroll / w);
    const int group = static_cast<int>(s.scratch);
    for (int first = 0; first < n; first += group) {
      int count = std::min(group, n - first);
      auto off = [&](int i) -> int64_t {
        int e = first + i;  // element within the iteration, in traversal order
        return fwd() ? int64_t(e) * w : int64_t(n - 1 - e) * w;
      };
      if (clear()) {
        for (int i = 0; i < count; ++i) cls.store_fill(g, at(g.rdi, off(i)), i, s);
        continue;
      }
      for (int i = 0; i < count; ++i) cls.load(g, i, at(g.rsi, off(i)), s);
      if (read())
        for (int i = 0; i < count; ++i) cls.combine(g, i, s);
      else if (cls.lifo())
        for (int i = count - 1; i >= 0; --i) cls.store(g, at(g.rdi, off(i)), i, s);
      else
        for (int i = 0; i < count; ++i) cls.store(g, at(g.rdi, off(i)), i, s);
    }
  }

  void advance(uint32_t bytes) {
    if (copy() || read()) g.add(g.rsi, bytes);
    if (!read()) g.add(g.rdi, bytes);
    g.sub(g.rdx, bytes);
  }

  /// Pushes the class's callee-saved registers; a clear sets rsi = the 8-byte fill
  /// pattern (rsi is no source for a clear) and lets the class load its fill registers
  /// from it; a read zeroes r14 (its byte fold).
  void prologue() {
    for (const auto& r : saved) g.push(r);
    if (read()) g.xor_(g.r14d, g.r14d);
    if (clear()) {
      g.mov(g.rsi, fill_pattern(s.fill));
      cls.load_fill(g, s);
    }
  }

  /// Whether the kernel starts with a head: NT stores of this class fault on unaligned
  /// addresses, and backward aligned loops address [base + rdx], so dst's end must be
  /// width-aligned too.
  bool needs_head() const {
    const bool nt_align = s.store == Store::nontemporal && s.align == Align::unaligned && cls.nt_needs_alignment();
    return nt_align || (!fwd() && s.align == Align::aligned);
  }

  /// Head, when needed: single bytes until dst (forward: its start; backward: its end)
  /// is width-aligned.
  void head() {
    if (!needs_head()) return;
    if (overlap()) head_overlap();
    else if (fwd()) head_forward();
    else head_backward();
  }

  /// Whether calls below one width take a small path of their own (overlap edges or a
  /// small strategy other than bytes).
  bool small_own() const { return overlap() || s.small != Small::bytes; }

  /// Below one width in all, the small path (see small_path).
  void small_entry() {
    if (!small_own()) return;
    g.cmp(g.rdx, w);
    g.jb(small, CodeGenerator::T_NEAR);
  }

  /// The small path: fewer than w bytes (either direction: rdi/rsi are still at the
  /// buffer's start), by the spec's small strategy (KernelSpec::small; bytes: one at a
  /// time from the top down), then the epilogue.
  void small_path() {
    if (!small_own()) return;
    g.L(small);
    switch (s.small) {
      case Small::bytes: byte_tail(false); break;
      case Small::overlap: pair_moves(); break;
      case Small::mask: masked_move(); break;
      case Small::rep: rep_move(); break;
      case Small::table: pair_table(); break;
    }
    epilogue();
  }

  /// small:mask, rdx < w <= 64: one masked move of the low rdx bytes through xmm16, ymm16
  /// or zmm16 (the narrowest that holds w bytes; EVEX-only, so the class's registers and
  /// the upper halves vzeroupper clears are untouched; an xmm or ymm needs AVX-512VL):
  ///     mov r11, -1 ; mov ecx, edx ; shl r11, cl ; not r11 ; kmovq k1, r11
  ///     vmovdqu8 zmm16{k1}{z}, [rsi] ; vmovdqu8 [rdi]{k1}, zmm16
  /// A clear broadcasts its fill byte from sil (vpbroadcastb zmm16, esi). Masked-out bytes
  /// are neither read nor written, and never fault.
  void masked_move() {
    g.mov(g.r11, -1);
    g.mov(g.ecx, g.edx);
    g.shl(g.r11, g.cl);
    g.not_(g.r11);
    g.kmovq(g.k1, g.r11);
    const Xmm& v = w <= 16 ? static_cast<const Xmm&>(g.xmm16) : w <= 32 ? static_cast<const Xmm&>(g.ymm16) : g.zmm16;
    if (clear()) {
      g.vpbroadcastb(v, g.sil);
    } else {
      g.vmovdqu8(v | g.k1 | g.T_z, g.ptr[g.rsi]);
    }
    g.vmovdqu8(g.ptr[g.rdi] | g.k1, v);
  }

  /// rep:N, after the small entry: calls of N bytes or more take rep_path.
  void rep_entry() {
    if (!s.rep_above) return;
    g.cmp(g.rdx, s.rep_above);
    g.jae(rep_big, CodeGenerator::T_NEAR);
  }

  /// rep:N's path (rdi/rsi at the buffers' start): rep movsb / rep stosb of every byte, then
  /// the epilogue.
  void rep_path() {
    if (!s.rep_above) return;
    g.L(rep_big);
    rep_move();
    epilogue();
  }

  /// small:rep, rdx < w: rep movsb of rdx bytes. A clear: rep stosb of al, the fill, with
  /// rax saved in r8 around it (mov r8, rax ; mov eax, esi ; rep stosb ; mov rax, r8), the
  /// one place a clear touches rax; keeps_rax accepts exactly such a straight-line save.
  void rep_move() {
    g.mov(g.rcx, g.rdx);
    if (!clear()) {
      g.rep(), g.movsb();
      return;
    }
    g.mov(g.r8, g.rax);
    g.mov(g.eax, g.esi);
    g.rep(), g.stosb();
    g.mov(g.rax, g.r8);
  }

  /// The bytes of each size class's block in pair_table: room for the longest pair (a
  /// clear of 32..63 bytes, eight qword stores) and its jump.
  static constexpr uint32_t kTableBlock = 64;

  /// small:table, rdx < w: the size class [p, 2p) by one indirect jump, not a compare
  /// chain: block k (kTableBlock bytes, int3-padded) holds pair(2^k) and a jump out.
  ///     test rdx, rdx ; jz done ; bsr rcx, rdx ; shl ecx, 6
  ///     lea r11, [rip + blocks] ; add r11, rcx ; jmp r11
  ///   blocks: <pair 1> ; jmp done ; int3... | <pair 2> ; jmp done ; int3... | ...
  void pair_table() {
    Label blocks, done;
    g.test(g.rdx, g.rdx);
    g.jz(done, CodeGenerator::T_NEAR);
    g.bsr(g.rcx, g.rdx);
    g.shl(g.ecx, 6);
    static_assert(kTableBlock == 1u << 6, "pair_table: the shift is log2(kTableBlock)");
    g.lea(g.r11, g.ptr[g.rip + blocks]);
    g.add(g.r11, g.rcx);
    g.jmp(g.r11);
    g.L(blocks);
    const size_t first = g.getSize();
    uint32_t k = 0;
    for (uint32_t p = 1; p < w; p *= 2, ++k) {
      pair(p);
      g.jmp(done, CodeGenerator::T_NEAR);
      const size_t end = first + size_t(k + 1) * kTableBlock;
      if (g.getSize() > end) throw std::logic_error("pair_table: the block of " + std::to_string(p) + " bytes is too long");
      while (g.getSize() < end) g.int3();
    }
    g.L(done);
  }

  /// small:overlap, rdx < w: the size classes from the top, [p, 2p) for each power of two
  /// p below w, then 1 and 0; class p moves [0, p) and [rdx - p, rdx) (see pair).
  ///     cmp rdx, 8 ; jb L4 ; <pair 8> ; jmp done ; L4: cmp rdx, 4 ; jb L2 ; ...
  ///     L1: test rdx, rdx ; jz done ; mov r11b, [rsi] ; mov [rdi], r11b ; done:
  void pair_moves() {
    Label done;
    for (uint32_t p = w / 2; p >= 1; p /= 2) {
      Label next;
      if (p > 1) {
        g.cmp(g.rdx, p);
        g.jb(next, CodeGenerator::T_NEAR);
      } else {
        g.test(g.rdx, g.rdx);
        g.jz(done, CodeGenerator::T_NEAR);
      }
      pair(p);
      g.jmp(done, CodeGenerator::T_NEAR);
      g.L(next);
    }
    g.L(done);
  }

  /// Moves [0, p) and [rdx - p, rdx) for p <= rdx < 2p, both loaded before either is stored
  /// (so a memmove's overlapping src and dst come out right): GPRs r11 and rcx up to 8
  /// bytes, xmm0/xmm1 for 16 and ymm0/ymm1 for 32 (VEX: only in the avx and avx512 classes,
  /// whose width is above them). A clear stores rsi (the fill pattern) 8 bytes at a time
  /// from both ends.
  void pair(uint32_t p) {
    if (clear()) {
      if (p == 1) g.mov(g.byte[g.rdi], g.sil);
      if (p == 2) g.mov(g.word[g.rdi], g.si), g.mov(g.word[g.rdi + g.rdx - 2], g.si);
      if (p == 4) g.mov(g.dword[g.rdi], g.esi), g.mov(g.dword[g.rdi + g.rdx - 4], g.esi);
      for (uint32_t k = 0; p >= 8 && k < p; k += 8) {
        g.mov(g.qword[g.rdi + k], g.rsi);
        g.mov(g.qword[g.rdi + g.rdx - (p - k)], g.rsi);
      }
      return;
    }
    // Two registers of p bytes, loaded from both ends before either is stored.
    auto both = [&](const auto& a, const auto& b, const AddressFrame& f, auto move) {
      move(a, f[g.rsi]);
      move(b, f[g.rsi + g.rdx - p]);
      move(f[g.rdi], a);
      move(f[g.rdi + g.rdx - p], b);
    };
    auto mov = [&](const auto& x, const auto& y) { g.mov(x, y); };
    auto vmovdqu = [&](const auto& x, const auto& y) { g.vmovdqu(x, y); };
    switch (p) {
      case 1:
        g.mov(g.r11b, g.byte[g.rsi]);
        g.mov(g.byte[g.rdi], g.r11b);
        break;
      case 2: both(g.r11w, g.cx, g.word, mov); break;
      case 4: both(g.r11d, g.ecx, g.dword, mov); break;
      case 8: both(g.r11, g.rcx, g.qword, mov); break;
      case 16: both(g.xmm0, g.xmm1, g.xword, vmovdqu); break;
      case 32: both(g.ymm0, g.ymm1, g.yword, vmovdqu); break;
      default: throw std::logic_error("pair: no move of " + std::to_string(p) + " bytes");
    }
  }

  /// Head with overlap edges (rdx >= w): one unaligned move of dst's first w bytes
  /// (backward: its last w), then the loops start at the first width-aligned dst
  /// address above the start (backward: below the end), rcx = the bytes that move covered.
  void head_overlap() {
    if (fwd()) {
      edge_move(false, 0);
      g.mov(g.rcx, g.rdi);
      g.neg(g.rcx);
      g.and_(g.rcx, w - 1);
      if (copy()) g.add(g.rsi, g.rcx);
      g.add(g.rdi, g.rcx);
    } else {
      edge_move(true, -int64_t(w));
      g.lea(g.rcx, g.ptr[g.rdi + g.rdx]);
      g.and_(g.rcx, w - 1);
    }
    g.sub(g.rdx, g.rcx);
  }

  /// Head, forward: single bytes until dst's start is width-aligned (at most rdx of
  /// them; rcx counts them down, rdi/rsi advance, rdx shrinks).
  void head_forward() {
    Label loop, done;
    g.mov(g.rcx, g.rdi);
    g.neg(g.rcx);
    g.and_(g.rcx, w - 1);
    g.cmp(g.rcx, g.rdx);
    g.cmova(g.rcx, g.rdx);
    g.jrcxz(done);  // short: the loop is a few bytes
    g.L(loop);
    if (copy()) {
      g.mov(g.r11b, g.byte[g.rsi]);
      g.mov(g.byte[g.rdi], g.r11b);
      g.inc(g.rsi);
    } else {
      g.mov(g.byte[g.rdi], static_cast<int>(s.fill));
    }
    g.inc(g.rdi);
    g.dec(g.rdx);
    g.dec(g.rcx);
    g.jnz(loop);
    g.L(done);
  }

  /// Head, backward: single bytes from the top until dst + rdx (rcx) is width-aligned
  /// or nothing is left.
  void head_backward() {
    Label loop, done;
    g.L(loop);
    g.test(g.rdx, g.rdx);
    g.jz(done);
    g.lea(g.rcx, g.ptr[lead() + g.rdx]);
    g.test(g.rcx, w - 1);
    g.jz(done);
    g.dec(g.rdx);
    byte_move();
    g.jmp(loop);
    g.L(done);
  }

  /// Block prefetch loop (its inner loop is the main loop), then the plain loop for the
  /// rest below one block: touch one
  /// dword per 64-byte line of the next block (in the block order) with plain loads
  /// (r11d), then copy the block with the main body (r11d counts its iterations).
  /// Entered with rdx >= unroll; jumps to `to_tail` below unroll bytes.
  void block_loops(Label& to_tail) {
    Label block, inner, loop;
    g.L(block);
    g.cmp(g.rdx, s.block.bytes);
    g.jb(loop, CodeGenerator::T_NEAR);
    const int lines = static_cast<int>(s.block.bytes / 64);
    for (int i = 0; i < lines; ++i) {
      int line = s.block.order == Direction::backward ? lines - 1 - i : i;
      g.mov(g.r11d, g.dword[g.rsi + line * 64]);
    }
    g.mov(g.r11d, s.block.bytes / s.unroll);
    g.L(inner);
    const size_t begin = g.getSize();
    prefetches();
    body();
    advance(s.unroll);
    g.dec(g.r11d);
    g.jnz(inner, CodeGenerator::T_NEAR);
    main_range = LoopRange{begin - start, g.getSize() - start};
    g.jmp(block, CodeGenerator::T_NEAR);
    g.align(16);
    // The remainder below one block runs through the plain loop (needs >= unroll).
    g.L(loop);
    g.cmp(g.rdx, s.unroll);
    g.jb(to_tail, CodeGenerator::T_NEAR);
    Label plain;
    g.L(plain);
    prefetches();
    body();
    advance(s.unroll);
    g.cmp(g.rdx, s.unroll);
    g.jae(plain, CodeGenerator::T_NEAR);
  }

  /// The main loop, 16-byte aligned: one iteration per unroll bytes while rdx >= unroll
  /// (entered with rdx >= unroll). Forward advances rdi/rsi after the body; backward
  /// takes unroll off rdx before it.
  void main_loop() {
    Label loop;
    g.align(16);
    g.L(loop);
    const size_t begin = g.getSize();
    if (!fwd()) g.sub(g.rdx, s.unroll);
    prefetches();
    body();
    if (fwd()) advance(s.unroll);
    g.cmp(g.rdx, s.unroll);
    g.jae(loop, CodeGenerator::T_NEAR);
    main_range = LoopRange{begin - start, g.getSize() - start};
  }

  /// The loops over whole iterations (the block-prefetch ones or the main one),
  /// skipped below unroll bytes; they end with rdx < unroll.
  void loops() {
    Label to_tail;
    g.cmp(g.rdx, s.unroll);
    g.jb(to_tail, CodeGenerator::T_NEAR);
    if (s.block.bytes) block_loops(to_tail);
    else main_loop();
    g.L(to_tail);
  }

  /// Single bytes from the top of [base, base + rdx) down: all of them, or (forward,
  /// only_misaligned_top) those above the last whole element.
  void byte_tail(bool only_misaligned_top) {
    Label bl, bytes_done;
    g.L(bl);
    if (only_misaligned_top) {
      g.test(g.rdx, w - 1);
      g.jz(bytes_done, CodeGenerator::T_NEAR);
    } else {
      g.test(g.rdx, g.rdx);
      g.jz(bytes_done, CodeGenerator::T_NEAR);
    }
    g.dec(g.rdx);
    byte_move();
    g.jmp(bl, CodeGenerator::T_NEAR);
    g.L(bytes_done);
  }

  /// Whole class-width elements from the top of [base, base + rdx) down while rdx >= w
  /// (nothing for a 1-byte class).
  void elem_tail() {
    if (w == 1) return;
    Label el, elems_done;
    g.L(el);
    g.cmp(g.rdx, w);
    g.jb(elems_done, CodeGenerator::T_NEAR);
    g.sub(g.rdx, w);
    elem_move();
    g.jmp(el, CodeGenerator::T_NEAR);
    g.L(elems_done);
  }

  /// Tail with overlap edges: rdx < unroll bytes left at [base, base + rdx), w or more
  /// in the whole buffer. Forward (the region ends at the buffer's end): one unaligned
  /// move of its top w bytes when rdx is not a multiple of w, then whole elements.
  /// Backward (the region starts at the buffer's start): whole elements from the top,
  /// then one unaligned move of the buffer's first w bytes when any are left.
  void tail_overlap() {
    Label done;
    if (fwd()) {
      g.test(g.rdx, w - 1);
      g.jz(done, CodeGenerator::T_NEAR);
      edge_move(true, -int64_t(w));
      g.and_(g.rdx, ~(w - 1));
      g.L(done);
      elem_tail();
    } else {
      elem_tail();
      g.test(g.rdx, g.rdx);
      g.jz(done, CodeGenerator::T_NEAR);
      edge_move(false, 0);
      g.L(done);
    }
  }

  /// Tail: rdx < unroll bytes left at [base, base + rdx).
  void tail() {
    if (overlap()) {
      tail_overlap();
    } else if (fwd() && w > 1) {
      // The remaining region starts where the loop stopped (width-aligned when
      // the start was): bytes at the top first, then whole elements downwards.
      byte_tail(true);
      elem_tail();
    } else {
      // The remaining region ends at the last block copied (aligned when dst's end
      // was): whole elements from the top, then the leading bytes.
      elem_tail();
      byte_tail(false);
    }
  }

  /// A read's result: the accumulators' lanes folded into rax (ClassEmitter::read_end),
  /// rax's 8 bytes into al, al ^= r14b (the single bytes), then 8 bytes to [rdi].
  void read_result() {
    cls.read_end(g, s);
    g.mov(g.rcx, g.rax);
    g.shr(g.rcx, 32);
    g.xor_(g.eax, g.ecx);  // writing eax clears rax's upper half
    for (int shift : {16, 8}) {
      g.mov(g.ecx, g.eax);
      g.shr(g.ecx, shift);
      g.xor_(g.eax, g.ecx);
    }
    g.xor_(g.al, g.r14b);
    g.movzx(g.eax, g.al);
    g.mov(g.qword[g.rdi], g.rax);
  }

  /// sfence after NT stores (a read's result), the class's state for the ABI, the pops, ret.
  void epilogue() {
    if (read()) read_result();
    if (s.store == Store::nontemporal) g.sfence();
    cls.leave(g, s);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) g.pop(*it);
    g.ret();
  }
};

}  // namespace

std::optional<LoopRange> emit_kernel(CodeGenerator& g, const KernelSpec& s) {
  const ClassEmitter& cls = class_emitter(s.regs);
  if (cls.emit_whole(g, s)) return std::nullopt;
  Ctx c{g, s, cls, reg_class_info(s.regs).width, cls.callee_saved(s), g.getSize(), std::nullopt, {}};
  if (s.op == Op::read) c.saved.push_back(g.r14);  // the byte fold
  c.prologue();
  c.small_entry();
  c.rep_entry();
  c.head();
  if (s.op == Op::read) cls.read_begin(g, s);  // after the head, which may use rcx (a GPR accumulator)
  c.loops();
  c.tail();
  c.epilogue();
  c.small_path();
  c.rep_path();
  return c.main_range;
}

}  // namespace kex
