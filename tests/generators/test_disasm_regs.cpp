// keeps_rax (generators/disasm_regs.hpp): whether code entered by a tail jump returns with
// rax as it was, so kex emit's wrapper can set rax = dst before the jump; hand-assembled
// bytes, each with the instruction that decides.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "generators/disasm_regs.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/model/spec.hpp"

using namespace kex;

namespace {

bool keeps(const std::vector<uint8_t>& code) { return keeps_rax(code.data(), code.size()); }

}  // namespace

TEST_CASE("keeps_rax: code that leaves rax alone, and each way code can change it or leave" *
          doctest::test_suite("disasm")) {
  CHECK(keeps({0x48, 0x89, 0xd1, 0xf3, 0xa4, 0xc3}));              // mov rcx, rdx; rep movsb; ret
  CHECK(keeps({0x48, 0x85, 0xd2, 0x74, 0x01, 0xc3, 0xc3}));        // test rdx, rdx; je +1 (inside); ret; ret
  CHECK(keeps({0x41, 0xff, 0xe3, 0xcc, 0xcc}));                    // jmp r11 (a jump table); int3 padding
  CHECK(keeps({0xc4, 0xc1, 0xfb, 0x92, 0xcb, 0xc5, 0xf8, 0x77, 0xc3}));  // kmovq k1, r11 (Capstone 4: not decoded); vzeroupper; ret
  CHECK(keeps({0xc5, 0xf8, 0x92, 0xc8, 0xc3}));                    // kmovw k1, eax (reads eax)
  CHECK_FALSE(keeps({0xc5, 0xf8, 0x93, 0xc1, 0xc3}));              // kmovw eax, k1: writes eax
  CHECK_FALSE(keeps({0x31, 0xc0, 0xc3}));                          // xor eax, eax
  CHECK_FALSE(keeps({0x88, 0xc8, 0xc3}));                          // mov al, cl
  CHECK_FALSE(keeps({0x66, 0x48, 0x0f, 0x7e, 0xc0, 0xc3}));        // movq rax, xmm0
  CHECK_FALSE(keeps({0x0f, 0xa2, 0xc3}));                          // cpuid: eax implicitly
  CHECK_FALSE(keeps({0x58, 0xc3}));                                // pop rax
  CHECK_FALSE(keeps({0xe8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0xc3}));  // call (into its own code, still a call)
  CHECK_FALSE(keeps({0xeb, 0x10, 0xc3}));                          // jmp +16: outside the code
  CHECK_FALSE(keeps({0xff, 0x25, 0x00, 0x00, 0x00, 0x00}));        // jmp [rip]: anywhere
  CHECK_FALSE(keeps({0x0f, 0x05, 0xc3}));                          // syscall: its result in rax
  CHECK_FALSE(keeps({0x48, 0x89, 0xd1, 0x0f}));                    // a byte that does not decode
}

TEST_CASE("keeps_rax: a straight-line save of rax in r8-r11 around rep stosb, and each way a save can fail" *
          doctest::test_suite("disasm")) {
  // mov r8, rax; mov eax, esi; rep stosb; mov rax, r8; ret: a clear's rep path
  CHECK(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0, 0xf3, 0xaa, 0x4c, 0x89, 0xc0, 0xc3}));
  // mov r10, rax; movabs rax, imm; rep stosq; mov rax, r10; ret: the string class's clear
  CHECK(keeps({0x49, 0x89, 0xc2, 0x48, 0xb8, 1, 1, 1, 1, 1, 1, 1, 1, 0xf3, 0x48, 0xab, 0x4c, 0x89, 0xd0, 0xc3}));
  // jmp +0 (to the save's first instruction), then the save: entered from its start
  CHECK(keeps({0xeb, 0x00, 0x49, 0x89, 0xc0, 0x89, 0xf0, 0x4c, 0x89, 0xc0, 0xc3}));
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0, 0xc3}));  // ret before the restore
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0}));        // never restored
  // mov r8d, 1 inside the save: the saved value lost
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x41, 0xb8, 1, 0, 0, 0, 0x4c, 0x89, 0xc0, 0xc3}));
  // mov rax, r9 after mov r8, rax: restored from another register
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0, 0x4c, 0x89, 0xc8, 0xc3}));
  // jmp +5 lands on the restore, past the save's first instruction: rax from an unsaved r8
  CHECK_FALSE(keeps({0xeb, 0x05, 0x49, 0x89, 0xc0, 0x89, 0xf0, 0x4c, 0x89, 0xc0, 0xc3}));
  // a conditional jump inside the save: je +0
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0, 0x74, 0x00, 0x4c, 0x89, 0xc0, 0xc3}));
  // mov rbx, rax; mov eax, esi; mov rax, rbx: rbx is callee-saved, not a save register
  CHECK_FALSE(keeps({0x48, 0x89, 0xc3, 0x89, 0xf0, 0x48, 0x89, 0xd8, 0xc3}));
  // a save and a jump through a register (jmp r11), whose target is unknown
  CHECK_FALSE(keeps({0x49, 0x89, 0xc0, 0x89, 0xf0, 0x4c, 0x89, 0xc0, 0x41, 0xff, 0xe3, 0xc3}));
}

TEST_CASE("keeps_rax: every class's clears keep rax, on each edge, small strategy and rep path" *
          doctest::test_suite("disasm")) {
  // The fill pattern lives in rsi (generators/skeleton.cpp); only rep stosb needs al, saved in
  // r8 (the rep paths) or r10 (the string class) around it. kex emit enters them by a tail jump.
  const std::vector<std::string> shapes = {"", "/bwd", "/nt", "/overlap", "/overlap/small:overlap", "/overlap/small:table",
                                           "/overlap/small:mask", "/overlap/small:rep", "/overlap/rep:4096",
                                           "/overlap/small:mask/rep:2048", "/bytes/rep:512", "/aligned/bwd"};
  size_t checked = 0;
  for (const RegClassInfo& c : reg_classes())
    for (const std::string& shape : shapes) {
      KernelSpec s;
      try {
        s = parse_spec_name("clear/" + std::string(c.name) + shape + "/fill:0x5a");
      } catch (const std::invalid_argument&) {
        continue;
      }
      if (!validate(s).empty()) continue;
      CodeArena a;
      const size_t i = a.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); });
      a.finalize();
      const CodeRef r = a.ref(i);
      CHECK_MESSAGE(keeps_rax(r.code, r.size), spec_name(s));
      ++checked;
    }
  CHECK(checked >= 40);
  for (const char* name : {"copy/gpr/unroll:64/scratch:2", "read/sse"}) {  // rax their data or result
    CodeArena a;
    const size_t i = a.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, parse_spec_name(name)); });
    a.finalize();
    CHECK_FALSE_MESSAGE(keeps_rax(a.ref(i).code, a.ref(i).size), name);
  }
}
