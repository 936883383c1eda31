// kex show on code from outside kex: a glibc variant from its address to its first ret,
// and an assembly source through the object-code loader (asm:PATH:SYMBOL).
#include <doctest/doctest.h>

#include <string>

#include "src/run/glibc_impls.hpp"
#include "src/run/object_code.hpp"
#include "tests/support/object_files.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"

using namespace kex;

TEST_CASE("kex show glibc/NAME disassembles ifunc's pick for memcpy up to its ret" * doctest::test_suite("cli")) {
  const std::string pick = ifunc_pick(Function::memcpy);
  REQUIRE(pick != "unknown");
  const auto r = shell(kKex + " show glibc/" + pick);
  CHECK(r.status == 0);
  CHECK(r.text.find("# glibc/" + pick + " (glibc's memcpy, usable here)") == 0);
  CHECK(r.text.find("# disassembled to its first ret no earlier branch jumps past") != std::string::npos);
  CHECK(r.text.find("ret") != std::string::npos);
  const auto missing = shell(kKex + " show glibc/__memcpy_nonesuch");
  CHECK(missing.status == 2);
  CHECK(missing.text ==
        "kex: show: 'glibc/__memcpy_nonesuch': glibc lists no variant '__memcpy_nonesuch' (see kex list)\n");
}

TEST_CASE("kex show memcpy and memset: the code the baseline enters, ifunc's pick, the same bytes as glibc/PICK" *
          doctest::test_suite("cli")) {
  for (Function f : {Function::memcpy, Function::memset}) {
    const std::string base = std::string(to_string(f));
    const std::string pick = ifunc_pick(f);
    REQUIRE(pick != "unknown");
    const auto r = shell(kKex + " show " + base);
    const auto variant = shell(kKex + " show glibc/" + pick);
    REQUIRE(r.status == 0);
    CHECK(r.text.find("# " + base + ": libc's own " + base + " as ifunc resolved it here, glibc/" + pick + ";") == 0);
    // The rest is the variant's own listing, line for line.
    CHECK(r.text.substr(r.text.find('\n') + 1) == variant.text);
  }
}

TEST_CASE("kex show asm:PATH:SYMBOL lists the loaded pieces and references, and refuses what the loader refuses" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string src =
      write_text(dir, "k.s", "\t.text\n\t.globl f\nf:\n\tcall g\n\tret\n\t.globl g\ng:\n\tmov $7, %eax\n\tret\n");
  const auto r = shell(kKex + " show asm:" + src + ":f");
  CHECK(r.status == 0);
  CHECK(r.text.find("# piece k.s .text at 0, 12 bytes\n") != std::string::npos);
  CHECK(r.text.find("# resolved R_X86_64_PLT32 against g in k.s at 1: 1\n") != std::string::npos);
  CHECK(r.text.find("call") != std::string::npos);
  const auto bin = shell(kKex + " show asm:" + src + ":f --format bin");
  const ObjectCode code = load_object_symbol(src, "f");
  CHECK(bin.text == std::string(code.bytes.begin(), code.bytes.end()));
  const std::string abs = write_text(dir, "abs.s", "\t.text\n\t.globl f\nf:\n\tmovabs $f, %rax\n\tret\n");
  const auto refused = shell(kKex + " show asm:" + abs + ":f");
  CHECK(refused.status == 2);
  CHECK(refused.text.find("kex: " + abs + ": R_X86_64_64 against 'f' at .text+0x2: only PC-relative") == 0);
  CHECK(shell(kKex + " show asm:" + src).status == 2);
}

TEST_CASE("kex show lib/NAME and asm/NAME with the --load the run used, and one line without it" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const std::string so = build_so(dir, "mv", "void mv(char *d, const char *s, unsigned long n) {\n"
                                             "  for (unsigned long i = 0; i < n; ++i) d[i] = s[i];\n}\n");
  const std::string sha = shell("sha256sum " + so + " | cut -c1-64").text.substr(0, 64);
  const auto lib = shell(kKex + " show lib/mv --load mv=" + so + ":mv:move");
  INFO(lib.text);
  CHECK(lib.status == 0);
  CHECK(lib.text.find("# lib/mv (mv from " + so + ", memmove's signature, sha256 " + sha + ")\n") == 0);
  CHECK(lib.text.find("# disassembled to its first ret no earlier branch jumps past") != std::string::npos);
  CHECK(lib.text.find("ret") != std::string::npos);
  const auto none = shell(kKex + " show lib/mv");
  CHECK(none.status == 2);
  CHECK(none.text == "kex: show: 'lib/mv' names a shared object's symbol: give its --load mv=PATH:SYMBOL[:copy|move|"
                     "clear], as the run that raced it did\n");
  const auto other = shell(kKex + " show asm/mv --load mv=" + so + ":mv");
  CHECK(other.status == 2);
  CHECK(other.text.find("kex: show: 'asm/mv': --load mv loads lib/mv (the path's form says which") == 0);
  const std::string src =
      write_text(dir, "k.s", "\t.text\n\t.globl f\nf:\n\tcall g\n\tret\n\t.globl g\ng:\n\tmov $7, %eax\n\tret\n");
  const auto obj = shell(kKex + " show asm/k --load k=" + src + ":f");
  CHECK(obj.status == 0);
  CHECK(obj.text.find("# piece k.s .text at 0, 12 bytes\n") != std::string::npos);
  const auto bin = shell(kKex + " show asm/k --load k=" + src + ":f --format bin");
  const ObjectCode code = load_object_symbol(src, "f");
  CHECK(bin.text == std::string(code.bytes.begin(), code.bytes.end()));
  CHECK(shell(kKex + " show asm/k").status == 2);
}
