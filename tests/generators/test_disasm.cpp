// Disassembly (`kex show`): listings keep true offsets and branch targets past the bytes
// Capstone 4 cannot decode (3DNow! prefetch, 0F 0D /0), checked against objdump; the
// AT&T syntax; the hex form; and the `.s` form, which `as` (and llvm-mc, where it is
// installed) must assemble back to exactly the JIT's bytes.
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "generators/disasm_ext.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "generators/presets/presets.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes bytes_of(const CodeRef& r) { return Bytes(r.code, r.code + r.size); }

Bytes preset_code(const std::string& id, bool fsave = true) {
  const Preset* p = find_preset(id);
  REQUIRE_MESSAGE(p, id);
  CodeArena a;
  std::vector<std::string> subs;
  size_t i = a.add([&](Xbyak::CodeGenerator& g) { p->emit(g, {fsave}, subs); });
  a.finalize();
  return bytes_of(a.ref(i));
}

Bytes spec_code(const KernelSpec& s) {
  CodeArena a;
  size_t i = a.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); });
  a.finalize();
  return bytes_of(a.ref(i));
}

/// A hand-made snippet with raw 3DNow! prefetches between branches:
///   0: prefetch [rsi+0x40]   4: dec ecx   6: jne 0   8: prefetch [rsi]
///   b: jmp 0xe               d: nop       e: ret
Bytes prefetch_snippet() {
  Xbyak::CodeGenerator g(4096, Xbyak::DontSetProtectRWE);
  Xbyak::Label top, out;
  g.L(top);
  for (uint8_t b : {0x0F, 0x0D, 0x46, 0x40}) g.db(b);
  g.dec(g.ecx);
  g.jnz(top);
  for (uint8_t b : {0x0F, 0x0D, 0x06}) g.db(b);
  g.jmp(out);
  g.nop();
  g.L(out);
  g.ret();
  return Bytes(g.getCode(), g.getCode() + g.getSize());
}

bool have(const std::string& tool) { return run_sh("command -v " + tool + " >/dev/null 2>&1") == 0; }

/// One instruction as objdump prints it.
struct ObjInsn {
  uint64_t offset;
  size_t length;
  std::string mnemonic;
  std::optional<uint64_t> target;  ///< of j*, call, loop*
};

/// objdump -D -b binary -m i386:x86-64 of the bytes, parsed.
std::vector<ObjInsn> objdump(const Bytes& code) {
  REQUIRE_MESSAGE(have("objdump"), "objdump (binutils) is needed: make deps installs it");
  TmpDir d;
  {
    std::ofstream f(d / "k.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(code.data()), static_cast<std::streamsize>(code.size()));
  }
  REQUIRE(run_sh("objdump -D -b binary -m i386:x86-64 -M intel --insn-width=16 " + (d / "k.bin") + " > " +
                 (d / "out.txt")) == 0);
  std::vector<ObjInsn> out;
  std::istringstream in(slurp(d / "out.txt"));
  const std::regex line(R"(^\s*([0-9a-f]+):\t([0-9a-f ]+)\t(\S+)\s*(.*)$)");
  const std::regex tgt(R"(^(0x)?([0-9a-f]+)\b)");
  std::string l;
  while (std::getline(in, l)) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    ObjInsn i{std::stoull(m[1], nullptr, 16), 0, m[3], std::nullopt};
    std::istringstream hex(m[2]);
    std::string b;
    while (hex >> b) ++i.length;
    std::string ops = m[4];
    std::smatch t;
    const bool branch = i.mnemonic[0] == 'j' || i.mnemonic == "call" || i.mnemonic.rfind("loop", 0) == 0;
    if (branch && std::regex_search(ops, t, tgt)) i.target = std::stoull(t[2], nullptr, 16);
    out.push_back(i);
  }
  return out;
}

