// One ELF relocatable object read through libelf, every size, offset and index checked
// against the file before it is used (src/run/object_elf.hpp).
#include "src/run/object_elf.hpp"

#include <gelf.h>
#include <libelf.h>

#include <cstring>
#include <memory>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

namespace {

/// libelf's handle, ended when it goes out of scope.
struct ElfHandle {
  Elf* elf = nullptr;
  explicit ElfHandle(Elf* e) : elf(e) {}
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
};

[[noreturn]] void refuse(const std::string& where, const std::string& why) { throw InputError(where + ": " + why); }

std::string libelf_reason() {
  const char* m = elf_errmsg(-1);
  return m ? m : "unknown libelf error";
}

/// The identification and header checks: a 64-bit little-endian x86-64 ET_REL object.
void check_header(const std::string& where, Elf* elf, std::string_view bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    refuse(where, "not an ELF object (no \\x7fELF at its start)");
  if (elf_kind(elf) != ELF_K_ELF) refuse(where, "not an ELF object (" + libelf_reason() + ")");
  if (bytes[EI_CLASS] != ELFCLASS64)
    refuse(where, "not a 64-bit ELF object (ELFCLASS32 or unknown class): x86-64 code is needed");
  if (bytes[EI_DATA] != ELFDATA2LSB) refuse(where, "not a little-endian ELF object: x86-64 code is needed");
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf, &eh)) refuse(where, "unreadable ELF header (" + libelf_reason() + ")");
  if (eh.e_machine != EM_X86_64)
    refuse(where, "ELF machine " + std::to_string(eh.e_machine) + ", not x86-64 (" + std::to_string(EM_X86_64) + ")");
  if (eh.e_type != ET_REL)
    refuse(where, "ELF type " + std::to_string(eh.e_type) +
                      ", not a relocatable object (ET_REL: a .o as as or gcc -c write it; executables and shared "
                      "objects are not read)");
}

/// A section's data as libelf gives it, checked to be exactly its header's size and
/// inside the file.
Elf_Data* section_data(const std::string& where, Elf_Scn* scn, const GElf_Shdr& sh, const std::string& name,
                       size_t file_size) {
  if (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)
    refuse(where, "section '" + object_text(name) + "' (" + std::to_string(sh.sh_size) + " bytes at offset " +
                      std::to_string(sh.sh_offset) + ") runs past the end of the file (" + std::to_string(file_size) +
                      " bytes)");
  Elf_Data* d = elf_getdata(scn, nullptr);
  if (!d && sh.sh_size > 0) refuse(where, "section '" + object_text(name) + "' unreadable (" + libelf_reason() + ")");
  if (d && d->d_size != sh.sh_size)
    refuse(where, "section '" + object_text(name) + "' reads as " + std::to_string(d->d_size) + " bytes, not " +
                      std::to_string(sh.sh_size));
  return d;
}

/// Section headers and the bytes of loadable ones. Returns the symbol table's index (0: none).
size_t read_sections(const std::string& where, Elf* elf, size_t file_size, ElfObject& o) {
  size_t count = 0, names = 0;
  if (elf_getshdrnum(elf, &count) != 0 || elf_getshdrstrndx(elf, &names) != 0)
    refuse(where, "unreadable section headers (" + libelf_reason() + ")");
  if (count > file_size / sizeof(Elf64_Shdr))
    refuse(where, std::to_string(count) + " section headers do not fit in the file");
  o.sections.resize(count);
  size_t symtab = 0;
  for (size_t i = 1; i < count; ++i) {
    Elf_Scn* scn = elf_getscn(elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh))
      refuse(where, "section " + std::to_string(i) + " unreadable (" + libelf_reason() + ")");
    const char* n = elf_strptr(elf, names, sh.sh_name);
    if (!n) refuse(where, "section " + std::to_string(i) + " has no readable name (" + libelf_reason() + ")");
    ElfSection& s = o.sections[i];
    s = {n, sh.sh_type, sh.sh_flags, sh.sh_size, sh.sh_addralign, {}};
    if (sh.sh_type == SHT_REL)
      refuse(where, "section '" + object_text(n) + "' holds REL relocations: x86-64 objects use RELA");
    if (sh.sh_type == SHT_SYMTAB) {
      if (symtab) refuse(where, "more than one symbol table");
      symtab = i;
    }
    if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC)) continue;
    if (sh.sh_flags & SHF_COMPRESSED) refuse(where, "section '" + object_text(n) + "' is compressed");
    const Elf_Data* d = section_data(where, scn, sh, n, file_size);
    if (d && d->d_buf)
      s.bytes.assign(static_cast<const uint8_t*>(d->d_buf), static_cast<const uint8_t*>(d->d_buf) + d->d_size);
  }
  return symtab;
}

