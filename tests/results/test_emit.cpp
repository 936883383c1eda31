// The writers of `kex emit`: comment-safe text, symbols and their collisions, what a
// wrapper sends to libc, the exact C and GNU as text of a small kernel and dispatch,
// and measured figures from a results file (including hostile text) in the comments.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "src/results/emit_c.hpp"
#include "src/results/emit_gas.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// A one-instruction copy "kernel" (ret) under `name`, with the given constraints.
SourceKernel emit_tiny(const std::string& name, Op op = Op::copy, uint64_t region = 1, uint32_t alignment = 1) {
  SourceKernel k;
  k.name = name;
  k.symbol = kernel_symbol(name);
  k.op = op;
  k.region = region;
  k.alignment = alignment;
  k.code = {0xc3};
  k.provenance = {"kernel " + name};
  return k;
}

/// Every line between "/*" and "*/" starts with " * " (nothing broke out of a comment).
bool emit_comments_closed(const std::string& c) {
  size_t pos = 0;
  while ((pos = c.find("/*\n", pos)) != std::string::npos) {
    const size_t end = c.find("\n */\n", pos);
    if (end == std::string::npos) return false;
    for (size_t l = c.find('\n', pos); l < end; l = c.find('\n', l + 1))
      if (c.compare(l + 1, 3, " * ") != 0) return false;
    pos = end;
  }
  return true;
}

}  // namespace

TEST_CASE("comment text: no way out of a C or as comment" * doctest::test_suite("emit")) {
  CHECK(comment_text("plain: 4096 B 12.5 GB/s") == "plain: 4096 B 12.5 GB/s");
  CHECK(comment_text("a */ b") == "a *\\/ b");
  CHECK(comment_text("a /* b") == "a /\\* b");
  CHECK(comment_text("x\n#define y\r\x1b[31m\xc3\xa9") == "x\\x0a#define y\\x0d\\x1b[31m\\xc3\\xa9");
  CHECK(comment_text("**//**") == "**\\//\\**");
}

TEST_CASE("kernel symbols: a-z0-9_, collisions are an error" * doctest::test_suite("emit")) {
  CHECK(kernel_symbol("copy/sse/unroll:128/scratch:4/pf:nta@256/nt") == "kex_copy_sse_unroll_128_scratch_4_pf_nta_256_nt");
  CHECK(kernel_symbol("xmm64/xmm_clear") == "kex_xmm64_xmm_clear");
  CHECK(kernel_symbol("Fast Copy!") == "kex_fast_copy");
  CHECK(kernel_symbol("memset/fill:0xaa") == "kex_memset_fill_0xaa");
  check_symbols({emit_tiny("a/b"), emit_tiny("a/c")}, {"kex_memcpy"});
  try {
    check_symbols({emit_tiny("a/b"), emit_tiny("a:b")}, {});
    FAIL("no collision found");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "kex emit: 'a/b' and 'a:b' would both define the symbol kex_a_b; emit them in separate files");
  }
  CHECK_THROWS_AS(check_symbols({emit_tiny("memcpy")}, {"kex_memcpy"}), InputError);
  CHECK_THROWS_AS(check_symbols({emit_tiny("a"), emit_tiny("a/code")}, {}), InputError);  // kex_a_code twice
}

TEST_CASE("what the wrapper sends to libc follows the kernel's promises" * doctest::test_suite("emit")) {
  CHECK(fallback_text(source_kernel(source_plan("copy/sse/unroll:64", {}, "t"))) == "");
  CHECK(fallback_text(source_kernel(source_plan("copy/sse/unroll:64/aligned", {}, "t"))) ==
        "dst or src is not 16-byte aligned (memcpy)");
  CHECK(fallback_text(source_kernel(source_plan("linux/copy_page", {}, "t"))) ==
        "n is not a multiple of 4096 (memcpy)");
  CHECK(fallback_text(source_kernel(source_plan("xmm64/xmm_clear", {}, "t"))) ==
        "n is not a multiple of 4096, dst is not 16-byte aligned, or c is not 0x00 (memset)");
  const SourceKernel k = source_kernel(source_plan("copy/avx/unroll:128/nt", {}, "t"));
  CHECK(k.provenance.at(1) == "spec: copy/avx/unroll:128/scratch:4/nt/fwd");
  CHECK(k.provenance.at(2) == "CPU features it needs: sse, avx");
  CHECK_THROWS_AS(source_plan("memcpy", {}, "kex emit"), InputError);
  CHECK(source_plan("memcpy", {}, "--dispatch", true).libc);
  CHECK_THROWS_WITH_AS(source_plan("linux", {}, "kex emit"),
                       "kex emit: 'linux' is a set of presets; name its kernels one by one (kex list presets)",
                       InputError);
}