/// Capstone (disassemble_all) and objdump agree on every instruction boundary and every
/// branch target. The one known difference: objdump folds `fwait` (9B) into the x87
/// instruction after it (`fsave`), Capstone prints `wait` and `fnsave`.
void cross_check(const std::string& what, const Bytes& code) {
  CAPTURE(what);
  auto cs = disassemble_all(code.data(), code.size());
  size_t decoded = 0;
  for (const auto& i : cs) decoded += i.bytes.size();
  REQUIRE_MESSAGE(decoded == code.size(), "Capstone stopped at byte " << decoded);
  auto od = objdump(code);
  REQUIRE(!od.empty());
  std::map<uint64_t, const Insn*> by_offset;
  for (const auto& i : cs) by_offset[i.offset] = &i;
  std::set<uint64_t> od_starts, folded;
  for (const auto& o : od) {
    od_starts.insert(o.offset);
    auto it = by_offset.find(o.offset);
    REQUIRE_MESSAGE(it != by_offset.end(), "objdump has an instruction at 0x" << std::hex << o.offset
                                                                             << " that Capstone does not\n"
                                                                             << format_listing(cs));
    const Insn& c = *it->second;
    if (c.bytes.size() != o.length) {
      CHECK_MESSAGE((c.mnemonic == "wait" && c.bytes.size() == 1 && by_offset.count(o.offset + 1) &&
                     by_offset[o.offset + 1]->bytes.size() + 1 == o.length),
                    "length differs at 0x" << std::hex << o.offset << ": " << c.mnemonic << " vs " << o.mnemonic);
      folded.insert(o.offset + 1);
    }
    CHECK_MESSAGE(c.target == o.target, "branch target at 0x" << std::hex << o.offset << ": Capstone "
                                                              << (c.target ? *c.target : ~0ull) << " (" << c.mnemonic
                                                              << " " << c.operands << "), objdump "
                                                              << (o.target ? *o.target : ~0ull));
  }
  for (const auto& c : cs)
    CHECK_MESSAGE((od_starts.count(c.offset) || folded.count(c.offset)),
                  "Capstone boundary 0x" << std::hex << c.offset << " (" << c.mnemonic << ") is not objdump's");
}

/// Kernels across every register class, op, store kind, direction, alignment, edges, small
/// strategy and prefetch kind (and a block pre-read), for the reassembly test.
std::vector<KernelSpec> spec_sample() {
  std::vector<KernelSpec> out;
  for (auto op : {Op::copy, Op::clear})
    for (const auto& ci : reg_classes()) {
      KernelSpec base = default_spec(op, ci.cls);
      if (op == Op::clear) base.fill = 0xa5;
      if (ci.cls == RegClass::string) {
        for (uint32_t e : {1u, 2u, 4u, 8u})
          for (auto dir : {Direction::forward, Direction::backward}) {
            KernelSpec s = base;
            s.unroll = e;
            s.direction = dir;
            if (validate(s).empty()) out.push_back(s);
          }
        continue;
      }
      int k = 0;
      for (auto store : {Store::temporal, Store::nontemporal})
        for (auto dir : {Direction::forward, Direction::backward})
          for (auto align : {Align::unaligned, Align::aligned})
            for (auto pf : {Prefetch::none, Prefetch::nta, Prefetch::t0, Prefetch::t1, Prefetch::t2, Prefetch::w,
                            Prefetch::load}) {
              KernelSpec s = base;
              s.store = store;
              s.direction = dir;
              s.align = align;
              s.unroll = ci.width * (++k % 3 + 1) * (ci.width < 16 ? 4 : 1);
              s.scratch = std::min<uint32_t>(k % 4 + 1, ci.max_scratch);
              s.prefetch = pf;
              if (pf != Prefetch::none) s.pf_distance = dir == Direction::forward ? 320 : -320;
              if (validate(s).empty()) out.push_back(s);
              s.edges = Edges::overlap;  // its edge moves: [base + rdx - width] and the small path
              if ((pf == Prefetch::none || pf == Prefetch::load) && validate(s).empty()) out.push_back(s);
              for (Small small : {Small::overlap, Small::mask, Small::rep, Small::table}) {
                s.small = small;  // the small path's moves (a table's rip-relative jump and int3 padding)
                if (pf == Prefetch::none && align == Align::unaligned && validate(s).empty()) out.push_back(s);
              }
            }
      KernelSpec b = base;
      b.block.bytes = 4096;
      if (op == Op::copy && validate(b).empty()) out.push_back(b);
    }
  return out;
}