void read_symbols(const std::string& where, Elf* elf, size_t symtab, size_t file_size, ElfObject& o) {
  if (!symtab) return;
  Elf_Scn* scn = elf_getscn(elf, symtab);
  GElf_Shdr sh;
  if (!gelf_getshdr(scn, &sh)) refuse(where, "symbol table unreadable (" + libelf_reason() + ")");
  if (sh.sh_link >= o.sections.size())
    refuse(where, "symbol table names string section " + std::to_string(sh.sh_link) + ", out of range");
  const Elf_Data* d = section_data(where, scn, sh, ".symtab", file_size);
  const size_t n = d ? d->d_size / sizeof(Elf64_Sym) : 0;
  o.symbols.resize(n);
  for (size_t i = 0; i < n; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(const_cast<Elf_Data*>(d), int(i), &sym))
      refuse(where, "symbol " + std::to_string(i) + " unreadable");
    const char* name = sym.st_name ? elf_strptr(elf, sh.sh_link, sym.st_name) : "";
    if (!name) refuse(where, "symbol " + std::to_string(i) + " has no readable name (" + libelf_reason() + ")");
    if (sym.st_shndx == SHN_XINDEX)
      refuse(where, "symbol '" + object_text(name) + "' uses an extended section index (not read)");
    if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE && sym.st_shndx >= o.sections.size())
      refuse(where, "symbol '" + object_text(name) + "' names section " + std::to_string(sym.st_shndx) +
                        ", out of range (" + std::to_string(o.sections.size()) + " sections)");
    o.symbols[i] = {name, sym.st_shndx, sym.st_value, unsigned(GELF_ST_TYPE(sym.st_info)),
                    unsigned(GELF_ST_BIND(sym.st_info))};
  }
}

/// Every RELA section: its target section and symbol table checked, each entry's symbol
/// index in range and its offset inside the target.
void read_relocations(const std::string& where, Elf* elf, size_t symtab, size_t file_size, ElfObject& o) {
  o.relocations.resize(o.sections.size());
  for (size_t i = 1; i < o.sections.size(); ++i) {
    if (o.sections[i].type != SHT_RELA) continue;
    Elf_Scn* scn = elf_getscn(elf, i);
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) refuse(where, "relocation section " + std::to_string(i) + " unreadable");
    const std::string rname = object_text(o.sections[i].name);
    if (sh.sh_info == 0 || sh.sh_info >= o.sections.size())
      refuse(where,
             "relocation section '" + rname + "' applies to section " + std::to_string(sh.sh_info) + ", out of range");
    if (sh.sh_link != symtab) refuse(where, "relocation section '" + rname + "' does not use the symbol table");
    const ElfSection& target = o.sections[sh.sh_info];
    const Elf_Data* d = section_data(where, scn, sh, o.sections[i].name, file_size);
    const size_t n = d ? d->d_size / sizeof(Elf64_Rela) : 0;
    for (size_t k = 0; k < n; ++k) {
      GElf_Rela r;
      if (!gelf_getrela(const_cast<Elf_Data*>(d), int(k), &r))
        refuse(where, "relocation " + std::to_string(k) + " of '" + rname + "' unreadable");
      const uint32_t sym = uint32_t(GELF_R_SYM(r.r_info)), type = uint32_t(GELF_R_TYPE(r.r_info));
      if (sym >= o.symbols.size())
        refuse(where, x86_64_relocation_name(type) + " at " + object_text(target.name) + "+" +
                          std::to_string(r.r_offset) + " names symbol " + std::to_string(sym) + ", out of range (" +
                          std::to_string(o.symbols.size()) + " symbols)");
      if (r.r_offset >= target.size)
        refuse(where, x86_64_relocation_name(type) + " at offset " + std::to_string(r.r_offset) +
                          " lies outside section '" + object_text(target.name) + "' (" + std::to_string(target.size) +
                          " bytes)");
      o.relocations[sh.sh_info].push_back({r.r_offset, type, sym, r.r_addend});
    }
  }
}

}  // namespace

std::string object_text(std::string_view name) {
  std::string t = terminal_text(name.substr(0, 200));
  return name.size() > 200 ? t + "..." : t;
}

ElfObject read_elf_object(const std::string& where, const std::string& name, std::string_view bytes) {
  if (elf_version(EV_CURRENT) == EV_NONE) refuse(where, "libelf is unusable (" + libelf_reason() + ")");
  // elf_memory may convert in place: it reads a private copy.
  std::string copy(bytes);
  ElfHandle h(elf_memory(copy.data(), copy.size()));
  if (!h.elf) refuse(where, "not an ELF object (" + libelf_reason() + ")");
  check_header(where, h.elf, copy);
  ElfObject o;
  o.where = where;
  o.name = name;
  const size_t symtab = read_sections(where, h.elf, copy.size(), o);
  read_symbols(where, h.elf, symtab, copy.size(), o);
  read_relocations(where, h.elf, symtab, copy.size(), o);
  return o;
}

std::string x86_64_relocation_name(uint32_t type) {
  static const char* const names[] = {"NONE",         "64",        "PC32",         "GOT32",      "PLT32",
                                      "COPY",         "GLOB_DAT",  "JUMP_SLOT",    "RELATIVE",   "GOTPCREL",
                                      "32",           "32S",       "16",           "PC16",       "8",
                                      "PC8",          "DTPMOD64",  "DTPOFF64",     "TPOFF64",    "TLSGD",
                                      "TLSLD",        "DTPOFF32",  "GOTTPOFF",     "TPOFF32",    "PC64",
                                      "GOTOFF64",     "GOTPC32",   "GOT64",        "GOTPCREL64", "GOTPC64",
                                      "GOTPLT64",     "PLTOFF64",  "SIZE32",       "SIZE64",     "GOTPC32_TLSDESC",
                                      "TLSDESC_CALL", "TLSDESC",   "IRELATIVE",    "RELATIVE64", nullptr,
                                      nullptr,        "GOTPCRELX", "REX_GOTPCRELX"};
  if (type < std::size(names) && names[type]) return std::string("R_X86_64_") + names[type];
  return "relocation type " + std::to_string(type);
}

}  // namespace kex
