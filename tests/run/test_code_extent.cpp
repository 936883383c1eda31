// The extent of a function without a size (kex show glibc/NAME): the first ret no
// earlier branch jumps past, on assembled bytes and on this process's memcpy.
#include <doctest/doctest.h>

#include <cstring>

#include "src/run/code_extent.hpp"
#include "src/run/object_code.hpp"
#include "tests/support/object_files.hpp"

using namespace kex;

TEST_CASE("code extent: a forward branch past the first ret carries the end to the second" *
          doctest::test_suite("object")) {
  TmpDir dir;
  // 0: test; 3: jz +1 (to 6); 5: ret; 6: mov; 11: ret; 12: nop (after the end)
  const std::string src = write_text(
      dir, "f.s", "\t.text\n\t.globl f\nf:\n\ttest %rdi, %rdi\n\tjz 1f\n\tret\n1:\n\tmov $1, %eax\n\tret\n\tnop\n");
  const ObjectCode code = load_object_symbol(src, "f");
  REQUIRE(code.bytes.size() == 13);
  const auto insns = disassemble(code.bytes.data(), code.bytes.size());
  CHECK(end_at_first_ret(insns, code.bytes.size()) == 12);
  CHECK(end_at_first_ret(insns, 6) == 6);  // a target at or past the limit does not count
  CHECK(end_at_first_ret({}, 100) == 0);
}

TEST_CASE("code extent: libc's memcpy lies in an executable segment and ends at a ret" *
          doctest::test_suite("object")) {
  void* (*volatile fn)(void*, const void*, size_t) = &std::memcpy;
  CHECK(executable_bytes_from(reinterpret_cast<const void*>(fn)) > 0);
  int on_the_stack = 0;
  CHECK(executable_bytes_from(&on_the_stack) == 0);
  const FunctionCode f = function_code(reinterpret_cast<const void*>(fn), 16384);
  REQUIRE(!f.bytes.empty());
  CHECK(f.bytes.back() == 0xc3);
  CHECK(f.how == "to its first ret no earlier branch jumps past: " + std::to_string(f.bytes.size()) + " bytes");
}