/// Assembles `source` with `as` (or llvm-mc) and returns the .text bytes.
Bytes assemble(const std::string& source, bool llvm) {
  TmpDir d;
  spit(d / "k.s", source);
  const std::string cmd = llvm ? "llvm-mc -triple=x86_64 -filetype=obj -o " + (d / "k.o") + " " + (d / "k.s")
                               : "as --64 -o " + (d / "k.o") + " " + (d / "k.s");
  REQUIRE_MESSAGE(run_sh(cmd + " 2> " + (d / "err.txt")) == 0, cmd << ":\n" << slurp(d / "err.txt"));
  REQUIRE(run_sh("objcopy -O binary -j .text " + (d / "k.o") + " " + (d / "k.bin")) == 0);
  std::string s = slurp(d / "k.bin");
  return Bytes(s.begin(), s.end());
}

}  // namespace

TEST_CASE("branch targets after a 3DNow! prefetch are the real ones" * doctest::test_suite("disasm")) {
  const Bytes code = prefetch_snippet();
  auto insns = disassemble_all(code.data(), code.size());
  REQUIRE(insns.size() == 7);
  std::vector<uint64_t> offsets;
  for (const auto& i : insns) offsets.push_back(i.offset);
  CHECK(offsets == std::vector<uint64_t>{0, 4, 6, 8, 0xb, 0xd, 0xe});
  CHECK(insns[0].mnemonic == "prefetch");
  CHECK(insns[0].operands == "byte ptr [rsi + 0x40]");
  CHECK(insns[2].mnemonic == "jne");
  CHECK(insns[2].operands == "0");  // was 0xfffffffffffffffc: the piece decoded as if at 0
  CHECK(insns[2].target == 0u);
  CHECK(insns[3].operands == "byte ptr [rsi]");
  CHECK(insns[4].mnemonic == "jmp");
  CHECK(insns[4].operands == "0xe");
  CHECK(insns[4].target == 0xeu);
  CHECK_FALSE(insns[1].target);
  CHECK(format_listing(insns).find("     6:  75 f8                             jne 0\n") != std::string::npos);
}

TEST_CASE("instruction boundaries and branch targets agree with objdump" * doctest::test_suite("disasm")) {
  cross_check("prefetch snippet", prefetch_snippet());
  // presets with 3DNow! prefetches (raw 0F 0D on CPUs that have them), loops and tails
  for (const char* id : {"fastc/fast_copy_page", "linux24/fast_copy_page_k7", "linux24/_mmx_memcpy",
                         "linux/memcpy_orig", "freebsd/sse2_pagezero", "asami/fp_copy"})
    cross_check(id, preset_code(id));
  // generated kernels: a prefetching NT copy, a backward AVX clear, a block pre-read
  for (const char* name : {"copy/sse/unroll:64/scratch:4/pf:nta@256/nt/fwd", "clear/avx/unroll:128/scratch:4/pf:none/t/bwd",
                           "copy/sse/unroll:64/scratch:4/pf:w@512/nt/fwd/block:4096@bwd", "copy/string/unroll:8",
                           "copy/avx512/unroll:256/nt/fwd/overlap", "clear/x87/unroll:64/bwd/overlap"})
    cross_check(name, spec_code(parse_spec_name(name)));
}

TEST_CASE("AT&T syntax" * doctest::test_suite("disasm")) {
  const Bytes code = prefetch_snippet();
  auto att = disassemble_all(code.data(), code.size(), Syntax::att);
  REQUIRE(att.size() == 7);
  CHECK(att[0].mnemonic == "prefetch");
  CHECK(att[0].operands == "0x40(%rsi)");
  CHECK(att[1].mnemonic == "decl");
  CHECK(att[1].operands == "%ecx");
  CHECK(att[2].target == 0u);
  CHECK(att[3].operands == "(%rsi)");
  Bytes nt = spec_code(parse_spec_name("copy/sse/unroll:64/scratch:4/pf:nta@256/nt/fwd"));
  std::string listing = format_listing(disassemble_all(nt.data(), nt.size(), Syntax::att));
  CHECK(listing.find("prefetchnta 0x100(%rsi)") != std::string::npos);
  CHECK(listing.find("movntdq %xmm0, (%rdi)") != std::string::npos);
}

