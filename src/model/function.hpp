// The C library functions kex races implementations of (memcpy, memmove, memset): one
// enum and one row table, so the function is never spelled as free text (docs/STYLE.md
// rules 24 and 26). A row says how the function is named, which op kex races it as and
// the ABI a stub enters it with.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "src/model/spec.hpp"

namespace kex {

/// A C library function with an implementation kex can race.
enum class Function { memcpy, memmove, memset };

/// Every Function, in table order.
inline constexpr std::array kFunctions{Function::memcpy, Function::memmove, Function::memset};

/// One row of the functions table.
struct FunctionRow {
  Function function;
  std::string_view name;  ///< "memcpy": results' implementation.function, glibc's list
  std::string_view word;  ///< "copy": --load's :copy|move|clear and a config's load "function"
  Op op;                  ///< the op kex races it as (memmove: copy)
  /// memset's ABI, (dst, int fill, bytes): a stub puts the fill byte in esi. The others
  /// are (dst, src, bytes), kex's kernel ABI.
  bool fill_in_esi;
  /// Its result where src and dst overlap is memmove's (memmove only; memcpy promises nothing).
  bool overlap_safe;
};

/// The row of `f`.
const FunctionRow& function_row(Function f);
/// "memcpy", "memmove", "memset".
std::string_view to_string(Function f);
/// The function called `name` ("memcpy"); nullopt for any other text.
std::optional<Function> parse_function(std::string_view name);
/// The function of `word` ("copy", "move", "clear"); nullopt for any other text.
std::optional<Function> parse_function_word(std::string_view word);
/// The libc function kex's `op` is compared with: memcpy for a copy, memset for a clear;
/// nullopt for a read (no libc call reads only).
std::optional<Function> libc_function_of(Op op);

}  // namespace kex
