// The object-code loader's view of one ELF relocatable object and of an archive of them
// (issue 34): read with libelf (elfutils) from bytes in memory, every size, offset and
// index checked on the way in, so that a truncated or hostile file is one InputError
// line naming it, never a crash. src/run/object_link.cpp lays the pieces out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// One section header and, for a loadable section (SHF_ALLOC with bytes in the file),
/// its bytes.
struct ElfSection {
  std::string name;            ///< as the file spells it (escape it before printing)
  uint32_t type = 0;           ///< SHT_*
  uint64_t flags = 0;          ///< SHF_*
  uint64_t size = 0;           ///< bytes (the section's sh_size)
  uint64_t align = 0;          ///< sh_addralign (0 and 1: none)
  std::vector<uint8_t> bytes;  ///< sh_size bytes for SHF_ALLOC SHT_PROGBITS, else empty
};

/// One symbol table entry.
struct ElfSymbol {
  std::string name;
  uint32_t section = 0;  ///< st_shndx: 0 undefined, SHN_ABS, SHN_COMMON, or a section index
  uint64_t value = 0;    ///< offset in its section
  unsigned type = 0;     ///< STT_*
  unsigned bind = 0;     ///< STB_*
};

/// One RELA entry; `symbol` is a valid index into ElfObject::symbols and `offset` lies
/// inside the section the entry applies to (its width is the linker's to check).
struct ElfRelocation {
  uint64_t offset = 0;
  uint32_t type = 0;  ///< R_X86_64_*
  uint32_t symbol = 0;
  int64_t addend = 0;
};

/// A relocatable x86-64 object (ELFCLASS64, little-endian, ET_REL, EM_X86_64).
struct ElfObject {
  std::string where;                 ///< "x.o" or "lib.a(memcpy.lo)": errors start with it (terminal-safe)
  std::string name;                  ///< the member's name, or the file's path (ObjectPiece::object)
  std::vector<ElfSection> sections;  ///< by section index (0: the null section)
  std::vector<ElfSymbol> symbols;    ///< by symbol index (0: the null symbol)
  std::vector<std::vector<ElfRelocation>> relocations;  ///< by the section index they apply to
};

/// Reads the object in `bytes`; `where` starts every error ("PATH" or "PATH(member)",
/// already terminal-safe) and `name` goes to ElfObject::name. Throws InputError "WHERE:
/// REASON" for anything else than the object described above, a section or table that
/// runs past the end of the file, a symbol or section index out of range, a relocation
/// outside its section, REL (not RELA) relocations or compressed loadable sections.
ElfObject read_elf_object(const std::string& where, const std::string& name, std::string_view bytes);

/// An `ar` archive of objects (a static library such as musl's libc.a), read with
/// libelf: members by name and its symbol index (elf_getarsym).
class ObjectArchive {
 public:
  /// Takes the archive's bytes; `path` names it in errors. Throws InputError "PATH: not
  /// an ar archive" (or libelf's reason) when it is not one.
  ObjectArchive(const std::string& path, std::string bytes);
  ~ObjectArchive();
  ObjectArchive(const ObjectArchive&) = delete;
  ObjectArchive& operator=(const ObjectArchive&) = delete;

  /// The member called `member`, read as an object. Throws InputError "PATH: no member
  /// 'member' (N members)" when there is none, and read_elf_object's errors.
  ElfObject member(const std::string& member) const;
  /// The name of the member the archive's symbol index says defines `symbol`, if any.
  std::optional<std::string> definer(const std::string& symbol) const;
  const std::string& path() const { return path_; }

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

/// The ELF name of x86-64 relocation type `type` ("R_X86_64_PC32"), or "relocation
/// type N" for one this table does not know.
std::string x86_64_relocation_name(uint32_t type);

/// A symbol, section or member name from a file as it may appear in an error line:
/// control and invisible characters escaped (terminal_text), at most 200 bytes.
std::string object_text(std::string_view name);

}  // namespace kex
