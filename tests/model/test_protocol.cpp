// The protocol typed once: a config's request, the journal header's protocol and
// context.protocol hold one Protocol, and the request and the header share one field table.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/context.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/protocol.hpp"
#include "src/model/protocol_fields.hpp"
#include "src/model/result_json.hpp"

using namespace kex;

namespace {

const char* kKernels = R"("sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}])";

Config config_with(const std::string& knobs) {
  return parse_config(std::string("{") + kKernels + ", " + knobs + "}", "t.json");
}

std::string protocol_error(const std::string& knobs) {
  try {
    config_with(knobs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// A protocol with every knob away from its default.
Protocol every_knob() {
  Protocol p;
  p.repetitions = 7;
  p.paired = false;
  p.shuffle = false;
  p.seed = UINT64_MAX;
  p.cpu = 1;
  p.sentinel = {false, 3, 0.5, 9, 1.5, 16 << 20};
  p.task_timeout_s = 90;
  p.counters = {"cycles", "instructions"};
  p.round = {4, 1, 25, 1000, 0};
  p.tasks_per_worker = 50;
  p.placement = parse_placement("1,0", "t");
  return p;
}

}  // namespace

TEST_CASE("a config's protocol request sets its knobs and no others" * doctest::test_suite("protocol")) {
  const Config c = config_with(R"("repetitions": 5, "protocol": {"seed": 42, "pairing": "separate", "round_block": 4})");
  Protocol p;
  p.cpu = 3;  // set by someone else: a request that does not name it leaves it
  c.protocol.apply(p);
  Protocol want;
  want.cpu = 3;
  want.repetitions = 5;
  want.seed = 42;
  want.paired = false;
  want.round.block = 4;
  CHECK(p == want);
  CHECK(c.protocol.sets("seed"));
  CHECK_FALSE(c.protocol.sets("cpu"));
  CHECK_FALSE(c.protocol.sets("placement"));
  CHECK_THROWS_AS(c.protocol.sets("preset_fsave"), std::logic_error);  // no knob: a typo stays loud
  // No request: nothing changes.
  Protocol untouched;
  config_with(R"("precision": 0.02)").protocol.apply(untouched);
  CHECK(untouched == Protocol{});
}

TEST_CASE("the journal header's protocol reads back as a config's request: one field table" *
          doctest::test_suite("protocol")) {
  const Protocol p = every_knob();
  nlohmann::json j;
  FieldWriter w(j);
  map_protocol(w, p);
  const Config c = config_with("\"protocol\": " + j.dump());
  Protocol back;
  c.protocol.apply(back);
  CHECK(back == p);
  // And read back exactly as a journal header reads it.
  Protocol exact;
  FieldReader r(j, "j", Keys::exact);
  map_protocol(r, exact);
  r.finish();
  CHECK(exact == p);
}

TEST_CASE("a bad protocol knob in a config is one line naming the JSON path" * doctest::test_suite("protocol")) {
  CHECK(protocol_error(R"("protocol": {"round_samples": 1})") ==
        "t.json: /protocol/round_samples: 1: expected an integer in 2..1000");
  CHECK(protocol_error(R"("protocol": {"pairing": "both"})") ==
        "t.json: /protocol/pairing: \"both\": allowed: rounds (a group's points measured together), separate");
  CHECK(protocol_error(R"("protocol": {"seed": null})") == "t.json: /protocol/seed: null: expected an integer in 0..18446744073709551615");
  CHECK(protocol_error(R"("protocol": {"placement": "0,0"})") ==
        "t.json: /protocol/placement: \"0,0\": allowed: spread, compact, or a CPU list such as 0,2-3");
  CHECK(protocol_error(R"("protocol": {"counters": ["a,b"]})") ==
        "t.json: /protocol/counters/0: \"a,b\": allowed: an event name (kex info lists them)");
  CHECK(protocol_error(R"("protocol": [1])") == "t.json: /protocol: [1]: expected an object");
  CHECK(protocol_error(R"("repetitions": 0)") == "t.json: /repetitions: 0: expected an integer in 1..1000");
  CHECK(protocol_error(R"("repetitions": 2, "protocol": {"repetitions": 3})") ==
        "t.json: /repetitions: given in /protocol too: give it once");
  const std::string unknown = protocol_error(R"("protocol": {"sentinel_evry": 3})");
  CHECK(unknown.rfind("t.json: /protocol/sentinel_evry: unknown key (allowed: ", 0) == 0);
  CHECK(unknown.find("sentinel_every") != std::string::npos);
}

TEST_CASE("a seed up to 2^64-1 is accepted wherever a seed is given" * doctest::test_suite("protocol")) {
  // A config once allowed only 2^63-1, the command line, journal and results 2^64-1.
  Protocol p;
  config_with(R"("protocol": {"seed": 18446744073709551615})").protocol.apply(p);
  CHECK(p.seed == UINT64_MAX);
}

TEST_CASE("context.protocol is the Protocol the run measured with, in the results' layout" *
          doctest::test_suite("protocol")) {
  ProtocolRecord rec(every_knob());
  rec.placement = {PlacementMode::compact, {}};  // the results keep the mode, with where each worker ran
  rec.threads = {{1, 1, 0, 0}, {0, 0, 0, 0}};
  rec.workers_started = 2;
  CHECK(rec.counters.empty());  // context.counters records them
  CHECK(rec.task_timeout_s == Protocol{}.task_timeout_s);
  RunDoc d;
  d.context.protocol = rec;
  const nlohmann::json j = to_json(d);
  const nlohmann::json& pj = j.at("context").at("protocol");
  CHECK(pj.at("pairing") == "separate");
  CHECK(pj.at("worker_cpu") == 1);
  CHECK(pj.at("sentinel").at("memory_bytes") == 16 << 20);
  CHECK(pj.at("placement") == "compact");
  CHECK_FALSE(pj.contains("round"));  // written only for paired rounds
  const std::vector<RunDoc> back = docs_from_json(j, "r.json");
  REQUIRE(back.size() == 1);
  REQUIRE(back[0].context.protocol);
  ProtocolRecord want = rec;
  want.round = RoundPolicy{};  // not written for separate repetitions
  CHECK(*back[0].context.protocol == want);
  // A record without "pairing" is a kex before paired rounds.
  CHECK_FALSE(ProtocolRecord{}.paired);
}
