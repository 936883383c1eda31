// Outside code read from an ELF relocatable object, an assembly file or an archive
// member (issue 34): the named symbol's bytes and every piece they reach by
// PC-relative relocations, laid out as one position-independent blob that kex copies
// into its own code arena, where it runs exactly as a generated kernel does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

/// One piece laid into the blob: a section of one object, at an offset.
struct ObjectPiece {
  std::string object;   ///< "memcpy.lo" (an archive member) or the file's name
  std::string section;  ///< ".text", ".rodata", ...
  size_t offset = 0;    ///< where it starts in ObjectCode::bytes
  size_t size = 0;      ///< bytes
};

/// One PC-relative reference the loader resolved.
struct ObjectRelocation {
  std::string object;  ///< the piece's object ("memmove.lo")
  std::string type;    ///< "R_X86_64_PLT32"
  std::string symbol;  ///< the symbol it names ("__memcpy_fwd"; a section's name for a section symbol)
  size_t offset = 0;   ///< of the patched field in ObjectCode::bytes
  int64_t value = 0;   ///< what was written there (S + A - P)
};

/// The loaded code. `bytes` needs no further relocation: every PC-relative reference
/// between pieces has been resolved, and any other relocation was refused.
struct ObjectCode {
  std::vector<uint8_t> bytes;
  size_t entry = 0;                           ///< offset of the symbol in `bytes`
  std::string sha256;                         ///< of the file named (the archive for a member), hex
  std::vector<ObjectPiece> pieces;            ///< in blob order
  std::vector<ObjectRelocation> relocations;  ///< the references resolved, in the order applied
};

/// Loads `symbol` from `source`: "x.s" or "x.S" (assembled with GNU as; .S through the C
/// preprocessor first), "x.o", or "lib.a(member)" (undefined symbols are looked up in the
/// same archive's index and their members loaded too; "lib.a" alone: the member its index
/// names as defining `symbol`). Throws InputError, one line naming
/// the file, and for a refused relocation its type, symbol and offset.
ObjectCode load_object_symbol(const std::string& source, const std::string& symbol);

}  // namespace kex
