// A shared object is read once (src/run/shared_objects.hpp): the children that probe,
// show, verify and measure it open kex's copy, so a file replaced after the plan was
// made changes nothing of what runs, and the hash is of the bytes that run.
#include <doctest/doctest.h>

#include <fcntl.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "src/run/file_sha256.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/shared_objects.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

/// dir/lib.so whose answer() returns 1, and another object whose answer() returns 2, to
/// be renamed over it: {lib, other}.
std::pair<std::string, std::string> answer_versions(const TmpDir& dir) {
  const std::string one = build_so(dir, "one", "int answer(void) { return 1; }\n");
  const std::string two = build_so(dir, "two", "int answer(void) { return 2; }\n");
  const std::string lib = dir / "lib.so";
  REQUIRE(std::rename(one.c_str(), lib.c_str()) == 0);
  return {lib, two};
}

}  // namespace

TEST_CASE("a shared object replaced after kex read it: the children still open the bytes kex hashed" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  const auto [lib, two] = answer_versions(dir);
  SharedObjects objects;
  const std::string hashed = objects.sha256(lib);
  CHECK(hashed == file_sha256(lib, kMaxLoadedFile, "shared object"));
  CHECK(objects.probe(lib, "answer") == "");
  const FunctionCode first = objects.code(lib, "answer", 64);
  // The file is replaced (as a build does: a new file renamed over it) after the plan was made.
  REQUIRE(std::rename(two.c_str(), lib.c_str()) == 0);
  CHECK(file_sha256(lib, kMaxLoadedFile, "shared object") != hashed);
  CHECK(objects.sha256(lib) == hashed);
  const FunctionCode again = objects.code(lib, "answer", 64);
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
  const std::string why = objects.probe(bad, "answer");
  CHECK(why.find("cannot open it: " + bad + ": ") == 0);
  CHECK(why.find("/proc/self/fd") == std::string::npos);
}

TEST_CASE("a library a shared object depends on, replaced after the probe: later children get no symbol" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  // main.so calls helper() of libdep.so, found by its rpath (a second hostile pass swapped
  // libdep.so between verification and measurement, and a copy that copied nothing won).
  const std::string v1 = build_so(dir, "dep1", "int helper(void) { return 1; }\n");
  const std::string v2 = build_so(dir, "dep2", "int helper(void) { return 2; }\n");
  const std::string dep = dir / "libdep.so";
  REQUIRE(shell("cp " + v1 + " " + dep).status == 0);
  std::FILE* f = std::fopen((dir / "main.c").c_str(), "w");
  std::fputs("int helper(void);\nint answer(void) { return helper(); }\n", f);
  std::fclose(f);
  const std::string main_so = dir / "main.so";
  REQUIRE(shell("gcc -shared -fPIC -O1 -o " + main_so + " " + (dir / "main.c") + " -L" + dir.path +
                " -ldep -Wl,-rpath," + dir.path)
              .status == 0);
  SharedObjects objects;
  CHECK(objects.probe(main_so, "answer") == "");
  const std::string deps = objects.dependencies(main_so);
  CHECK(deps.find(dep + " ") == 0);  // the one library it loaded besides itself
  void* const* slot = objects.slot(main_so, "answer");
  // In a child: open the registered objects and call answer() when its slot is set.
  const auto call = [&] {
    const auto job = [&](size_t) -> std::string {
      objects.open_all();
      if (!*slot) return "no symbol";
      return "answer " + std::to_string(reinterpret_cast<int (*)()>(*slot)());
    };
    // The job opens the objects itself: it keeps their copies open as a child given them does.
    return run_sandboxed(1, job, 10, nullptr, CallFilter::loading, nullptr, objects.descriptors()).at(0).message;
  };
  CHECK(call() == "answer 1");
  REQUIRE(std::rename(v2.c_str(), dep.c_str()) == 0);  // replaced as a build does
  CHECK(call() == "no symbol");
}

TEST_CASE("two registries in one process: each reads its own copy, and a child opens only the objects given it" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  const auto [lib, two] = answer_versions(dir);
  SharedObjects first;
  const std::string hashed = first.sha256(lib);
  void* const* slot = first.slot(lib, "answer");
  REQUIRE(std::rename(two.c_str(), lib.c_str()) == 0);
  // A second run reads the file as it is now; the first keeps the bytes it read.
  SharedObjects second;
  CHECK(second.sha256(lib) != hashed);
  CHECK(first.sha256(lib) == hashed);
  CHECK(second.slot(lib, "answer") != slot);
  const auto call = [&](SharedObjects* open) {
    const auto job = [&](size_t) -> std::string {
      if (!*slot) return "no symbol";
      return "answer " + std::to_string(reinterpret_cast<int (*)()>(*slot)());
    };
    return run_sandboxed(1, job, 10, nullptr, CallFilter::loading, open).at(0).message;
  };
  CHECK(call(&first) == "answer 1");
  CHECK(call(&second) == "no symbol");  // the second registry's objects are not the first's
  CHECK(call(nullptr) == "no symbol");
}

TEST_CASE("a child keeps open the descriptors of the registry it is given, and of no other registry" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  const auto [lib, two] = answer_versions(dir);
  SharedObjects first, second;
  first.sha256(lib);
  second.sha256(two);
  REQUIRE(first.descriptors().size() == 1);
  REQUIRE(second.descriptors().size() == 1);
  const int mine = first.descriptors()[0], theirs = second.descriptors()[0];
  CHECK(mine != theirs);
  // Which of the two descriptors a child holds: "01" = the first's closed, the second's open.
  const auto held = [&](SharedObjects* given, std::vector<int> keep) {
    const auto job = [&](size_t) -> std::string {
      return std::string(fcntl(mine, F_GETFD) >= 0 ? "1" : "0") + (fcntl(theirs, F_GETFD) >= 0 ? "1" : "0");
    };
    return run_sandboxed(1, job, 10, nullptr, CallFilter::loading, given, std::move(keep)).at(0).message;
  };
  CHECK(held(&first, {}) == "10");
  CHECK(held(&second, {}) == "01");
  CHECK(held(nullptr, {}) == "00");        // nothing is kept for the process as a whole
  CHECK(held(nullptr, {theirs}) == "01");  // only what the caller names
}
