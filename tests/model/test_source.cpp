// The sources table (src/model/source.hpp) and the functions table (src/model/function.hpp):
// what every other file asks of a source or a function instead of comparing values.
#include <doctest/doctest.h>

#include "src/model/function.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/source.hpp"

using namespace kex;

TEST_CASE("sources: each row's word, name form, reach and path claims" * doctest::test_suite("model")) {
  CHECK(to_string(Source::glibc) == "glibc");
  CHECK(to_string(Source::object) == "asm");
  CHECK(source_row(Source::lib).reach == Reach::slot);
  CHECK(source_row(Source::object).reach == Reach::bytes);
  CHECK(source_row(Source::libc).reach == Reach::address);
  // Only loaded code is named by --load, and only bytes in kex's arena are recorded.
  for (Source s : kSources) {
    CHECK(source_row(s).loaded == (s == Source::lib || s == Source::object));
    CHECK(source_row(s).code_recorded == (source_row(s).reach == Reach::bytes));
  }
  CHECK(parse_impl_source("asm") == Source::object);
  CHECK(!parse_impl_source("libc"));  // libc's competitors are named by their function: memcpy, memset
  CHECK(!parse_impl_source("object"));
  CHECK(source_of_path("x.so.6.1") == Source::lib);
  CHECK(source_of_path("libc.a(memcpy.lo)") == Source::object);
  CHECK(source_of_path("x.S") == Source::object);
  CHECK(!source_of_path("x.c"));
  CHECK(!source_of_path(".so"));
  CHECK(parse_impl_name("lib/my-copy"));
  CHECK(!parse_impl_name("lib/has.dot"));         // a label: letters, digits, _ and -
  CHECK(parse_impl_name("glibc/__memcpy_erms"));  // a symbol: a C identifier
  CHECK(!parse_impl_name("glibc/my-copy"));
}

TEST_CASE("functions: names, --load words, the op raced and the ABI" * doctest::test_suite("model")) {
  CHECK(parse_function("memmove") == Function::memmove);
  CHECK(!parse_function("move"));
  CHECK(parse_function_word("clear") == Function::memset);
  CHECK(!parse_function_word("memset"));
  CHECK(function_row(Function::memmove).op == Op::copy);
  CHECK(function_row(Function::memset).fill_in_esi);
  CHECK(!function_row(Function::memcpy).fill_in_esi);
  CHECK(function_row(Function::memmove).overlap_safe);
  CHECK(!function_row(Function::memcpy).overlap_safe);
  CHECK(libc_function_of(Op::clear) == Function::memset);
  CHECK(!libc_function_of(Op::read));
  for (Function f : kFunctions) CHECK(parse_function(to_string(f)) == f);
}
