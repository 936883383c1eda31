// The field tables' forms for a config's values (src/model/json_fields.hpp one_or_list,
// OrToken, check_keys; src/model/config_forms.hpp): a value or a list, a number or a word,
// each both ways, and a wrong element named by its JSON path.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/config_forms.hpp"
#include "src/model/config_json.hpp"
#include "src/model/json_fields.hpp"
#include "tests/support/input_error.hpp"

using namespace kex;
using nlohmann::json;

namespace {

/// The chunk axis's form: a byte size, or "none" for 0.
const OrToken<uint64_t, config_forms::ByteSize> kChunk{json("none"), 0, config_forms::ByteSize{1, 1 << 20}};

/// The error text of parsing config `text` as "t.json" ("" when it parses).
std::string form_error(const std::string& text) {
  return input_error_of([&] { parse_config(text, "t.json"); });
}

}  // namespace

TEST_CASE("one_or_list reads a value or a list, and writes a list or, when asked, a lone value" *
          doctest::test_suite("config")) {
  const json in = json::parse(R"({"one": 5, "many": [7, 5, 7], "none": []})");
  FieldReader r(in, "f.json: ", Keys::partial);
  std::vector<uint32_t> one = {1}, many, kept = {9};
  const config_forms::Whole<uint32_t> form{1, 10};
  r.one_or_list("one", one, form);
  r.one_or_list("many", many, form);
  r.one_or_list("absent", kept, form);
  CHECK(one == std::vector<uint32_t>{5});
  CHECK(many == std::vector<uint32_t>{7, 5, 7});  // as listed: the axes' reader drops repeats
  CHECK(kept == std::vector<uint32_t>{9});        // partial: a missing key keeps its value
  CHECK_THROWS_WITH_AS(r.one_or_list("none", kept, form), "f.json: /none: []: an empty list gives no points",
                       InputError);

  json out;
  FieldWriter w(out);
  w.one_or_list("always", one, form);
  w.one_or_list("lone", one, form, Listed::when_many);
  w.one_or_list("many", many, form, Listed::when_many);
  CHECK(out == json::parse(R"({"always": [5], "lone": 5, "many": [7, 5, 7]})"));
}

TEST_CASE("OrToken: a number or a word (or null) both ways" * doctest::test_suite("config")) {
  CHECK(kChunk.read(json("none"), "at") == 0);
  CHECK(kChunk.read(json("4KiB"), "at") == 4096);
  CHECK(kChunk.read(json(512), "at") == 512);
  CHECK(kChunk.write(0) == json("none"));
  CHECK(kChunk.write(4096) == json(4096));
  CHECK_THROWS_WITH_AS(kChunk.read(json("nothing"), "t.json: /chunk/1"),
                       doctest::Contains("t.json: /chunk/1: \"nothing\": expected a byte size"), InputError);
  CHECK_THROWS_WITH_AS(kChunk.read(json(0), "t.json: /chunk"), doctest::Contains("t.json: /chunk: 0: out of range"),
                       InputError);
  const OrToken distance{json(nullptr), std::optional<int64_t>(), config_forms::Signed{-64, 64}};
  CHECK(distance.read(json(nullptr), "at") == std::nullopt);
  CHECK(distance.read(json(-64), "at") == -64);
  CHECK(distance.write(std::nullopt) == json(nullptr));
  CHECK(distance.write(-64) == json(-64));
}

TEST_CASE("a wrong element of a config's axis names its JSON path, its value and what is allowed" *
          doctest::test_suite("config")) {
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": [64, "x"]}]})") ==
        "t.json: /kernels/0/unroll/1: \"x\": expected an integer in 1..8192");
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "store": ["t", "fast"]}]})") ==
        "t.json: /kernels/0/store/1: \"fast\": allowed: temporal, nontemporal");
  CHECK(form_error(R"({"sizes": [64], "chunk": ["none", "lots"], "kernels": [{"op": "copy", "regs": "sse"}]})")
            .find("t.json: /chunk/1: \"lots\": expected a byte size") == 0);
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "layout": {"distance": [null, true]}}]})") ==
        "t.json: /kernels/0/layout/distance/1: true: expected an integer");
  CHECK(form_error(R"({"sizes": [], "kernels": [{"op": "copy", "regs": "sse"}]})") ==
        "t.json: /sizes: []: an empty list gives no points");
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "block": {"order": "forward"}}]})") ==
        "t.json: /kernels/0/block/bytes: 0: out of range (allowed 64 B .. 1 MiB)");
  // Unknown keys are named before any value is read: a typo is not reported as something else.
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": 24, "cach": "cold"}]})")
            .find("t.json: /kernels/0/cach: unknown key (allowed: align, block, cache,") == 0);
  CHECK(form_error(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "cache": "hot", "bogus": 1})")
            .find("t.json: /bogus: unknown key (allowed: $schema, baselines, cache,") == 0);
  // The top level's names are checked first, as kex always did.
  CHECK(form_error(R"({"name": {}, "bogus": 1, "sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}]})") ==
        "t.json: /name: {}: expected a string");
}

TEST_CASE("a grid's words, numbers and objects read back as written" * doctest::test_suite("config")) {
  const Config c = parse_config(R"({"sizes": [4096], "chunk": ["none", "1KiB"], "prefill": ["none", 7],
    "kernels": [{"op": "clear", "regs": "avx", "unroll": 256, "prefetch": "w@512", "pf_every": 64, "fill": 9,
                 "direction": "bwd", "store": "nt", "block": 0},
                {"op": "copy", "regs": "avx", "unroll": 256, "block": {"bytes": "4KiB", "order": "fwd"},
                 "edges": "overlap", "threads": [1, 2]}],
    "presets": "reference", "harness": "kex", "repeat": 1, "baselines": true})", "t.json");
  const json j = config_json(c);
  CHECK(j["chunk"] == json::parse(R"(["none", 1024])"));
  CHECK(j["prefill"] == json::parse(R"(["none", 7])"));
  REQUIRE(j["kernels"].size() == 2);
  const json& clear = j["kernels"][0];
  CHECK(clear["prefetch"] == "w@512");
  CHECK(clear["pf_every"] == 64);
  CHECK(clear["fill"] == 9);
  CHECK(clear["direction"] == "backward");
  CHECK(clear["store"] == "nontemporal");
  CHECK_FALSE(clear.contains("block"));
  const json& copy = j["kernels"][1];
  CHECK(copy["block"] == json::parse(R"({"bytes": 4096, "order": "forward"})"));
  CHECK(copy["edges"] == "overlap");
  CHECK(copy["threads"] == json::parse("[1, 2]"));
  CHECK_FALSE(copy.contains("fill"));
  CHECK(j["presets"] == json::parse(R"(["reference"])"));
  CHECK_FALSE(j.contains("harness"));  // kex, once: the defaults are not written
  CHECK(j["baselines"].size() == 4);
  CHECK(config_json(parse_config(j.dump(), "again")) == j);
  CHECK(config_json(make_config(c, "again")) == j);
}
