// The effects of `kex explain` on synthetic rounds with a known answer: each
// neighbour's time ratio to the kernel, what its interval allows to call at the 1% tie
// resolution (inside it: "no effect"), the order (largest effect first), the text, and
// the explain section's round trip through the results reader.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>

#include "src/core/error.hpp"
#include "src/model/explain.hpp"
#include "src/model/result_json.hpp"

using namespace kex;

namespace {

/// The canonical name of a short one ("copy/sse" -> "copy/sse/unroll:64/scratch:4/t/fwd").
std::string full(const std::string& name) { return spec_name(parse_spec_name(name)); }

/// A measured copy point at 4096 bytes, one repetition per round: `factor` times the
/// round's shared state times its own noise (sd `noise`, log scale).
Result explain_point(const std::string& kernel, double factor, const std::vector<double>& state, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, noise);
  Result r;
  r.point = {full(kernel), {}};
  r.point.at.size = 4096;
  r.op = Op::copy;
  r.kind = KernelKind::generated;
  r.tsc_hz = 1e9;
  for (size_t k = 0; k < state.size(); ++k) {
    Repetition rep;
    rep.per_call.n = 8;
    rep.per_call.median = 1000 * factor * state[k] * std::exp(n(rng));
    rep.round = k + 1;
    rep.stop_reason = "round";
    r.reps.push_back(rep);
  }
  return r;
}

Neighbour nb(const std::string& name, std::string coordinate, std::string from, std::string to) {
  return {parse_spec_name(name), std::move(coordinate), std::move(from), std::move(to), ""};
}

/// The kernel copy/sse and four neighbours 1.38x, 1.002x, 0.97x and (noisy) ~1.01x its time;
/// a fifth refused.
struct Synthetic {
  RunDoc run;
  ExplainTarget target;
};

Synthetic synthetic() {
  std::vector<double> state;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> drift(0.8, 1.6);
  for (int r = 0; r < 20; ++r) state.push_back(drift(rng));
  Synthetic s;
  s.run.results = {explain_point("copy/sse", 1.0, state, 0.002, 1), explain_point("copy/sse/nt", 1.38, state, 0.002, 2),
                   explain_point("copy/sse/bwd", 1.002, state, 0.002, 3), explain_point("copy/sse/unroll:128", 0.97, state, 0.002, 4),
                   explain_point("copy/sse/aligned", 1.01, state, 0.05, 5)};
  s.target.kernel = parse_spec_name("copy/sse");
  s.target.neighbours = {nb("copy/sse/bwd", "direction", "forward", "backward"), nb("copy/sse/aligned", "align", "unaligned", "aligned"),
                         nb("copy/sse/unroll:128", "unroll", "64", "128"), nb("copy/sse/nt", "store", "t", "nt"),
                         nb("copy/gpr/scratch:4", "regs", "sse", "gpr")};
  s.target.neighbours.back().refused = "this CPU lacks nothing, but the test says so";
  return s;
}

}  // namespace

TEST_CASE("explain: effects called only where the interval shows them, largest first" * doctest::test_suite("model")) {
  const Synthetic s = synthetic();
  const ExplainSection sec = explain_section(s.run, {s.target}, kTieResolution, 20);
  REQUIRE(sec.points.size() == 1);
  const ExplainPoint& p = sec.points[0];
  CHECK(p.kernel == full("copy/sse"));
  CHECK(p.group == "copy 4096");
  CHECK(p.rounds == 20);
  REQUIRE(p.effects.size() == 5);
  CHECK(p.effects[0].neighbour == full("copy/sse/nt"));
  CHECK(p.effects[0].ratio == doctest::Approx(1.38).epsilon(0.005));
  CHECK(p.effects[0].rounds == 20);
  CHECK(call_of(p.effects[0], kTieResolution) == EffectCall::kernel_faster);
  CHECK(p.effects[1].neighbour == full("copy/sse/unroll:128"));
  CHECK(call_of(p.effects[1], kTieResolution) == EffectCall::neighbour_faster);
  CHECK(p.effects[2].neighbour == full("copy/sse/aligned"));
  CHECK(call_of(p.effects[2], kTieResolution) == EffectCall::unresolved);
  CHECK(p.effects[3].neighbour == full("copy/sse/bwd"));  // 0.2% slower: inside the 1% tie resolution
  CHECK(call_of(p.effects[3], kTieResolution) == EffectCall::none);
  CHECK(effect_text(p.effects[3], kTieResolution) == "direction forward -> backward: no effect (within \u00b11%)");
  CHECK(p.effects[4].neighbour == full("copy/gpr/scratch:4"));
  CHECK(effect_text(p.effects[4], kTieResolution) ==
        "regs sse -> gpr: not run: this CPU lacks nothing, but the test says so");
  const std::string nt = effect_text(p.effects[0], kTieResolution);
  CHECK(nt.rfind("store t -> nt: 1.38x the time [1.3", 0) == 0);
  CHECK(nt.substr(nt.size() - 13) == ": t is faster");
  CHECK(effect_text(p.effects[1], kTieResolution).find("0.97x the time [") != std::string::npos);
  CHECK(effect_text(p.effects[1], kTieResolution).find(": 128 is faster") != std::string::npos);
  // At a 0.1% resolution the same 0.2% difference is no longer "no effect".
  CHECK(call_of(p.effects[3], 0.001) != EffectCall::none);
}

