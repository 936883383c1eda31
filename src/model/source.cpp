#include "src/model/source.hpp"

#include <algorithm>

namespace kex {

namespace {

bool path_ends_with(std::string_view s, std::string_view tail) {
  return s.size() > tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// x.so, x.so.N[.N...]: a shared object.
bool shared_object_path(std::string_view path) {
  if (path_ends_with(path, ".so")) return true;
  const size_t at = path.rfind(".so.");
  if (at == std::string_view::npos || at == 0 || at + 4 >= path.size()) return false;
  return std::all_of(path.begin() + long(at + 4), path.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

/// x.s, x.S, x.o, x.lo or ARCHIVE.a(MEMBER): object code.
bool object_path(std::string_view path) {
  for (std::string_view tail : {".s", ".S", ".o", ".lo"})
    if (path_ends_with(path, tail)) return true;
  const size_t open = path.rfind(".a(");
  return open != std::string_view::npos && open > 0 && path.back() == ')' && open + 4 < path.size();
}

constexpr std::array<SourceRow, kSources.size()> kSourceRows = {{
    {Source::glibc, "glibc", NameForm::symbol, Reach::address, false, false, true, "one of glibc's own variants",
     nullptr},
    {Source::lib, "lib", NameForm::label, Reach::slot, true, false, false, "a shared object's symbol",
     shared_object_path},
    {Source::object, "asm", NameForm::label, Reach::bytes, true, true, false, "loaded object code", object_path},
    {Source::libc, "libc", NameForm::function, Reach::address, false, false, false,
     "the C library's function as ifunc resolved it", nullptr},
}};

constexpr bool source_rows_in_order() {
  for (size_t i = 0; i < kSourceRows.size(); ++i)
    if (kSourceRows[i].source != Source(i) || kSources[i] != Source(i)) return false;
  return true;
}
static_assert(source_rows_in_order(), "the sources table has a row per Source value, in enum order");

}  // namespace

const SourceRow& source_row(Source s) { return kSourceRows.at(size_t(s)); }

std::string_view to_string(Source s) { return source_row(s).word; }

std::optional<Source> parse_impl_source(std::string_view word) {
  for (const SourceRow& r : kSourceRows)
    if (r.word == word && r.name != NameForm::function) return r.source;
  return std::nullopt;
}

std::optional<Source> source_of_path(std::string_view path) {
  for (const SourceRow& r : kSourceRows)
    if (r.claims && r.claims(path)) return r.source;
  return std::nullopt;
}

std::string_view load_path_forms() {
  return "a shared object (x.so, x.so.N), an assembly file (x.s, x.S), an object (x.o, x.lo) or an archive member "
         "(lib.a(member))";
}

}  // namespace kex
