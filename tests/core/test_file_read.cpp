#include <doctest/doctest.h>

#include <fstream>

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("read_regular_file: the bytes of a regular file up to the cap, devices, directories and bigger files refused") {
  TmpDir d;
  std::ofstream(d / "w.csv", std::ios::binary) << "size,count\n64,3\n";
  CHECK(read_regular_file(d / "w.csv", 1 << 20, "workload file") == "size,count\n64,3\n");
  std::ofstream(d / "big", std::ios::binary) << std::string((1 << 20) + 1, 'x');
  CHECK_THROWS_WITH_AS(read_regular_file(d / "big", 1 << 20, "config"),
                       (d / "big" + ": longer than 1 MiB: a config is at most that").c_str(), InputError);
  CHECK_THROWS_WITH_AS(read_regular_file("/dev/zero", 1 << 20, "config"),
                       "/dev/zero: not a regular file (a config is needed)", InputError);
  CHECK_THROWS_WITH_AS(read_regular_file(d.path, 1 << 20, "config"),
                       (d.path + ": not a regular file (a config is needed)").c_str(), InputError);
  CHECK_THROWS_WITH_AS(read_regular_file(d / "none", 1 << 20, "config"),
                       (d / "none" + ": cannot read config (No such file or directory)").c_str(), InputError);
}