TEST_CASE("explain: a neighbour missing from the run or not measured says so" * doctest::test_suite("model")) {
  Synthetic s = synthetic();
  s.run.results[1].status = Status(StatusKind::error, "verification failed at 4096 bytes");
  s.run.results.pop_back();  // copy/sse/aligned
  const ExplainSection sec = explain_section(s.run, {s.target}, kTieResolution, 20);
  REQUIRE(sec.points.size() == 1);
  std::map<std::string, std::string> why;
  for (const ExplainEffect& e : sec.points[0].effects) why[e.neighbour] = e.refused;
  CHECK(why[full("copy/sse/nt")] == "verification failed at 4096 bytes");
  CHECK(why[full("copy/sse/aligned")] == "not measured in this run");
  CHECK(why[full("copy/sse/bwd")].empty());
}

TEST_CASE("explain: the section round-trips through the results reader, a file without it reads" *
          doctest::test_suite("model")) {
  const Synthetic s = synthetic();
  RunDoc run = s.run;
  run.context.explain = explain_section(s.run, {s.target}, kTieResolution, 20);
  run.context.explain->core = {{"copy/sse/unroll:64/scratch:4/t/fwd", "znver3", "LLVM 14 has no Zen 5 model: znver3 used",
                                "", 2.03, 2.0, 64, 4096, 2.5, "imul-chain estimate"},
                               {"copy/string/unroll:8/t/fwd", "", "", "no marked loop", 0, 0, 8, 4096, 0, ""}};
  run.context.explain->pmu = "no PMU here (ENOENT): no cache-miss or store counts";
  run.context.explain->points.at(0).counters = {{"llc-misses", 0.015625}, {"stores", 0.0625}};
  const nlohmann::json j = nlohmann::json(to_json(run));
  REQUIRE(j["context"].contains("explain"));
  const RunDoc back = docs_from_json(j, "e.json").at(0);
  REQUIRE(back.context.explain.has_value());
  CHECK(*back.context.explain == *run.context.explain);
  nlohmann::json without = j;
  without["context"].erase("explain");
  CHECK(!docs_from_json(without, "e.json").at(0).context.explain.has_value());
  nlohmann::json bad = j;
  bad["context"]["explain"]["points"][0]["effects"][0]["ratio"] = "fast";
  CHECK_THROWS_AS(docs_from_json(bad, "e.json"), InputError);
  bad = j;
  bad["context"]["explain"]["core"][0]["predicted_cycles"] = -1;
  CHECK_THROWS_AS(docs_from_json(bad, "e.json"), InputError);
  // A file written before the model of the core (no core, pmu or counters) reads as before.
  nlohmann::json older = j;
  older["context"]["explain"].erase("core");
  older["context"]["explain"].erase("pmu");
  older["context"]["explain"]["points"][0].erase("counters");
  const RunDoc old = docs_from_json(older, "e.json").at(0);
  CHECK(old.context.explain->core.empty());
  CHECK(old.context.explain->pmu.empty());
  CHECK(old.context.explain->points.at(0).counters.empty());
}
