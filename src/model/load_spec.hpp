// Outside code the user names to race (issue 34): `--load NAME=PATH:SYMBOL[:copy|move|clear]`
// on the command line, or a config's "load" list of records. Only these two load code: a
// results file, a journal or a tune file is data (README "Your own implementation").
#pragma once
#include <string>
#include <vector>

#include "src/model/plan.hpp"

namespace kex {

/// One implementation to load: the kernel lib/NAME (a shared object) or asm/NAME (an
/// assembly or object file, or an archive member), its `symbol` called with the ABI of
/// `function` ("memcpy", "memmove" or "memset").
struct LoadSpec {
  std::string name;                 ///< NAME (is_load_label)
  std::string path;                 ///< as written: x.so, x.so.1, x.s, x.S, x.o, lib.a(member)
  std::string symbol;               ///< a C identifier
  Function function = Function::memcpy;  ///< from copy, move, clear
  bool operator==(const LoadSpec&) const = default;
};

/// Which source a path's form names (source_of_path, src/model/source.hpp): `*.so`,
/// `*.so.N[.N...]` a shared object (lib); `*.s`, `*.S`, `*.o`, `*.lo` and `ARCHIVE.a(MEMBER)`
/// object code (asm); else nullopt.
std::optional<Source> load_source(const std::string& path);

/// The kernel name of a load: lib/NAME or asm/NAME.
std::string load_kernel(const LoadSpec& l);

/// Parses `--load`'s value NAME=PATH:SYMBOL[:copy|move|clear] (PATH may hold ':'; the last
/// fields are read from the right). Throws InputError, one line naming `where`, the value
/// and what is allowed.
LoadSpec parse_load_option(const std::string& text, const std::string& where);

/// Checks one load (name, path form, symbol): InputError at `where` otherwise.
void check_load(const LoadSpec& l, const std::string& where);

/// Refuses a NAME given twice among `loads` (InputError at `where`, naming it).
void check_load_names(const std::vector<LoadSpec>& loads, const std::string& where);

/// The field table of one record of a config's "load" list: name, path, symbol (required)
/// and function (copy, move or clear; copy when absent), written as the option's words.
template <class IO, class L>
void map_load(IO& io, L& l) {
  io.text("name", l.name);
  io.text("path", l.path);
  io.text("symbol", l.symbol);
  if (io.has("function", true))
    io.choice("function", l.function, parse_function_word, [](Function f) { return function_row(f).word; },
            "copy (memcpy's ABI), move (memmove's), clear (memset's)");
}

}  // namespace kex
