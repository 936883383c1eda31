// The names nearest a name that matched none: edit distances with known answers, and
// which of a list are near enough to suggest.
#include <doctest/doctest.h>

#include "src/core/nearest.hpp"

using namespace kex;

TEST_CASE("edit_distance: insertions, deletions, substitutions and swaps count one each" * doctest::test_suite("core")) {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("memcpy.lo", "memcpy.lo") == 0);
  CHECK(edit_distance("memcpyy.lo", "memcpy.lo") == 1);  // a byte too many
  CHECK(edit_distance("mempy.lo", "memcpy.lo") == 1);    // a byte missing
  CHECK(edit_distance("memcpx.lo", "memcpy.lo") == 1);   // one changed
  CHECK(edit_distance("mecmpy.lo", "memcpy.lo") == 1);   // two swapped
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("nearest_names: the nearest first, stems count, none when nothing is near" * doctest::test_suite("core")) {
  const std::vector<std::string> members = {"memccpy.lo", "memchr.lo", "memcpy.lo", "memmove.lo", "memset.lo", "strcpy.lo"};
  CHECK(nearest_names("memcpyy.lo", members) == std::vector<std::string>{"memcpy.lo", "memccpy.lo"});
  CHECK(nearest_names("memcpy", members) == std::vector<std::string>{"memcpy.lo"});       // its stem
  CHECK(nearest_names("memcpy.o", members) == std::vector<std::string>{"memcpy.lo", "memccpy.lo"});  // another suffix
  CHECK(nearest_names("memmov.lo", members) == std::vector<std::string>{"memmove.lo"});
  CHECK(nearest_names("qsort.lo", members).empty());
  CHECK(nearest_names("c.o", {"a.o", "b.o", "d.o"}, 2) == std::vector<std::string>{"a.o", "b.o"});  // at most `most`
  CHECK(nearest_names("x", {}).empty());
}
