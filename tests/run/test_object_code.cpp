// The object-code loader on assembly sources, objects and archives written in the test:
// pieces laid out, PC-relative references resolved (the code runs), and every other
// relocation, an undefined symbol or a writable section refused in one line naming it.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "src/core/error.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/object_code.hpp"
#include "tests/support/object_files.hpp"

using namespace kex;

namespace {

// get() calls inner() (R_X86_64_PLT32) which reads a quadword of .rodata (R_X86_64_PC32
// against the section, addend 4) and adds one.
const char* const kTwoPiecesAsm = R"(	.text
	.globl get
	.type get,@function
get:
	call inner
	add $1, %rax
	ret
	.globl inner
	.type inner,@function
inner:
	mov value(%rip), %rax
	ret
	.section .rodata
	.p2align 3
	.quad 7
value:
	.quad 0x1122334455667788
)";

std::string load_error(const std::string& source, const std::string& symbol) {
  try {
    load_object_symbol(source, symbol);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("object code: a .s with a call and a .rodata load is laid out in two pieces, resolved, and runs" *
          doctest::test_suite("object")) {
  TmpDir dir;
  const std::string src = write_text(dir, "two.s", kTwoPiecesAsm);
  const ObjectCode code = load_object_symbol(src, "get");
  REQUIRE(code.pieces.size() == 2);
  CHECK(code.pieces[0].object == "two.s");
  CHECK(code.pieces[0].section == ".text");
  CHECK(code.pieces[0].offset == 0);
  CHECK(code.pieces[0].size == 18);  // get: 5 + 4 + 1, inner: 7 + 1
  CHECK(code.pieces[1].section == ".rodata");
  CHECK(code.pieces[1].offset == 24);  // aligned to 8
  CHECK(code.pieces[1].size == 16);
  CHECK(code.bytes.size() == 40);
  CHECK(code.bytes[18] == 0xcc);  // int3 between pieces
  CHECK(code.entry == 0);
  REQUIRE(code.relocations.size() == 2);
  CHECK(code.relocations[0].type == "R_X86_64_PLT32");
  CHECK(code.relocations[0].symbol == "inner");
  CHECK(code.relocations[0].offset == 1);
  CHECK(code.relocations[0].value == 5);  // inner at 10, addend -4, field at 1
  CHECK(code.relocations[1].type == "R_X86_64_PC32");
  CHECK(code.relocations[1].symbol == ".rodata");
  CHECK(code.relocations[1].value == 24 + 4 - 13);
  CHECK(code.sha256 == file_sha256(src, kMaxLoadedFile, "source"));
  ExecutableCode x(code.bytes);
  CHECK(x.at<uint64_t (*)()>(code.entry)() == 0x1122334455667789ull);
  // inner as the entry: its own section again, at its offset.
  const ObjectCode inner = load_object_symbol(src, "inner");
  CHECK(inner.entry == 10);
  ExecutableCode y(inner.bytes);
  CHECK(y.at<uint64_t (*)()>(inner.entry)() == 0x1122334455667788ull);
}

TEST_CASE("object code: a .S goes through the preprocessor, a .o is read as it is" * doctest::test_suite("object")) {
  TmpDir dir;
  const std::string src =
      write_text(dir, "pp.S", "#define ANSWER 42\n\t.text\n\t.globl answer\nanswer:\n\tmov $ANSWER, %eax\n\tret\n");
  const ObjectCode code = load_object_symbol(src, "answer");
  ExecutableCode x(code.bytes);
  CHECK(x.at<int (*)()>(code.entry)() == 42);
  const std::string obj = assemble_text(dir, "two.o", kTwoPiecesAsm);
  REQUIRE(!obj.empty());
  const ObjectCode from_o = load_object_symbol(obj, "get");
  CHECK(from_o.bytes == load_object_symbol(write_text(dir, "again.s", kTwoPiecesAsm), "get").bytes);
  CHECK(from_o.pieces[0].object == "two.o");
  CHECK(from_o.sha256 == file_sha256(obj, kMaxLoadedFile, "object"));
}

TEST_CASE(
    "object code: absolute, GOT, undefined, ifunc and writable references are refused naming type, symbol "
    "and offset" *
    doctest::test_suite("object")) {
  TmpDir dir;
  const std::string pc_only =
      ": only PC-relative references between the loaded pieces are resolved (R_X86_64_PC32, R_X86_64_PLT32, "
      "R_X86_64_PC64)";
  struct Refused {
    const char* file;
    const char* body;  // after "\t.text\n\t.globl f\nf:\n"
    std::string error;
  };
  const Refused cases[] = {
      {"abs.s", "\tmovabs $target, %rax\n\tret\n\t.globl target\ntarget:\n\tret\n",
       ": R_X86_64_64 against 'target' at .text+0x2" + pc_only},
      {"got.s", "\tmov thing@GOTPCREL(%rip), %rax\n\tret\n",
       ": R_X86_64_REX_GOTPCRELX against 'thing' at .text+0x3" + pc_only},
      {"undef.s", "\tjmp elsewhere\n",
       ": R_X86_64_PLT32 against 'elsewhere' at .text+0x1: nothing loaded defines it (a lone object: load it from an "
       "archive, or define it in the same file)"},
      {"ifunc.s", "\tjmp g\n\t.globl g\n\t.type g, @gnu_indirect_function\ng:\n\tret\n",
       ": R_X86_64_PLT32 against 'g' at .text+0x1: an ifunc: its symbol is the resolver, not the code"},
      {"data.s", "\tmov counter(%rip), %eax\n\tret\n\t.data\ncounter:\n\t.long 1\n",
       ": R_X86_64_PC32 against '.data' reaches section '.data', which is writable: kex's code arena is read and "
       "execute only"},
  };
  for (const Refused& r : cases) {
    const std::string path = write_text(dir, r.file, std::string("\t.text\n\t.globl f\nf:\n") + r.body);
    CHECK(load_error(path, "f") == path + r.error);
  }
}

TEST_CASE("object code: a missing symbol, a data symbol and a failing assembler are one line each" *
          doctest::test_suite("object")) {
  TmpDir dir;
  const std::string src = write_text(dir, "two.s", kTwoPiecesAsm);
  CHECK(load_error(src, "nope") ==
        src + ": no code symbol 'nope' (a function or label defined in a section); functions here: get, inner");
  CHECK(load_error(src, "value") ==
        src + ": symbol 'value' is in section '.rodata', which is not code (no SHF_EXECINSTR)");
  const std::string bad = write_text(dir, "bad.s", "\t.text\nf:\n\tfrobnicate %rax\n\x1b[2J\n");
  const std::string e = load_error(bad, "f");
  CHECK(e.find(bad + ": as --64 failed (exit status 1): ") == 0);
  CHECK(e.find("no such instruction: `frobnicate %rax'") != std::string::npos);
  CHECK(e.find('\n') == std::string::npos);
  CHECK(e.find('\x1b') == std::string::npos);  // the tool's echo of the line is escaped
  CHECK(load_error(dir / "absent.s", "f").find(dir / "absent.s: cannot read") == 0);
  CHECK(load_error(src + "(m.o)", "get") == src + "(m.o): an assembly source has no members");
  // A label at the end of an empty section: nothing to call (a fuzz_object finding: an empty blob).
  const std::string empty = write_text(dir, "empty.s", "\t.text\n\t.globl f\nf:\n");
  CHECK(load_error(empty, "f") == empty + ": symbol 'f' has no code after it in section '.text'");
}

TEST_CASE("object code: an archive member's undefined symbol loads the member its index names" *
          doctest::test_suite("object")) {
  TmpDir dir;
  const std::string a =
      assemble_text(dir, "a.o", "\t.text\n\t.globl outer\nouter:\n\tcall helper\n\tadd $1, %eax\n\tret\n");
  const std::string b = assemble_text(dir, "b.o", "\t.text\n\t.globl helper\nhelper:\n\tmov $41, %eax\n\tret\n");
  REQUIRE((!a.empty() && !b.empty()));
  const std::string lib = dir / "lib.a";
  REQUIRE(run_sh("cd '" + dir.path + "' && ar rcs lib.a a.o b.o") == 0);
  const ObjectCode code = load_object_symbol(lib + "(a.o)", "outer");
  REQUIRE(code.pieces.size() == 2);
  CHECK(code.pieces[0].object == "a.o");
  CHECK(code.pieces[1].object == "b.o");
  CHECK(code.relocations.size() == 1);
  CHECK(code.sha256 == file_sha256(lib, kMaxLoadedFile, "archive"));
  ExecutableCode x(code.bytes);
  CHECK(x.at<int (*)()>(code.entry)() == 42);
  // No member named: the index finds the one defining the symbol.
  CHECK(load_object_symbol(lib, "outer").bytes == code.bytes);
  // A member that is not there: the nearest names, as the archive's file and the member, then how to list them all.
  CHECK(load_error(lib + "(c.o)", "outer") ==
        lib + ": no member 'c.o' (2 members; the nearest: lib.a(a.o), lib.a(b.o); `ar t` lists them)");
  CHECK(load_error(lib + "(a.lo)", "outer") == lib + ": no member 'a.lo' (2 members; the nearest: lib.a(a.o); `ar t` lists them)");
  CHECK(load_error(lib + "(helper.o)", "outer") == lib + ": no member 'helper.o' (2 members; `ar t` lists them)");
  CHECK(load_error(lib, "absent") ==
        lib + ": the archive's index names no member defining 'absent' (name one: " + lib + "(MEMBER))");
  CHECK(load_error(a + "(x.o)", "outer") == a + ": not an ar archive (no !<arch> at its start)");
}
