// The code a run loads is the run's (src/run/load_plans.hpp, LoadedCode): a NAME given
// twice for other code is refused within one registry, and a second run in the same
// process (a second registry, as each RunOptions makes) sees none of the first's names.
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/sweep.hpp"
#include "tests/support/shared_object.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("a NAME given twice for other code: refused in one run's registry, accepted in another's" *
          doctest::test_suite("sandbox")) {
  TmpDir dir;
  const std::string so = build_so(dir, "two", "int g(void) { return 1; }\nint h(void) { return 2; }\n");
  const LoadSpec g{"x", so, "g", Function::memcpy};
  const LoadSpec h{"x", so, "h", Function::memcpy};
  LoadedCode first;
  const KernelPlan pg = first.plan(g, 0, "--load");
  CHECK(pg.key == "lib/x");
  CHECK(first.plan(g, 0, "--load").key == "lib/x");  // the same code again: the same load
  CHECK_THROWS_WITH_AS(first.plan(h, 0, "--load"),
                       ("--load: NAME 'x' is given twice for other code (" + so + ":g and " + so + ":h)").c_str(),
                       InputError);
  LoadedCode second;
  REQUIRE_NOTHROW(second.plan(h, 0, "--load"));
  const KernelPlan ph = second.plan(h, 0, "--load");
  CHECK(ph.key == "lib/x");
  CHECK(ph.impl->symbol == "h");
  CHECK(pg.impl->symbol == "g");
  // Each RunOptions is a run of its own; its copies are the same run.
  const RunOptions a, b;
  const RunOptions a_again = a;
  CHECK(a.loaded != b.loaded);
  CHECK(a_again.loaded == a.loaded);
  a.loaded->plan(g, 0, "--load");
  CHECK_NOTHROW(b.loaded->plan(h, 0, "--load"));
  CHECK_THROWS_AS(a_again.loaded->plan(h, 0, "--load"), InputError);
}
