// `kex emit` of object code kex loaded itself (asm/NAME with its --load): the bytes as
// kex placed them, as `.byte` lines (GNU as) or a byte array in an executable section (C),
// with the path, symbol and sha256; goldens for the text, and both linked into a program
// that checks the copy against memcpy. lib/ stays refused with the reason.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/golden.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// Two pieces: f sets rcx and calls g (a PC-relative reference the loader resolves).
const char* kTwoPieces = "\t.text\n\t.globl f\nf:\n\tmov %rdx, %rcx\n\tcall g\n\tret\ng:\n\trep movsb\n\tret\n";

/// A program that copies sizes 0..300 at two offsets through `fn` and checks them against memcpy.
const char* kCheck = "#include <stdio.h>\n#include <string.h>\n"
                     "void *kex_asm_k(void *, const void *, size_t);\n"
                     "int main(void) {\n  static unsigned char s[400], d[400], w[400];\n"
                     "  for (int i = 0; i < 400; ++i) s[i] = (unsigned char)(i * 7 + 1);\n"
                     "  for (size_t n = 0; n <= 300; ++n) for (int o = 0; o < 2; ++o) {\n"
                     "    memset(d, 0x5a, 400); memset(w, 0x5a, 400); memcpy(w + o, s + 3, n);\n"
                     "    if (kex_asm_k(d + o, s + 3, n) != d + o || memcmp(d, w, 400)) { printf(\"bad %zu\\n\", n); return 1; }\n"
                     "  }\n  puts(\"ok\");\n  return 0;\n}\n";

}  // namespace

TEST_CASE("kex emit asm/NAME --load: the loaded bytes with their provenance, as gas and C, run as memcpy" *
          doctest::test_suite("emit")) {
  TmpDir dir;
  spit(dir / "k.s", kTwoPieces);
  spit(dir / "check.c", kCheck);
  const std::string in_dir = "cd " + dir.path + " && " + kKex + " emit asm/k --load k=k.s:f";
  const ShellOut gas = shell_stdout(in_dir + " --format gas");
  const ShellOut c = shell_stdout(in_dir + " --format c");
  REQUIRE(gas.status == 0);
  REQUIRE(c.status == 0);
  CHECK(golden::check("emit-loaded.s", golden::from(gas.text, "# kernel asm/k")) == "");
  CHECK(golden::check("emit-loaded.c", golden::from(c.text, "/*\n * kernel asm/k")) == "");
  CHECK(gas.text.find("# sha256 of k.s: " + shell("sha256sum " + (dir / "k.s") + " | cut -c1-64").text.substr(0, 64)) !=
        std::string::npos);
  spit(dir / "k_gas.s", gas.text);
  spit(dir / "k_c.c", c.text);
  for (const std::string& source : {"k_gas.s", "k_c.c"}) {
    const ShellOut cc = shell("cd " + dir.path + " && cc -O1 -o check check.c " + source + " && ./check");
    CHECK_MESSAGE(cc.text == "ok\n", source, ": ", cc.text);
  }
  // Without its --load a name is data; a shared object's symbol has no bytes to emit.
  const ShellOut bare = shell(kKex + " emit asm/k --format gas");
  CHECK(bare.status == 2);
  CHECK(bare.text.find("'asm/k' names code loaded from an assembly or object file: give its --load k=PATH") !=
        std::string::npos);
  const ShellOut lib = shell(kKex + " emit lib/k --load k=" + (dir / "x.so") + ":f --format gas");
  CHECK(lib.status == 2);
  CHECK(lib.text.find("there are no bytes of it to emit") != std::string::npos);
}