TEST_CASE("hex output is the code, 32 bytes a line" * doctest::test_suite("disasm")) {
  const uint8_t b[33] = {0x0f, 0x0d, 0x46, 0x40, 0xc3};
  CHECK(format_hex(b, 5) == "0f0d4640c3\n");
  std::string h = format_hex(b, 33);
  CHECK(h == "0f0d4640c3" + std::string(54, '0') + "\n00\n");
  CHECK(format_hex(b, 0).empty());
}

TEST_CASE("the .s output reassembles to the JIT's bytes" * doctest::test_suite("disasm")) {
  REQUIRE_MESSAGE((have("as") && have("objcopy")), "as and objcopy (binutils) are needed: make deps installs them");
  struct Item {
    std::string symbol, what;
    Bytes code;
  };
  std::vector<Item> items;
  for (const auto& p : presets())
    for (bool fs : {true, false})
      items.push_back({"kex_" + std::to_string(items.size()), p.id + (fs ? "" : " (no fsave)"), preset_code(p.id, fs)});
  for (const char* id : {"asami/unroll:36/scratch:3/every:8", "asami/unroll:128/scratch:2/every:64"})
    items.push_back({"kex_" + std::to_string(items.size()), id, preset_code(id)});
  const auto specs = spec_sample();
  CHECK(specs.size() > 150);
  for (const auto& s : specs) items.push_back({"kex_" + std::to_string(items.size()), spec_name(s), spec_code(s)});
  const bool llvm = have("llvm-mc");
  if (!llvm) MESSAGE("llvm-mc not installed: checked with as only");
  for (Syntax syn : {Syntax::intel, Syntax::att}) {
    CAPTURE(static_cast<int>(syn));
    // One file holding every kernel (local labels are per symbol); each function starts
    // at a 64-byte boundary (.p2align 6), so kernel k sits at the next multiple of 64.
    std::string src;
    std::vector<size_t> at;
    size_t pos = 0, labels = 0, disp32 = 0;
    for (const auto& it : items) {
      std::string one = format_asm(disassemble_all(it.code.data(), it.code.size(), syn), it.code.data(), it.code.size(),
                                   syn, it.symbol, {it.what});
      for (size_t p = 0; (p = one.find("\n.L" + it.symbol + "_", p)) != std::string::npos; ++p) ++labels;
      for (size_t p = 0; (p = one.find("{disp32}", p)) != std::string::npos; ++p) ++disp32;
      src += one;
      pos = (pos + 63) / 64 * 64;
      at.push_back(pos);
      pos += it.code.size();
    }
    CHECK(labels > items.size());  // every kernel has at least one loop label
    CHECK(disp32 > 0);
    CHECK(src.find(syn == Syntax::intel ? ".intel_syntax noprefix" : ".att_syntax") != std::string::npos);
    for (bool use_llvm : {false, true}) {
      if (use_llvm && !llvm) continue;
      CAPTURE(use_llvm);
      Bytes text = assemble(src, use_llvm);
      REQUIRE(text.size() >= pos);
      for (size_t k = 0; k < items.size(); ++k) {
        Bytes got(text.begin() + static_cast<long>(at[k]), text.begin() + static_cast<long>(at[k] + items[k].code.size()));
        if (got != items[k].code) {
          std::string one = format_asm(disassemble_all(items[k].code.data(), items[k].code.size(), syn),
                                       items[k].code.data(), items[k].code.size(), syn, items[k].symbol, {});
          FAIL_CHECK(items[k].what << " reassembles to other bytes:\n" << one);
        }
      }
    }
  }
}

