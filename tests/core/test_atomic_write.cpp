#include <doctest/doctest.h>

#include <filesystem>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("write_file_atomic writes - refuses to overwrite without force - and leaves no temp files") {
  TmpDir d;
  std::string p = d / "out.txt";
  write_file_atomic(p, "one\n", false);
  CHECK(slurp(p) == "one\n");
  CHECK_THROWS_AS(write_file_atomic(p, "two\n", false), InputError);
  CHECK(slurp(p) == "one\n");
  write_file_atomic(p, "three\n", true);
  CHECK(slurp(p) == "three\n");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(d.path)) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
  CHECK_THROWS_AS(write_file_atomic(d / "no/such/dir/x", "x", false), InputError);
}
