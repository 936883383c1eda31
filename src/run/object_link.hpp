// Laying out loaded object code (issue 34): the symbol's section, every section its
// relocations reach, and the archive members that define its undefined symbols, as one
// blob with every PC-relative reference between the pieces resolved.
#pragma once
#include <string>

#include "src/run/object_code.hpp"
#include "src/run/object_elf.hpp"

namespace kex {

/// The largest blob laid out: CodeArena's largest kernel (generators/jit.cpp).
inline constexpr size_t kMaxObjectCodeBytes = size_t(1) << 18;

/// Lays out `symbol` (defined in `first`: a function or an untyped label, global
/// preferred over local, in an executable section) and what it reaches. Undefined
/// symbols are looked for in the objects loaded so far, then through `archive`'s index
/// (null: a lone object). R_X86_64_PC32, R_X86_64_PLT32 (as a direct call or jump) and
/// R_X86_64_PC64 are resolved; any other relocation, a symbol nothing defines, an
/// absolute or common symbol, a reached section that is writable, not loadable or
/// aligned beyond 64 bytes, a field past its section's end, a displacement that does not
/// fit in 32 bits, or a blob past kMaxObjectCodeBytes is refused: InputError "WHERE:
/// TYPE against 'SYMBOL' at SECTION+0xOFFSET: REASON". `sha256` is left empty.
ObjectCode link_object_symbol(ElfObject first, const std::string& symbol, const ObjectArchive* archive);

}  // namespace kex
