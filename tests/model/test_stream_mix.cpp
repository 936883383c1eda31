// Several streams raced as one workload (src/model/stream_mix.hpp): the weights, the mix's
// per-round times from each stream's rounds by ordinal, and the mixed size distribution.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/paired.hpp"
#include "src/model/stream_mix.hpp"

using namespace kex;

namespace {

/// A copy result of `kernel` on `stream` (pass of `bytes`): one repetition per round,
/// round ids first_round, first_round + 1, ... with medians `ticks`.
Result mix_member(const std::string& kernel, const std::string& stream, uint64_t bytes, uint64_t first_round,
                  const std::vector<double>& ticks) {
  Result r;
  r.point = {kernel, {}};
  r.point.at.stream = stream;
  r.point.at.size = bytes;
  r.op = Op::copy;
  r.tsc_hz = 1e9;
  for (size_t k = 0; k < ticks.size(); ++k) {
    Repetition rep;
    rep.per_call.n = 8;
    rep.per_call.median = ticks[k];
    rep.round = first_round + k;
    r.reps.push_back(rep);
  }
  return r;
}

const Result* mixed_of(const RunDoc& d, const std::string& kernel) {
  for (const Result& r : d.results)
    if (r.point.kernel == kernel) return &r;
  return nullptr;
}

std::string mix_error(const std::vector<std::string>& s, const std::vector<double>& w) {
  try {
    make_stream_mix(s, w, "--stream-weights");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("make_stream_mix scales the weights to 1 and refuses a mix it cannot weigh") {
  const StreamMix m = make_stream_mix({"Memcpy_0", "Memcpy_1"}, {3, 1}, "--stream-weights");
  CHECK(m.weights == std::vector<double>{0.75, 0.25});
  CHECK(m.name() == "Memcpy_0,Memcpy_1");
  CHECK(make_stream_mix({"a", "b", "c", "d"}, {}, "--stream").weights == std::vector<double>(4, 0.25));
  CHECK(mix_error({"a"}, {}) == "--stream-weights: a mix of streams needs two or more");
  CHECK(mix_error(std::vector<std::string>(65, "s"), {}) == "--stream-weights: 65 streams: a mix takes at most 64");
  CHECK(mix_error({"a", "a"}, {}) == "--stream-weights: 'a' is given twice: give each stream once");
  CHECK(mix_error({"a", "b"}, {1}) ==
        "--stream-weights: 1 weights for 2 streams: give one weight per stream, in the streams' order");
  CHECK(mix_error({"a", "b"}, {1, 0}).find("each must be a number above 0") != std::string::npos);
  CHECK(mix_error({"a", "b"}, {1, -2}).find("each must be a number above 0") != std::string::npos);
}

TEST_CASE("mix_streams weighs each round's times by stream, pairing rounds by their ordinal on each stream") {
  RunDoc d;
  // Stream A's rounds are ids 1..5, B's 11..15: B's third round (id 13) was slow for both kernels.
  d.results.push_back(mix_member("x", "A", 1000, 1, {100, 100, 100, 100, 100}));
  d.results.push_back(mix_member("y", "A", 1000, 1, {200, 200, 200, 200, 200}));
  d.results.push_back(mix_member("x", "B", 3000, 11, {400, 400, 800, 400, 400}));
  d.results.push_back(mix_member("y", "B", 3000, 11, {100, 100, 200, 100, 100}));
  d.results.push_back(mix_member("only_a", "A", 1000, 1, {50, 50, 50, 50, 50}));  // not on B: left out
  Result fixed = mix_member("x", "", 64, 21, {7, 7, 7});  // a fixed size's point: passes as it is
  d.results.push_back(fixed);
  Result failed = mix_member("z", "B", 3000, 11, {});
  failed.status = {StatusKind::error, "byte 3 differs"};
  d.results.push_back(mix_member("z", "A", 1000, 1, {10, 10, 10, 10, 10}));
  d.results.push_back(failed);

  const RunDoc even = mix_streams(d, make_stream_mix({"A", "B"}, {}, "--stream"));
  REQUIRE(even.results.size() == 4);  // x, y and z on the mix, x's fixed size
  const Result* x = mixed_of(even, "x");
  REQUIRE(x);
  CHECK(x->point.at.stream == "A,B");
  CHECK(x->point.at.size == 2000);  // half of each pass's bytes
  REQUIRE(x->reps.size() == 5);
  CHECK(x->reps[2].round == 3);
  CHECK(x->reps[0].per_call.median == doctest::Approx(250));
  CHECK(x->reps[2].per_call.median == doctest::Approx(450));  // 100/2 + 800/2: B's slow round with A's third
  CHECK(mixed_of(even, "y")->reps[2].per_call.median == doctest::Approx(200));
  CHECK(mixed_of(even, "only_a") == nullptr);
  CHECK(even.results[2] == fixed);  // in its place: after x and y, whose first points came first
  const Result* z = mixed_of(even, "z");
  REQUIRE(z);
  CHECK(z->status.kind == StatusKind::error);
  CHECK(z->reps.empty());

  // Evenly, y is faster (150 against 250 ticks); with A weighing 0.9, x is (130 against 190).
  const auto winner = [](const RunDoc& doc) {
    for (const GroupAnswer& g : answer_groups(doc))
      if (g.key.at.stream == "A,B") return doc.results[g.members.front().result].point.kernel;
    return std::string("none");
  };
  CHECK(winner(even) == "y");
  CHECK(paired_ratio(round_times(*x), round_times(*mixed_of(even, "y"))).ratio == doctest::Approx(250.0 / 150));
  CHECK(winner(mix_streams(d, make_stream_mix({"A", "B"}, {9, 1}, "--stream"))) == "x");
}

TEST_CASE("mix_distributions draws a call from each stream by its weight") {
  const Distribution a = parse_distribution("8,1\n16,1\n", "a", "a.csv");
  const Distribution b = parse_distribution("16,1\n1024,1\n", "b", "b.csv");
  const Distribution even = mix_distributions({a, b}, {0.5, 0.5});
  CHECK(even.name == "a,b");
  CHECK(even.sizes == std::vector<uint64_t>{8, 16, 1024});
  REQUIRE(even.cumulative.size() == 3);
  CHECK(even.cumulative[0] == doctest::Approx(0.25));
  CHECK(even.cumulative[1] == doctest::Approx(0.75));
  CHECK(even.cumulative[2] == 1);
  CHECK(distribution_quantile(even, 0.5) == 16);
  CHECK(distribution_quantile(even, 0.9) == 1024);
  const Distribution mostly_a = mix_distributions({a, b}, {0.9, 0.1});
  CHECK(distribution_quantile(mostly_a, 0.5) == 16);
  CHECK(distribution_quantile(mostly_a, 0.4) == 8);
  CHECK(distribution_quantile(mostly_a, 0.96) == 1024);
}
