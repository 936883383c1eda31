// Goldens of two writers whose text users keep: `kex emit`'s GNU as and C sources of
// generated kernels and a dispatch (the code a user links into a program), and the
// workload table of `kex crossovers --workload` (expected ns per call per kernel). The
// text after the head (which names kex's build and the CPU) must not change unnoticed;
// KEX_UPDATE_GOLDEN=1 rewrites it (tests/golden/README.md).
#include <doctest/doctest.h>

#include <string>

#include "tests/support/golden.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// The kernels and dispatch both emit goldens hold: a generated SSE loop (SSE2, on every
/// x86-64) below 256 bytes, rep movsb above.
const char* kEmitArgs = " emit copy/sse/unroll:64 rep_movsb --dispatch 256:copy/sse/unroll:64,rep_movsb";

}  // namespace

TEST_CASE("kex emit of generated kernels and a dispatch: the gas and C text match their goldens" *
          doctest::test_suite("emit")) {
  const ShellOut gas = shell_stdout(kKex + kEmitArgs + " --format gas");
  const ShellOut c = shell_stdout(kKex + kEmitArgs + " --format c");
  REQUIRE(gas.status == 0);
  REQUIRE(c.status == 0);
  CHECK(golden::check("emit-generated.s", golden::from(gas.text, "Code and wrappers are generated")) == "");
  CHECK(golden::check("emit-generated.c", golden::from(c.text, "Code and wrappers are generated")) == "");
}

TEST_CASE("kex crossovers --workload: the ranking table of the golden results matches its golden" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  spit(dir / "calls.csv", "size,count\n# sizes below, inside and above the measured ones\n64,1000\n4096,200\n"
                          "16384,40\n65536,10\n1048576,3\n");
  const ShellOut out = shell_stdout("cd " + dir.path + " && cp " + std::string(KEX_SOURCE_DIR) +
                                    "/tests/golden/run.json run.json && " + kKex +
                                    " crossovers run.json --workload calls.csv");
  REQUIRE(out.status == 0);
  CHECK(golden::check("workload.txt", out.text) == "");
}
