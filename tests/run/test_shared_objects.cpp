// A shared object is read once (src/run/shared_objects.hpp): the children that probe,
// show, verify and measure it open kex's copy, so a file replaced after the plan was
// made changes nothing of what runs, and the hash is of the bytes that run.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "src/run/file_sha256.hpp"
#include "src/run/shared_objects.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("a shared object replaced after kex read it: the children still open the bytes kex hashed" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  const std::string one = build_so(dir, "one", "int answer(void) { return 1; }\n");
  const std::string two = build_so(dir, "two", "int answer(void) { return 2; }\n");
  const std::string lib = dir / "lib.so";
  REQUIRE(std::rename(one.c_str(), lib.c_str()) == 0);
  const std::string hashed = shared_object_sha256(lib);
  CHECK(hashed == file_sha256(lib, kMaxLoadedFile, "shared object"));
  CHECK(probe_shared_object(lib, "answer") == "");
  const FunctionCode first = shared_object_code(lib, "answer", 64);
  // The file is replaced (as a build does: a new file renamed over it) after the plan was made.
  REQUIRE(std::rename(two.c_str(), lib.c_str()) == 0);
  CHECK(file_sha256(lib, kMaxLoadedFile, "shared object") != hashed);
  CHECK(shared_object_sha256(lib) == hashed);
  const FunctionCode again = shared_object_code(lib, "answer", 64);
  CHECK(again.bytes == first.bytes);
  // mov $1, %eax: the first object's code, not the second's.
  REQUIRE(first.bytes.size() >= 5);
  CHECK(first.bytes[0] == 0xb8);
  CHECK(first.bytes[1] == 1);
  // A file that cannot be loaded is named by its path, not by kex's copy.
  const std::string bad = dir / "bad.so";
  std::FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs("not an ELF file\n", f);
  std::fclose(f);
  const std::string why = probe_shared_object(bad, "answer");
  CHECK(why.find("cannot open it: " + bad + ": ") == 0);
  CHECK(why.find("/proc/self/fd") == std::string::npos);
}
