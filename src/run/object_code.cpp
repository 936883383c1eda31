// Loading outside code from an assembly source, an object or an archive member
// (src/run/object_code.hpp): which kind the source names, its bytes and their SHA-256,
// then the ELF reader (object_elf.cpp, object_archive.cpp) and the layout (object_link.cpp).
#include "src/run/object_code.hpp"

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/object_assemble.hpp"
#include "src/run/object_elf.hpp"
#include "src/run/object_link.hpp"

namespace kex {

namespace {

struct SourceName {
  std::string path;
  std::string member;  // "" unless "lib.a(member)"
  bool has_member = false;
};

SourceName split_source(const std::string& source) {
  const size_t open = source.find('(');
  if (source.empty() || source.back() != ')' || open == std::string::npos || open == 0) return {source, "", false};
  return {source.substr(0, open), source.substr(open + 1, source.size() - open - 2), true};
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::string t(suffix);
  return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// An archive's member: the one named, else the one its index says defines `symbol`.
ObjectCode load_from_archive(const SourceName& src, std::string bytes, const std::string& symbol) {
  ObjectArchive archive(src.path, std::move(bytes));
  std::string member = src.member;
  if (!src.has_member) {
    const auto definer = archive.definer(symbol);
    if (!definer)
      throw InputError(archive.path() + ": the archive's index names no member defining '" + object_text(symbol) +
                       "' (name one: " + archive.path() + "(MEMBER))");
    member = *definer;
  }
  return link_object_symbol(archive.member(member), symbol, &archive);
}

}  // namespace

ObjectCode load_object_symbol(const std::string& source, const std::string& symbol) {
  const SourceName src = split_source(source);
  const std::string where = object_text(src.path);
  if (src.has_member && src.member.empty())
    throw InputError(where + ": an empty member name in '" + object_text(source) + "'");
  if (symbol.empty()) throw InputError(object_text(source) + ": no symbol named");
  const bool assembly = ends_with(src.path, ".s") || ends_with(src.path, ".S");
  if (assembly && src.has_member) throw InputError(object_text(source) + ": an assembly source has no members");
  ObjectCode code;
  if (assembly) {
    // Checked (a regular file, within the cap) and hashed before the assembler sees it.
    const std::string sha = file_sha256(src.path, kMaxAssemblySource, ".s or .S source");
    const std::string object = assemble_object(src.path, ends_with(src.path, ".S"));
    code = link_object_symbol(read_elf_object(where, base_name(src.path), object), symbol, nullptr);
    code.sha256 = sha;
    return code;
  }
  std::string bytes = read_regular_file(src.path, kMaxLoadedFile, "object file or archive");
  const std::string sha = sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (src.has_member || bytes.rfind("!<arch>\n", 0) == 0) {
    code = load_from_archive(src, std::move(bytes), symbol);
  } else {
    code = link_object_symbol(read_elf_object(where, base_name(src.path), bytes), symbol, nullptr);
  }
  code.sha256 = sha;
  return code;
}

}  // namespace kex
