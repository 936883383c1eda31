// An ar archive of objects read with libelf: its members by name (elf_begin over the
// archive) and its symbol index (elf_getarsym) (src/run/object_elf.hpp).
#include <ar.h>
#include <libelf.h>

#include <cstring>

#include "src/core/error.hpp"
#include "src/core/nearest.hpp"
#include "src/run/object_elf.hpp"

namespace kex {

struct ObjectArchive::State {
  std::string bytes;  // libelf reads the members from here
  Elf* ar = nullptr;
  ~State() {
    if (ar) elf_end(ar);
  }
};

namespace {

std::string archive_reason() {
  const char* m = elf_errmsg(-1);
  return m ? m : "unknown libelf error";
}

/// A member name fit to name in a path and an error: no control characters, no bytes
/// a terminal would obey, no '/'.
bool plain_member_name(const std::string& name) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f || c == '/') return false;
  return object_text(name) == name;
}

/// The member at the archive's current position, ended when it goes out of scope.
struct Member {
  Elf* elf = nullptr;
  ~Member() {
    if (elf) elf_end(elf);
  }
};

/// "the nearest: libc.a(memcpy.lo), libc.a(memccpy.lo); " for a member name that matched
/// none, or "" when no name is near it. The members are plain names (plain_member_name).
std::string nearest_members(const std::string& member, const std::vector<std::string>& names, const std::string& path) {
  const std::vector<std::string> near = nearest_names(member, names);
  if (near.empty()) return "";
  const std::string file = path.substr(path.rfind('/') + 1);
  std::string out = "the nearest: ";
  for (size_t i = 0; i < near.size(); ++i) out += (i ? ", " : "") + file + "(" + near[i] + ")";
  return out + "; ";
}

}  // namespace

ObjectArchive::ObjectArchive(const std::string& path, std::string bytes)
    : path_(object_text(path)), state_(std::make_unique<State>()) {
  if (elf_version(EV_CURRENT) == EV_NONE) throw InputError(path_ + ": libelf is unusable (" + archive_reason() + ")");
  state_->bytes = std::move(bytes);
  if (state_->bytes.compare(0, SARMAG, ARMAG) != 0)
    throw InputError(path_ + ": not an ar archive (no !<arch> at its start)");
  state_->ar = elf_memory(state_->bytes.data(), state_->bytes.size());
  if (!state_->ar || elf_kind(state_->ar) != ELF_K_AR)
    throw InputError(path_ + ": not an ar archive (" + archive_reason() + ")");
}

ObjectArchive::~ObjectArchive() = default;

ElfObject ObjectArchive::member(const std::string& member) const {
  const std::string where = path_ + "(" + object_text(member) + ")";
  if (!plain_member_name(member))
    throw InputError(where + ": a member name with control characters, '/' or invisible characters is not loaded");
  if (elf_rand(state_->ar, SARMAG) != SARMAG)
    throw InputError(path_ + ": cannot rewind the archive (" + archive_reason() + ")");
  size_t seen = 0;
  std::vector<std::string> names;  // the members' plain names, for the error's nearest ones
  Elf_Cmd cmd = ELF_C_READ_MMAP;  // as elf_memory made the archive (ELF_C_READ wants a file descriptor)
  for (;;) {
    Member m{elf_begin(-1, cmd, state_->ar)};
    if (!m.elf) break;
    // elf_getarhdr gives the archive's current header: read it before elf_next moves on.
    const Elf_Arhdr* h = elf_getarhdr(m.elf);
    if (!h || !h->ar_name)
      throw InputError(path_ + ": member " + std::to_string(seen) + " has an unreadable header (" + archive_reason() +
                       ")");
    const std::string name = h->ar_name;
    cmd = elf_next(m.elf);
    if (name == "/" || name == "//" || name == "/SYM64/") continue;  // the index and the long-name table
    ++seen;
    if (name != member) {
      if (plain_member_name(name)) names.push_back(name);
      continue;
    }
    size_t n = 0;
    const char* raw = elf_rawfile(m.elf, &n);
    if (!raw) throw InputError(where + ": unreadable member (" + archive_reason() + ")");
    return read_elf_object(where, member, std::string_view(raw, n));
  }
  throw InputError(path_ + ": no member '" + object_text(member) + "' (" + std::to_string(seen) + " members; " +
                   nearest_members(member, names, path_) + "`ar t` lists them)");
}

std::optional<std::string> ObjectArchive::definer(const std::string& symbol) const {
  size_t n = 0;
  Elf_Arsym* index = elf_getarsym(state_->ar, &n);
  if (!index) return std::nullopt;  // no index: nothing is found through it
  const char* begin = state_->bytes.data();
  const char* end = begin + state_->bytes.size();
  for (size_t i = 0; i < n && index[i].as_name; ++i) {
    // libelf's names point into the archive's bytes; a hostile index may put one at or
    // past the end or leave it unterminated (found by tests/fuzz/fuzz_object.cpp).
    const char* name = index[i].as_name;
    if (name < begin || name >= end || !std::memchr(name, '\0', size_t(end - name)))
      throw InputError(path_ + ": the archive's symbol index runs past its end");
    if (symbol != name) continue;
    if (elf_rand(state_->ar, index[i].as_off) != index[i].as_off)
      throw InputError(path_ + ": the index entry of '" + object_text(symbol) + "' points outside the archive");
    Member m{elf_begin(-1, ELF_C_READ_MMAP, state_->ar)};
    const Elf_Arhdr* h = m.elf ? elf_getarhdr(m.elf) : nullptr;
    if (!h || !h->ar_name)
      throw InputError(path_ + ": the index entry of '" + object_text(symbol) + "' names no readable member (" +
                       archive_reason() + ")");
    return std::string(h->ar_name);
  }
  return std::nullopt;
}

}  // namespace kex
