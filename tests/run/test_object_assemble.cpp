// The assembler run of the object-code loader (src/run/object_assemble.hpp): an `as` or
// `gcc` that hangs is killed, with its children, after the bound, in one line.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "src/core/error.hpp"
#include "src/run/object_assemble.hpp"
#include "tests/support/object_files.hpp"

namespace {

/// PATH with `dir` first while this lives (a fake tool found before the real one).
struct PathFirst {
  std::string old = std::getenv("PATH") ? std::getenv("PATH") : "";
  explicit PathFirst(const std::string& dir) { setenv("PATH", (dir + ":" + old).c_str(), 1); }
  ~PathFirst() { setenv("PATH", old.c_str(), 1); }
};

/// Whether process `pid` has ended (gone, or a zombie not yet reaped), within 2 s.
bool ended(int pid) {
  for (int i = 0; i < 200; ++i) {
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    if (stat.empty() || paren == std::string::npos || stat.compare(paren + 2, 1, "Z") == 0) return true;
    usleep(10000);
  }
  return false;
}

}  // namespace

TEST_CASE("assembling: a hanging as and gcc are killed with their children after the bound, one line each" *
          doctest::test_suite("object")) {
  TmpDir dir;
  // Each fake tool leaves a child that writes its pid, then both sleep: the whole group must go.
  const std::string hang = "#!/bin/sh\nsleep 600 &\necho $! > \"" + (dir / "CHILD") + "\"\nwait\n";
  for (const char* tool : {"as", "gcc"}) {
    std::string body = hang;
    body.replace(body.find("CHILD"), 5, std::string(tool) + ".pid");
    write_text(dir, tool, body);
    REQUIRE(run_sh("chmod +x '" + (dir / tool) + "'") == 0);
  }
  const std::string src = write_text(dir, "x.s", "ret\n");
  const PathFirst path(dir.path);
  for (const bool preprocess : {false, true}) {
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(kex::assemble_object(src, preprocess, std::chrono::milliseconds(300)),
                         (src + (preprocess ? ": gcc -c" : ": as --64") +
                          " did not finish within 300 ms: killed (an assembler that hangs, or a source that never ends)")
                             .c_str(),
                         kex::InputError);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    const std::string pid = slurp(dir / (std::string(preprocess ? "gcc" : "as") + ".pid"));
    REQUIRE(!pid.empty());
    CHECK(ended(std::stoi(pid)));  // the tool's child was killed with it
  }
}