TEST_CASE("a preset name several presets share is refused naming where it was given (a tune file's row)" *
          doctest::test_suite("emit")) {
  CHECK_THROWS_WITH_AS(source_plan("faster_copy", {}, "t.json: /tune/dispatch", true),
                       "t.json: /tune/dispatch: preset name 'faster_copy' is ambiguous: fastc/faster_copy, "
                       "hahn/faster_copy (give the id; see kex list presets)",
                       InputError);
}

TEST_CASE("the C source of a kernel and a dispatch" * doctest::test_suite("emit")) {
  SourceKernel page = emit_tiny("p/page", Op::copy, 4096, 16);
  SourceKernel mc;
  mc.name = "memcpy";
  mc.symbol = "kex_memcpy";
  mc.libc = true;
  SourceDispatch d{parse_dispatch("16:memcpy,p/page", "t"), Op::copy, "my_memcpy"};
  const std::string c = c_source({page, mc}, d, Syntax::intel, {"head"});
  CHECK(c == "/*\n * head\n * Each kernel K: K_code is its machine code with kex's ABI (rdi dst, rsi src, rdx n, no "
             "return\n * value); K is a wrapper with the C library's signature that returns dst and calls libc where "
             "the\n * code does not promise a result (see each kernel's lines), or on its first call finds that\n"
        " * the CPU lacks a feature the code needs (__builtin_cpu_supports).\n */\n"
             "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n"
             "/*\n * kernel p/page\n */\n"
             "__attribute__((section(\".text.kex\"), aligned(64), used))\n"
             "static const unsigned char kex_p_page_code[1] = {\n\t0xc3, /* 0000: ret */\n};\n"
             "void *kex_p_page(void *dst, const void *src, size_t n);\n"
             "void *kex_p_page(void *dst, const void *src, size_t n) {\n"
             "\tif (n % 4096u != 0 || ((uintptr_t)dst | (uintptr_t)src) % 16u != 0) return memcpy(dst, src, n);\n"
             "\t((void (*)(void *, const void *, size_t))(uintptr_t)kex_p_page_code)(dst, src, n);\n"
             "\treturn dst;\n}\n\n"
             "/*\n * my_memcpy: memcpy by size, table 16:memcpy,p/page\n"
             " * each row's wrapper calls libc for what its kernel does not handle\n */\n"
             "void *my_memcpy(void *dst, const void *src, size_t n);\n"
             "void *my_memcpy(void *dst, const void *src, size_t n) {\n"
             "\tif (n <= 16ull) return memcpy(dst, src, n);\n"
             "\treturn kex_p_page(dst, src, n);\n}\n");
  SourceKernel clr = emit_tiny("c/z", Op::clear);
  clr.fill = 0xaa;
  const std::string cz = c_source({clr}, std::nullopt, Syntax::intel, {});
  CHECK(cz.find("void *kex_c_z(void *dst, int c, size_t n) {\n\tif ((unsigned char)c != 170u) return memset(dst, c, "
                "n);\n\t((void (*)(void *, const void *, size_t))(uintptr_t)kex_c_z_code)(dst, NULL, n);\n") !=
        std::string::npos);
}

