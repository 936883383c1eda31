// Shared objects for the `--load` tests: C built with gcc in a test's directory.
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

/// Builds `dir`/NAME.so from C `body` (its functions with memcpy's or memmove's ABI),
/// at -O1 without builtins, so a byte loop stays a byte loop; fails the test if gcc does.
inline std::string build_so(const TmpDir& dir, const std::string& name, const std::string& body) {
  std::ofstream(dir / (name + ".c")) << body;
  const std::string so = dir / (name + ".so");
  const ShellOut cc = shell("gcc -shared -fPIC -O1 -fno-builtin -fno-tree-loop-distribute-patterns -o " + so + " " +
                            (dir / (name + ".c")));
  INFO(cc.text);
  REQUIRE(cc.status == 0);
  return so;
}
