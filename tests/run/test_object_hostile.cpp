// The object-code loader on broken and hostile files: each is one InputError line naming
// the file and what is wrong, never a crash (truncated, wrong class, machine or type,
// a section past the end, a relocation outside its section, a symbol index out of
// range, a member name with control characters, and single-byte corruptions).
#include <doctest/doctest.h>
#include <elf.h>

#include <cstring>
#include <string>

#include "src/core/error.hpp"
#include "src/run/object_code.hpp"
#include "tests/support/object_files.hpp"

using namespace kex;

namespace {

const char* const kCaller = "\t.text\n\t.globl f\nf:\n\tcall g\n\tret\n\t.globl g\ng:\n\tmov $7, %eax\n\tret\n";

/// The error loading `bytes` (written to DIR/NAME) gives, or "(loaded)".
std::string error_of_bytes(const TmpDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir / name;
  spit(path, bytes);
  try {
    load_object_symbol(path, "f");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded)";
}

/// The section header called `name` in an object's bytes.
Elf64_Shdr* section_header(std::string& bytes, const char* name) {
  auto* eh = reinterpret_cast<Elf64_Ehdr*>(bytes.data());
  auto* sh = reinterpret_cast<Elf64_Shdr*>(bytes.data() + eh->e_shoff);
  const char* names = bytes.data() + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; ++i)
    if (std::strcmp(names + sh[i].sh_name, name) == 0) return &sh[i];
  return nullptr;
}

/// kCaller assembled, its bytes to corrupt, and the path corrupted copies are loaded from.
struct CallerObject {
  TmpDir dir;
  std::string good;
  std::string path = dir / "x.o";
  CallerObject() {
    const std::string obj = assemble_text(dir, "good.o", kCaller);
    REQUIRE(!obj.empty());
    good = slurp(obj);
  }
  std::string error_of(const std::string& bytes) const { return error_of_bytes(dir, "x.o", bytes); }
};

}  // namespace

TEST_CASE("object code: truncated, 32-bit, foreign and non-relocatable files are refused in one line" *
          doctest::test_suite("object")) {
  const CallerObject c;
  const std::string& good = c.good;
  const std::string& p = c.path;
  CHECK(c.error_of(good.substr(0, 10)) == p + ": not an ELF object (no \\x7fELF at its start)");
  CHECK(c.error_of(good.substr(0, 40)).find(p + ": ") == 0);
  CHECK(c.error_of(good.substr(0, good.size() / 2)).find(p + ": ") == 0);
  std::string b = good;
  b[EI_CLASS] = ELFCLASS32;
  CHECK(c.error_of(b) == p + ": not a 64-bit ELF object (ELFCLASS32 or unknown class): x86-64 code is needed");
  b = good;
  reinterpret_cast<Elf64_Ehdr*>(b.data())->e_machine = EM_AARCH64;
  CHECK(c.error_of(b) == p + ": ELF machine 183, not x86-64 (62)");
  b = good;
  reinterpret_cast<Elf64_Ehdr*>(b.data())->e_type = ET_DYN;
  CHECK(c.error_of(b).find(p + ": ELF type 3, not a relocatable object") == 0);
  CHECK(c.error_of("") == p + ": not an ELF object (no \\x7fELF at its start)");
}

TEST_CASE("object code: a huge section, a relocation outside its section and a symbol index out of range are refused" *
          doctest::test_suite("object")) {
  const CallerObject c;
  const std::string& good = c.good;
  const std::string& p = c.path;
  std::string b = good;
  section_header(b, ".text")->sh_size = uint64_t(1) << 40;
  CHECK(c.error_of(b) == p + ": section '.text' (1099511627776 bytes at offset 64) runs past the end of the file (" +
                             std::to_string(good.size()) + " bytes)");
  b = good;
  Elf64_Shdr* rela = section_header(b, ".rela.text");
  REQUIRE(rela);
  auto* r = reinterpret_cast<Elf64_Rela*>(b.data() + rela->sh_offset);
  r->r_offset = 0x1000;
  CHECK(c.error_of(b) == p + ": R_X86_64_PLT32 at offset 4096 lies outside section '.text' (12 bytes)");
  b = good;
  r = reinterpret_cast<Elf64_Rela*>(b.data() + section_header(b, ".rela.text")->sh_offset);
  r->r_info = ELF64_R_INFO(99, R_X86_64_PLT32);
  CHECK(c.error_of(b).find(p + ": R_X86_64_PLT32 at .text+1 names symbol 99, out of range (") == 0);
  b = good;
  r = reinterpret_cast<Elf64_Rela*>(b.data() + section_header(b, ".rela.text")->sh_offset);
  r->r_offset = 9;  // a 4-byte field from 9 of a 12-byte section
  CHECK(c.error_of(b) == p + ": R_X86_64_PLT32 against 'g' at .text+0x9: the field runs past the section's end");
  CHECK(error_of_bytes(c.dir, "good.o", good) == "(loaded)");
}

TEST_CASE("object code: a member name with control characters is refused, escaped" * doctest::test_suite("object")) {
  TmpDir dir;
  REQUIRE(!assemble_text(dir, "a.o", "\t.text\n\t.globl f\nf:\n\tcall g\n\tret\n").empty());
  REQUIRE(!assemble_text(dir, "bad\x1b[2J.o", "\t.text\n\t.globl g\ng:\n\tret\n").empty());
  REQUIRE(run_sh("cd '" + dir.path + "' && ar rcs lib.a a.o 'bad\x1b[2J.o'") == 0);
  const std::string lib = dir / "lib.a";
  std::string e;
  try {
    load_object_symbol(lib + "(a.o)", "f");
  } catch (const InputError& x) {
    e = x.what();
  }
  CHECK(e == lib + "(bad\\x1b[2J.o): a member name with control characters, '/' or invisible characters is not loaded");
}

TEST_CASE("object code: every single-byte corruption of an object's headers loads or is an InputError" *
          doctest::test_suite("object")) {
  const CallerObject c;
  const std::string& good = c.good;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(good.data());
  // The ELF header, and the section headers (offsets, sizes, links) with 0xff and 0x80 written over each byte.
  std::vector<size_t> positions;
  for (size_t i = 0; i < sizeof(Elf64_Ehdr); ++i) positions.push_back(i);
  for (size_t i = eh->e_shoff; i < good.size(); ++i) positions.push_back(i);
  size_t refused = 0;
  for (size_t at : positions)
    for (char v : {'\xff', '\x80'}) {
      std::string b = good;
      b[at] = v;
      const std::string e = c.error_of(b);
      refused += e != "(loaded)";
      CHECK(e.find('\n') == std::string::npos);
    }
  CHECK(refused > positions.size() / 4);
}

TEST_CASE("object code: an archive whose symbol index names run past its end is refused (a fuzz_object finding)" *
          doctest::test_suite("object")) {
  TmpDir dir;
  // 111 bytes: the index member "/" of 22 bytes holds 3 offsets and 6 bytes of names with
  // no terminating NUL, so libelf's last names point at or past the archive's end.
  const std::string bytes(
      "!<arch>\x0a/               0      (    0     0     0       22        `\x0a\x00\x00\x00\x03\x00\x00\x00Z\x00\x00"
      "\x00Z\x00\x00\x04\xd0\xdf\xdf     0           0     0 ",
      111);
  const std::string lib = dir / "index.a";
  spit(lib, bytes);
  std::string e;
  try {
    load_object_symbol(lib, "f");
  } catch (const InputError& x) {
    e = x.what();
  }
  CHECK(e == lib + ": the archive's symbol index runs past its end");
}
