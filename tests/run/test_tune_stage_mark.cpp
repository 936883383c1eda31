// A tune journal's stage line (src/run/journal_tune.hpp) read back as written: a stream's race
// is journaled as size 0, which a resume must read (every --stream tune's journal has it).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/run/journal_tune.hpp"

using namespace kex;

TEST_CASE("a tune stage line round-trips, a stream's race (size 0) and a composition step among them" *
          doctest::test_suite("tune")) {
  TuneStageMark m;
  m.stage = 7;
  m.rounds = 10;
  m.sizes = {0};
  m.compose = true;
  m.seconds = 1.5;
  m.used_s = 12.25;
  const TuneStageMark back = tune_stage_from(to_json(m), "t.journal:3");
  CHECK(back.stage == 7);
  CHECK(back.rounds == 10);
  CHECK(back.sizes == std::vector<uint64_t>{0});
  CHECK(back.compose);
  CHECK(back.seconds == 1.5);
  CHECK(back.used_s == 12.25);
  nlohmann::json bad = to_json(m);
  bad["rounds"] = 0;
  CHECK_THROWS_AS(tune_stage_from(bad, "t.journal:3"), InputError);
}