TEST_CASE("the .s form marks exactly the main loop for llvm-mca" * doctest::test_suite("disasm")) {
  for (const char* name : {"copy/sse/unroll:64/scratch:4/pf:nta@256/nt/fwd", "clear/avx/unroll:128/bwd",
                           "copy/gpr/unroll:32/aligned/bwd", "copy/sse/unroll:64/block:4096@bwd",
                           "copy/avx512/unroll:256/nt/fwd/overlap", "clear/sse/unroll:64/aligned/bwd/overlap"}) {
    CAPTURE(name);
    const KernelSpec s = parse_spec_name(name);
    CodeArena a;
    std::optional<LoopRange> loop;
    const size_t i = a.add([&](Xbyak::CodeGenerator& g) { loop = emit_kernel(g, s); });
    a.finalize();
    const Bytes code = bytes_of(a.ref(i));
    REQUIRE(loop);
    const auto insns = disassemble_all(code.data(), code.size());
    // The range starts and ends on instruction boundaries, and its last instruction is
    // the branch back to its first: the loop, no more and no less.
    const Insn* first = nullptr;
    const Insn* last = nullptr;
    size_t inside = 0;
    for (const auto& in : insns) {
      if (in.offset == loop->begin) first = &in;
      if (in.offset + in.bytes.size() == loop->end) last = &in;
      inside += in.offset >= loop->begin && in.offset < loop->end;
    }
    REQUIRE(first);
    REQUIRE(last);
    CHECK(last->target == loop->begin);
    CHECK((last->mnemonic == "jae" || last->mnemonic == "jne"));
    const std::string src =
        format_asm(insns, code.data(), code.size(), Syntax::intel, "kex_t", {}, McaRegion{loop->begin, loop->end, "kex_t"});
    const size_t b = src.find("# LLVM-MCA-BEGIN kex_t\n"), e = src.find("# LLVM-MCA-END\n");
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    CHECK(src.find("# LLVM-MCA-BEGIN", b + 1) == std::string::npos);
    // Between the markers: the loop's label, then one line per instruction of the range.
    const std::string body = src.substr(b, e - b);
    size_t lines = 0, label_lines = 0;
    for (size_t p = body.find('\n'); p != std::string::npos && p + 1 < body.size(); p = body.find('\n', p + 1)) {
      ++lines;
      label_lines += body[p + 1] == '.';
    }
    CHECK(label_lines == 1);
    CHECK(lines - label_lines == inside);
    // The instruction before BEGIN (after the label) is the first of the loop.
    const std::string after = body.substr(body.find('\n') + 1);
    CHECK(after.rfind(".Lkex_t_" + [&] {
      char h[16];
      snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(loop->begin));
      return std::string(h);
    }() + ":\n", 0) == 0);
  }
  // The string class has no loop of its own to mark.
  CodeArena a;
  std::optional<LoopRange> none = LoopRange{1, 2};
  a.add([&](Xbyak::CodeGenerator& g) { none = emit_kernel(g, parse_spec_name("copy/string/unroll:8")); });
  CHECK_FALSE(none);
}

TEST_CASE("golden: the listing of one kernel with byte edges and with overlap edges" * doctest::test_suite("disasm")) {
  // Byte edges are the code kex emitted before the edges axis existed, byte for byte;
  // overlap edges: the small path, the head's and the tail's unaligned temporal moves.
  for (const auto& [name, file] : {std::pair{"copy/avx512/unroll:256/scratch:4/nt/fwd", "show-edges-bytes.txt"},
                                   std::pair{"copy/avx512/unroll:256/scratch:4/nt/fwd/overlap", "show-edges-overlap.txt"},
                                   std::pair{"clear/sse/unroll:64/scratch:4/t/bwd/aligned/overlap/fill:0x5a",
                                             "show-edges-overlap-clear.txt"}}) {
    const std::string kernel = name;
    CAPTURE(kernel);
    const Bytes code = spec_code(parse_spec_name(name));
    CHECK(golden::check(file, "# " + std::string(name) + "\n" + format_listing(disassemble_all(code.data(), code.size()))) ==
          "");
  }
}