TEST_CASE("the GNU as source of a kernel and a dispatch" * doctest::test_suite("emit")) {
  SourceKernel page = emit_tiny("p/page", Op::copy, 4096, 16);
  SourceKernel any = emit_tiny("p/any");
  SourceDispatch d{parse_dispatch("8G:p/any,p/page", "t"), Op::copy, "my_memcpy"};
  for (Syntax syn : {Syntax::intel, Syntax::att}) {
    const std::string s = gas_source({page, any}, d, syn, {"head */"});
    CHECK(s.rfind("# head *\\/\n", 0) == 0);
    CHECK(s.find("\t.globl kex_p_page_kernel\n") != std::string::npos);
    CHECK(s.find(".Lkex_p_page_libc:\n\tjmp memcpy@PLT\n") != std::string::npos);
    CHECK(s.find("\t.section .note.GNU-stack,\"\",@progbits\n") != std::string::npos);
    if (syn == Syntax::intel) {
      CHECK(s.find("kex_p_page:\n.Lkex_p_page_nocheck:\n\tendbr64\n\ttest rdx, 4095\n\tjnz .Lkex_p_page_libc\n\tmov eax, edi\n\tor eax, esi\n\ttest eax, "
                   "15\n\tjnz .Lkex_p_page_libc\n\tpush rdi\n\tcall kex_p_page_kernel\n\tpop rax\n\tret\n") !=
            std::string::npos);
      CHECK(s.find("kex_p_any:\n.Lkex_p_any_nocheck:\n\tendbr64\n\tpush rdi\n\tcall kex_p_any_kernel\n\tpop rax\n\tret\n\t.size") !=
            std::string::npos);
      // No features to check: SYMBOL is SYMBOL_nocheck, no indirect function, nothing in .text.unlikely but libc's jump.
      CHECK(s.find("\t.globl kex_p_any\n\t.type kex_p_any, @function\n\t.p2align 4\n\t.globl kex_p_any_nocheck\n") !=
            std::string::npos);
      CHECK(s.find("gnu_indirect_function") == std::string::npos);
      CHECK(s.find("my_memcpy:\n.Lmy_memcpy_nocheck:\n\tendbr64\n\tmovabs r11, 8589934592\n\tcmp rdx, r11\n\tjbe kex_p_any_nocheck\n\tjmp kex_p_page_nocheck\n") !=
            std::string::npos);
    } else {
      CHECK(s.find("kex_p_page:\n.Lkex_p_page_nocheck:\n\tendbr64\n\ttestq $4095, %rdx\n") != std::string::npos);
      CHECK(s.find("my_memcpy:\n.Lmy_memcpy_nocheck:\n\tendbr64\n\tmovabsq $8589934592, %r11\n\tcmpq %r11, %rdx\n\tjbe kex_p_any_nocheck\n") !=
            std::string::npos);
    }
  }
}

TEST_CASE("measured figures from a results file go into the comment, made safe" * doctest::test_suite("emit")) {
  RunDoc run = golden::run();
  run.context.host_name = "evil*/\n#include </etc/passwd>";
  SourceKernel k = emit_tiny("copy/avx/unroll:128/scratch:4/t/fwd");
  add_measured(k, {run}, "r.json");
  REQUIRE(k.provenance.size() >= 3);
  CHECK(k.provenance[1].rfind("measured in r.json on evil*/\n#include", 0) == 0);
  CHECK(k.provenance[2].rfind("  4096 B: ", 0) == 0);
  CHECK(k.provenance[2].find(" GB/s") != std::string::npos);
  bool other_code = false, condition = false;
  for (const auto& l : k.provenance) {
    other_code = other_code || l.find(", other code (fnv1a ") != std::string::npos;
    condition = condition || l.find("(dist:") != std::string::npos;
  }
  CHECK(other_code);  // the golden run measured other bytes than a lone ret
  CHECK(condition);
  const std::string c = c_source({k}, std::nullopt, Syntax::intel, {});
  CHECK(emit_comments_closed(c));
  CHECK(c.find("\n#include </etc") == std::string::npos);
  CHECK(c.find("evil*\\/\\x0a#include </etc/passwd>") != std::string::npos);
  const std::string s = gas_source({k}, std::nullopt, Syntax::intel, {});
  CHECK(s.find("\n#include") == std::string::npos);
  SourceKernel none = emit_tiny("copy/none");
  add_measured(none, {run}, "r.json");
  CHECK(none.provenance.back() == "no measured entry of it in r.json");
}

