// keeps_rax (generators/disasm_regs.hpp): whether code entered by a tail jump returns with
// rax as it was, so kex emit's wrapper can set rax = dst before the jump; hand-assembled
// bytes, each with the instruction that decides.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "generators/disasm_regs.hpp"

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
