// Lays out a symbol's section and everything its relocations reach into one blob and
// resolves the PC-relative references between the pieces (src/run/object_link.hpp).
#include "src/run/object_link.hpp"

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <map>

#include "src/core/error.hpp"

namespace kex {

namespace {

constexpr uint64_t kMaxPieceAlign = 64;  // CodeArena places each kernel at a 64-byte boundary
constexpr uint8_t kPadByte = 0xcc;       // int3 between pieces

std::string hex_offset(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool is_code_symbol(const ElfSymbol& s) {
  return (s.type == STT_FUNC || s.type == STT_NOTYPE) && s.section != SHN_UNDEF && s.section < SHN_LORESERVE;
}

/// A global (or weak) definition of `name` in `o` in one of its sections, or null.
const ElfSymbol* global_definition(const ElfObject& o, const std::string& name) {
  for (const auto& s : o.symbols)
    if (s.name == name && (s.bind == STB_GLOBAL || s.bind == STB_WEAK) && s.section != SHN_UNDEF &&
        s.section < SHN_LORESERVE && s.type != STT_TLS)
      return &s;
  return nullptr;
}

/// The entry symbol: a global or weak definition first, else a local one.
const ElfSymbol* entry_symbol(const ElfObject& o, const std::string& name) {
  const ElfSymbol* local = nullptr;
  for (const auto& s : o.symbols) {
    if (s.name != name || !is_code_symbol(s)) continue;
    if (s.bind != STB_LOCAL) return &s;
    if (!local) local = &s;
  }
  if (local) return local;
  std::string defined;
  int shown = 0;
  for (const auto& s : o.symbols)
    if (is_code_symbol(s) && !s.name.empty() && s.type == STT_FUNC && shown++ < 8)
      defined += (shown > 1 ? ", " : "") + object_text(s.name);
  throw InputError(o.where + ": no code symbol '" + object_text(name) + "' (a function or label defined in a section)" +
                   (defined.empty() ? "" : "; functions here: " + defined));
}

struct PieceSource {
  size_t object;
  uint32_t section;
};

class Linker {
 public:
  Linker(ElfObject first, const ObjectArchive* archive) : archive_(archive) { objects_.push_back(std::move(first)); }

  /// Lays out the entry symbol's section and everything reached from it; returns the entry's offset.
  size_t lay_out(const std::string& symbol) {
    const ElfSymbol* s = entry_symbol(objects_[0], symbol);
    const ElfSection& sec = objects_[0].sections[s->section];
    if (!(sec.flags & SHF_EXECINSTR))
      throw InputError(objects_[0].where + ": symbol '" + object_text(symbol) + "' is in section '" +
                       object_text(sec.name) + "', which is not code (no SHF_EXECINSTR)");
    const size_t piece = place(0, s->section, "symbol '" + object_text(symbol) + "'");
    if (s->value >= sec.size)
      throw InputError(objects_[0].where + ": symbol '" + object_text(symbol) + "' has no code after it in section '" +
                       object_text(sec.name) + "'");
    for (size_t i = 0; i < sources_.size(); ++i) resolve_piece(i);
    return pieces_[piece].offset + s->value;
  }

  ObjectCode finish(size_t entry) {
    ObjectCode code;
    code.bytes.assign(end_, kPadByte);
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const auto& b = objects_[sources_[i].object].sections[sources_[i].section].bytes;
      if (!b.empty()) std::memcpy(code.bytes.data() + pieces_[i].offset, b.data(), b.size());
    }
    for (const auto& f : fixups_) {
      const size_t width = f.type == "R_X86_64_PC64" ? 8 : 4;
      const int32_t v32 = int32_t(f.value);
      std::memcpy(code.bytes.data() + f.offset, width == 8 ? static_cast<const void*>(&f.value) : &v32, width);
    }
    code.entry = entry;
    code.pieces = pieces_;
    code.relocations = fixups_;
    return code;
  }

 private:
  std::deque<ElfObject> objects_;  // a deque: references to earlier objects stay valid
  const ObjectArchive* archive_;
  std::map<std::pair<size_t, uint32_t>, size_t> placed_;  // (object, section) -> piece
  std::vector<PieceSource> sources_;
  std::vector<ObjectPiece> pieces_;
  std::vector<ObjectRelocation> fixups_;
  size_t end_ = 0;

  /// The piece of `section` of object `obj`, laid out after the others if it is not yet;
  /// `why` (what reaches it) starts a refusal.
  size_t place(size_t obj, uint32_t section, const std::string& why) {
    if (auto it = placed_.find({obj, section}); it != placed_.end()) return it->second;
    const ElfObject& o = objects_[obj];
    const ElfSection& s = o.sections[section];
    const std::string head = o.where + ": " + why + " reaches section '" + object_text(s.name) + "', ";
    if (s.type != SHT_PROGBITS || !(s.flags & SHF_ALLOC) || s.bytes.size() != s.size)
      throw InputError(head + "which has no loadable bytes (SHF_ALLOC PROGBITS is needed)");
    if (s.flags & (SHF_WRITE | SHF_TLS))
      throw InputError(head + "which is writable: kex's code arena is read and execute only");
    const uint64_t align = s.align ? s.align : 1;
    if ((align & (align - 1)) != 0 || align > kMaxPieceAlign)
      throw InputError(head + "aligned to " + std::to_string(align) + " bytes: at most 64, a power of two, is kept");
    const size_t at = (end_ + align - 1) & ~(align - 1);
    if (s.size > kMaxObjectCodeBytes || at + s.size > kMaxObjectCodeBytes)
      throw InputError(head + "which makes the code larger than " + std::to_string(kMaxObjectCodeBytes >> 10) + " KiB");
    end_ = at + s.size;
    pieces_.push_back({o.name, object_text(s.name), at, s.size});
    sources_.push_back({obj, section});
    placed_[{obj, section}] = pieces_.size() - 1;
    return pieces_.size() - 1;
  }

  /// The object and symbol defining undefined `name`: a loaded object's global
  /// definition, else the member the archive's index names.
  std::pair<size_t, const ElfSymbol*> definition(const std::string& name, const std::string& head) {
    for (size_t k = 0; k < objects_.size(); ++k)
      if (const ElfSymbol* s = global_definition(objects_[k], name)) return {k, s};
    const std::optional<std::string> member = archive_ ? archive_->definer(name) : std::nullopt;
    if (!member)
      throw InputError(head + "nothing loaded defines it" +
                       (archive_ ? " and it is not in " + archive_->path() + "'s index"
                                 : " (a lone object: load it from an archive, or define it in the same file)"));
    for (const auto& o : objects_)
      if (o.name == *member)
        throw InputError(head + "the archive's index names member '" + object_text(*member) +
                         "', which does not define it");
    objects_.push_back(archive_->member(*member));
    const ElfSymbol* s = global_definition(objects_.back(), name);
    if (!s)
      throw InputError(head + "the archive's index names member '" + object_text(*member) +
                       "', which does not define it");
    return {objects_.size() - 1, s};
  }

  void resolve_piece(size_t piece) {
    const PieceSource src = sources_[piece];
    // Copies: definition() may add objects, and place() pieces, while we read.
    const std::vector<ElfRelocation> relocations = objects_[src.object].relocations[src.section];
    for (const auto& r : relocations) resolve(piece, src, r);
  }

  void resolve(size_t piece, PieceSource src, const ElfRelocation& r) {
    const ElfObject& o = objects_[src.object];
    const ElfSymbol& sym = o.symbols[r.symbol];
    const ElfSection& sec = o.sections[src.section];
    const std::string name =
        sym.type == STT_SECTION && sym.section < o.sections.size() ? o.sections[sym.section].name : sym.name;
    const std::string type = x86_64_relocation_name(r.type);
    const std::string head = o.where + ": " + type + " against '" + object_text(name) + "' at " +
                             object_text(sec.name) + "+" + hex_offset(r.offset) + ": ";
    if (r.type != R_X86_64_PC32 && r.type != R_X86_64_PLT32 && r.type != R_X86_64_PC64)
      throw InputError(head +
                       "only PC-relative references between the loaded pieces are resolved (R_X86_64_PC32, "
                       "R_X86_64_PLT32, R_X86_64_PC64)");
    const size_t width = r.type == R_X86_64_PC64 ? 8 : 4;
    if (r.offset + width > sec.size) throw InputError(head + "the field runs past the section's end");
    if (r.addend < -(int64_t(1) << 40) || r.addend > (int64_t(1) << 40))
      throw InputError(head + "the addend is out of range");
    size_t target_object = src.object;
    const ElfSymbol* target = &sym;
    if (sym.section == SHN_UNDEF)
      std::tie(target_object, target) = definition(sym.name, head);
    else if (sym.section >= SHN_LORESERVE)
      throw InputError(head + "an absolute or common symbol is not code kex loads");
    if (target->type == STT_GNU_IFUNC) throw InputError(head + "an ifunc: its symbol is the resolver, not the code");
    const size_t t = place(target_object, target->section, type + " against '" + object_text(name) + "'");
    if (target->value > objects_[target_object].sections[target->section].size)
      throw InputError(head + "the symbol lies past its section's end");
    const int64_t p = int64_t(pieces_[piece].offset + r.offset);
    const int64_t value = int64_t(pieces_[t].offset + target->value) + r.addend - p;
    if (width == 4 && (value < INT32_MIN || value > INT32_MAX))
      throw InputError(head + "the displacement does not fit in 32 bits");
    fixups_.push_back({o.name, type, object_text(name), size_t(p), value});
  }
};

}  // namespace

ObjectCode link_object_symbol(ElfObject first, const std::string& symbol, const ObjectArchive* archive) {
  Linker l(std::move(first), archive);
  const size_t entry = l.lay_out(symbol);
  return l.finish(entry);
}

}  // namespace kex
