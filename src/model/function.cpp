#include "src/model/function.hpp"

namespace kex {

namespace {

constexpr std::array<FunctionRow, kFunctions.size()> kFunctionRows = {{
    {Function::memcpy, "memcpy", "copy", Op::copy, false, false},
    {Function::memmove, "memmove", "move", Op::copy, false, true},
    {Function::memset, "memset", "clear", Op::clear, true, false},
}};

constexpr bool function_rows_in_order() {
  for (size_t i = 0; i < kFunctionRows.size(); ++i)
    if (kFunctionRows[i].function != Function(i) || kFunctions[i] != Function(i)) return false;
  return true;
}
static_assert(function_rows_in_order(), "the functions table has a row per Function value, in enum order");

}  // namespace

const FunctionRow& function_row(Function f) { return kFunctionRows.at(size_t(f)); }

std::string_view to_string(Function f) { return function_row(f).name; }

std::optional<Function> parse_function(std::string_view name) {
  for (const FunctionRow& r : kFunctionRows)
    if (r.name == name) return r.function;
  return std::nullopt;
}

std::optional<Function> parse_function_word(std::string_view word) {
  for (const FunctionRow& r : kFunctionRows)
    if (r.word == word) return r.function;
  return std::nullopt;
}

std::optional<Function> libc_function_of(Op op) {
  if (op == Op::copy) return Function::memcpy;
  if (op == Op::clear) return Function::memset;
  return std::nullopt;
}

}  // namespace kex