TEST_CASE("GNU as: code that keeps rax is entered by rax = dst and a jump, a dispatch of such rows jumps into the code, the CPU checked by a resolver" *
          doctest::test_suite("emit")) {
  SourceKernel lean = emit_tiny("p/lean"), rep = emit_tiny("p/rep"), framed = emit_tiny("p/framed");
  lean.keeps_rax = rep.keeps_rax = true;
  lean.needs = FeatureSet(Feature::avx2);
  rep.needs = FeatureSet(Feature::erms);
  SourceKernel libc = emit_tiny("memcpy");
  libc.libc = true;
  const std::string s = gas_source({lean, rep, framed, libc}, SourceDispatch{parse_dispatch("16:memcpy,2K:p/lean,p/rep", "t"),
                                                                             Op::copy, "my_memcpy"},
                                   Syntax::intel, {});
  // The wrapper's hot path: no CPU check at all (the resolver made it when the symbol was bound),
  // rax = dst, then the code itself (64-byte aligned: the entry starts 7 bytes before the boundary,
  // int3 before it, no nops run): no jump, no call frame. rep's code follows the dispatch's entry,
  // so its own wrapper jumps to it.
  CHECK(s.find("\t.p2align 6\n\t.skip 57, 0xcc\n\t.globl kex_p_lean_nocheck\n\t.type kex_p_lean_nocheck, @function\nkex_p_lean_nocheck:\n"
               ".Lkex_p_lean_nocheck:\n\tendbr64\n\tmov rax, rdi\n\t.size kex_p_lean_nocheck, .-kex_p_lean_nocheck\n") !=
        std::string::npos);
  CHECK(s.find("kex_p_lean_kernel:\n", s.find("kex_p_lean_nocheck:\n")) != std::string::npos);
  CHECK(s.find(".Lkex_p_rep_nocheck:\n\tendbr64\n\tmov rax, rdi\n\tjmp kex_p_rep_kernel\n") != std::string::npos);
  CHECK(s.find("kex_p_framed:\n.Lkex_p_framed_nocheck:\n\tendbr64\n\tpush rdi\n\tcall kex_p_framed_kernel\n\tpop rax\n\tret\n") !=
        std::string::npos);
  CHECK(s.find("\t.type kex_p_lean, %gnu_indirect_function\nkex_p_lean:\n\tendbr64\n\tpush rbx\n") != std::string::npos);
  // Every row direct: one check of both rows' features (avx2 and erms) in the resolver, then straight into the code.
  // The last row's code follows the dispatch's entry, as the JIT dispatch kernel's last member does.
  const std::string entry = "my_memcpy_nocheck:\n.Lmy_memcpy_nocheck:\n\tendbr64\n\tmov rax, rdi\n\tcmp rdx, 16\n\tjbe memcpy@PLT\n\tcmp "
                            "rdx, 2048\n\tjbe kex_p_lean_kernel\n\t.size";
  REQUIRE(s.find(entry) != std::string::npos);
  CHECK(s.find("\tjmp kex_p_rep_kernel\n") != std::string::npos);  // rep's own wrapper
  const size_t rep_code = s.find("kex_p_rep_kernel:\n"), after_entry = s.find(entry);
  CHECK(rep_code > after_entry);
  CHECK(s.find("_kernel:\n", after_entry) == rep_code + std::string("kex_p_rep").size());  // nothing between but nops
  const size_t probe = s.find("\t.type my_memcpy, %gnu_indirect_function\n");
  REQUIRE(probe != std::string::npos);
  CHECK(s.find("\tbt ebx, 5\n", probe) != std::string::npos);  // avx2: CPUID 7 EBX bit 5
  CHECK(s.find("\tbt ebx, 9\n", probe) != std::string::npos);  // erms: CPUID 7 EBX bit 9
  CHECK(s.find("\tlea rax, [rip + .Lmy_memcpy_nocheck]\n\tpop rbx\n\tret\n.Lmy_memcpy_no:\n\tlea rax, [rip + "
               ".Lmy_memcpy_libc]\n", probe) != std::string::npos);
  CHECK(s.find(".Lmy_memcpy_libc:\n\tjmp memcpy@PLT\n\t.popsection\n", probe) != std::string::npos);
  CHECK(s.find("usable") == std::string::npos);
  // One row that needs the frame: the dispatch goes through the rows' entries without a check;
  // its own resolver checks the features of both (lean's avx2).
  const std::string w = gas_source({lean, framed}, SourceDispatch{parse_dispatch("2K:p/lean,p/framed", "t"), Op::copy,
                                                                   "my_memcpy"},
                                   Syntax::intel, {});
  CHECK(w.find("my_memcpy_nocheck:\n.Lmy_memcpy_nocheck:\n\tendbr64\n\tcmp rdx, 2048\n\tjbe kex_p_lean_nocheck\n\tjmp "
               "kex_p_framed_nocheck\n") != std::string::npos);
  CHECK(w.find("\t.type my_memcpy, %gnu_indirect_function\n") != std::string::npos);
}
