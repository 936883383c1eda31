// The config writer (config_json, make_config): every config kex ships reads back to
// the same fields, its text validates against the config schema, and a config kex makes
// itself is checked as a user's is.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/config_json.hpp"
#include "src/model/spec.hpp"
#include "tests/support/schema.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

/// The shipped configs and examples that read on any machine (a load names musl's archive
/// as text only: reading a config opens nothing).
std::vector<std::string> shipped_configs() {
  std::vector<std::string> out;
  for (const char* dir : {"/configs", "/examples"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(KEX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("every shipped config written by config_json reads back to the same config, and its text validates" *
          doctest::test_suite("config")) {
  // The round trip a config kex drafts must survive (make_config checks the typed record
  // instead): written as JSON text and read back, the same fields.
  TmpDir d;
  const std::vector<std::string> files = shipped_configs();
  REQUIRE(files.size() >= 9);
  std::vector<std::string> written;
  for (const std::string& f : files) {
    CAPTURE(f);
    const Config c = load_config(f);
    const Config back = parse_config(config_json(c).dump(), f);
    const Config made = make_config(c, f);  // the typed check: the same config as the round trip
    CHECK(config_json(made) == config_json(back));
    CHECK(made.axes == back.axes);
    CHECK(made.raw == config_json(c));
    REQUIRE(made.grids.size() == back.grids.size());
    for (size_t i = 0; i < made.grids.size(); ++i) {
      CHECK(made.grids[i].specs == back.grids[i].specs);
      CHECK(made.grids[i].axes == back.grids[i].axes);
    }
    CHECK(config_json(back) == config_json(c));
    CHECK(back.axes == c.axes);
    CHECK(back.baselines == c.baselines);
    CHECK(back.presets == c.presets);
    CHECK(back.loads == c.loads);
    CHECK(back.policy == c.policy);
    CHECK(back.segments == c.segments);
    CHECK(back.protocol.knobs() == c.protocol.knobs());
    size_t specs = 0, back_specs = 0;
    for (const Grid& g : c.grids) specs += g.specs.size();
    for (const Grid& g : back.grids) back_specs += g.specs.size();
    CHECK(back_specs == specs);
    written.push_back(d / ("w" + std::to_string(written.size()) + ".json"));
    std::ofstream(written.back()) << config_json(c).dump(1);
  }
  // Each written text validates (one python3 for all of them), and a wrong one after them
  // does not: the batch tells the files apart.
  written.push_back(d / "wrong.json");
  std::ofstream(written.back()) << R"({"sizes": [256], "max_time_per_point": "slow"})";
  const std::vector<std::string> verdicts =
      schema_verdicts(written, std::string(KEX_SOURCE_DIR) + "/configs/schema/config.schema.json");
  for (size_t i = 0; i < files.size(); ++i) CHECK_MESSAGE(verdicts[i] == "valid", files[i] << ": " << verdicts[i]);
  CHECK(verdicts.back() == "invalid: 'slow' is not of type 'number'");
}

TEST_CASE("a grid's own axes are written with its kernel, and only where they differ from the top level's" *
          doctest::test_suite("config")) {
  const Config c = parse_config(R"({"sizes": [64, 4096], "cache": ["warm", "cold"],
    "kernels": [{"op": "copy", "regs": "sse", "unroll": [64, 128], "sizes": [256], "layout": {"distance": [-64, null]}},
                {"op": "clear", "regs": "avx", "threads": [1, 2]}], "baselines": ["memcpy"], "precision": 0.02,
    "protocol": {"seed": 7}, "segments": {"iterations": 5000}})", "t.json");
  const nlohmann::json j = config_json(c);
  REQUIRE(j["kernels"].size() == 3);
  CHECK(j["kernels"][0]["unroll"] == 64);
  CHECK(j["kernels"][1]["unroll"] == 128);
  CHECK(j["kernels"][0]["sizes"] == nlohmann::json::array({256}));
  CHECK(j["kernels"][0]["layout"] == nlohmann::json::parse(R"({"distance": [-64, null]})"));
  CHECK_FALSE(j["kernels"][0].contains("cache"));
  CHECK(j["kernels"][2]["threads"] == nlohmann::json::array({1, 2}));
  CHECK_FALSE(j["kernels"][2].contains("sizes"));
  CHECK(j["cache"] == nlohmann::json::array({"warm", "cold"}));
  CHECK(j["baselines"] == nlohmann::json::array({"memcpy"}));
  CHECK(j["precision"] == 0.02);
  CHECK_FALSE(j.contains("max_time_per_point"));
  CHECK(j["protocol"] == nlohmann::json::parse(R"({"seed": 7})"));
  CHECK(j["segments"]["iterations"] == 5000);
}

TEST_CASE("make_config checks a config kex makes as it checks a user's" * doctest::test_suite("config")) {
  Config draft;
  draft.description = "made";
  draft.axes.sizes = {4096};
  draft.grids = {spec_grid_of(parse_spec_name("copy/avx/unroll:256"), draft.axes)};
  const Config c = make_config(draft, "made here");
  CHECK(c.source == "made here");
  CHECK(c.description == "made");
  CHECK(c.raw["description"] == "made");
  REQUIRE(c.grids.size() == 1);
  CHECK(c.grids[0].specs == draft.grids[0].specs);
  CHECK(c.baselines.empty());  // none asked for: written false
  // Buffers beyond this machine's memory: the user's error, as for a file.
  Config big = draft;
  big.axes.sizes = {uint64_t(1) << 50};
  big.grids = {spec_grid_of(parse_spec_name("copy/avx/unroll:256"), big.axes)};
  CHECK_THROWS_WITH_AS(make_config(big, "made here"), doctest::Contains("made here: /sizes/0"), InputError);
  // Sizes out of order read back sorted: a caller's bug, not the user's.
  Config unsorted = draft;
  unsorted.axes.sizes = {8192, 4096};
  unsorted.grids = {spec_grid_of(parse_spec_name("copy/avx/unroll:256"), unsorted.axes)};
  CHECK_THROWS_AS(make_config(unsorted, "made here"), std::logic_error);
  // Nothing to run is refused as in a file.
  Config empty;
  CHECK_THROWS_WITH_AS(make_config(empty, "made here"), doctest::Contains("nothing to run"), InputError);
}

TEST_CASE("make_config checks the typed fields with the reader's forms and paths, never reading text back" *
          doctest::test_suite("config")) {
  Config draft;
  draft.axes.sizes = {64, 4096};
  Grid two;
  two.axes = draft.axes;
  two.specs = {parse_spec_name("copy/avx/unroll:256"), parse_spec_name("copy/sse/unroll:64")};
  draft.grids = {two};
  const Config c = make_config(draft, "made");
  // One grid per spec, as its JSON lists them; its JSON is what config_json writes.
  REQUIRE(c.grids.size() == 2);
  CHECK(c.grids[1].specs == std::vector<KernelSpec>{two.specs[1]});
  CHECK(c.grids[1].axes == draft.axes);
  CHECK(c.raw == config_json(draft));
  // A value out of its form's range: the reader's message at the reader's path.
  Config threads = draft;
  threads.axes.threads = {0};
  CHECK_THROWS_WITH_AS(make_config(threads, "made"), doctest::Contains("made: /threads/0: 0: out of range (allowed 1.."),
                       InputError);
  Config precision = draft;
  precision.policy.precision = 2;
  CHECK_THROWS_WITH_AS(make_config(precision, "made"), "made: /precision: 2.0: expected a number in 0.0001..0.5",
                       InputError);
  // The checks across fields: a minimum above its maximum, a NAME loaded twice.
  Config samples = draft;
  samples.policy.min_samples = 50;
  samples.policy.max_samples = 10;
  CHECK_THROWS_WITH_AS(make_config(samples, "made"), "made: /max_samples: 10: must be >= min_samples (50)", InputError);
  Config loads = draft;
  loads.loads = {{"x", "a.so", "f", Function::memcpy}, {"x", "b.so", "g", Function::memcpy}};
  CHECK_THROWS_WITH_AS(make_config(loads, "made"), doctest::Contains("made: /load: NAME 'x' is given twice"), InputError);
  // An invalid spec in a grid: named at its place in the kernels' list.
  Config invalid = draft;
  invalid.grids[0].specs[1].unroll = 3;
  CHECK_THROWS_WITH_AS(make_config(invalid, "made"), doctest::Contains("made: /kernels/1: "), InputError);
  // A grid's axes listing a value twice: no reader gives that back.
  Config twice = draft;
  twice.grids[0].axes.caches = {CacheMode::warm, CacheMode::warm};
  CHECK_THROWS_AS(make_config(twice, "made"), std::logic_error);
}
