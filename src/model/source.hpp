// Where a competitor's code comes from when kex did not generate it: one enum and one row
// table (docs/STYLE.md rule 26). A row holds every fact the rest of kex asks of a source:
// its word, how its competitors are named, how the timed code reaches them, whether only
// the command line or a config may name them, what results keep of their code and which
// file paths it claims. Code asks the row; nothing outside this file compares Source
// values (tests/structure_test.py checks it). Adding a source is one row here, one loader
// in src/run/ and its tests (docs/code-tour.md, "Adding a source").
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace kex {

/// A source of code kex did not generate.
enum class Source {
  glibc,   ///< one of glibc's own variants, from its __libc_ifunc_impl_list (src/run/glibc_impls.hpp)
  lib,     ///< a shared object's symbol (--load), opened only in the processes that run kernels
  object,  ///< an assembly or object file's symbol or an archive member's (--load), its bytes in kex's arena
  libc,    ///< the C library's memcpy or memset as ifunc resolved it: the baselines "memcpy", "memset"
};

/// Every Source, in table order.
inline constexpr std::array kSources{Source::glibc, Source::lib, Source::object, Source::libc};

/// How a competitor's name is written.
enum class NameForm {
  symbol,    ///< WORD/SYMBOL, a C identifier: glibc/__memmove_avx_unaligned_erms
  label,     ///< WORD/NAME, the user's --load NAME: lib/new, asm/musl
  function,  ///< the function's own name: memcpy, memset/fill:0xaa (a baseline's)
};

/// How the timed code reaches a competitor: each is a stub in kex's code arena entered as a
/// kernel is (generators/outside_call.hpp), so every competitor is called the same way.
enum class Reach {
  address,  ///< the stub jumps to an address found in kex's process (valid in its children)
  slot,     ///< the stub jumps through a slot that each process running kernels fills (dlopen there)
  bytes,    ///< the code's own bytes, copied into the arena after a jump to their entry
};

/// One row of the sources table.
struct SourceRow {
  Source source;
  std::string_view word;  ///< results' implementation.source and a name's prefix ("glibc", "lib", "asm")
  NameForm name;
  Reach reach;
  /// Named only by `--load` or a config's "load" list: a name read anywhere else (a results,
  /// tune or journal file, a baselines list) loads nothing and is refused where it would run.
  bool loaded;
  /// Results keep the code's bytes and hash (only code in kex's arena is kex's to record).
  bool code_recorded;
  /// A sibling of ifunc's pick: glibc's list names it beside the variant ifunc chose.
  bool ifunc_listed;
  std::string_view what;  ///< what it is, for messages: "a shared object's symbol"
  /// Whether a --load PATH of this form is this source's; null for sources no path names.
  bool (*claims)(std::string_view path);
};

/// The row of `s`.
const SourceRow& source_row(Source s);
/// The source's word ("glibc", "lib", "asm", "libc").
std::string_view to_string(Source s);
/// The source of an implementation name's prefix (glibc, lib, asm); nullopt for any other
/// word, "libc" too (its competitors are named by their function).
std::optional<Source> parse_impl_source(std::string_view word);
/// The source whose row claims `path` (lib for x.so, object for x.s, x.o, lib.a(member)); nullopt
/// when none does.
std::optional<Source> source_of_path(std::string_view path);
/// "a shared object (x.so, x.so.N), ...": the path forms --load takes, for messages.
std::string_view load_path_forms();

}  // namespace kex
