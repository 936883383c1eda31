// A fixed stream run for golden-file tests: four competitors on a stream drawn from
// Memcpy_Fleet (64 KiB footprint, 4,096 calls a pass) in 12 paired rounds, and the same
// four at the fixed sizes measured beside it (8 B, 64 B, 1 KiB), with the stream's record
// as kex run writes it (facts and CDF from the shipped distribution, fixed-size shares).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "src/model/distribution.hpp"
#include "tests/support/golden.hpp"

namespace golden {

/// The stream's coordinates, on a point of `size` bytes (a pass's bytes).
inline Coords stream_at(uint64_t size) {
  Coords c;
  c.size = size;
  c.stream = "Memcpy_Fleet";
  c.footprint = 65536;
  c.stream_seed = 1;
  c.stream_calls = 4096;
  return c;
}

/// rep_movsb as kex names it: a baseline with the string spec.
inline Result rep_movsb(uint64_t size, double ticks) {
  Result r;
  r.point = {"rep_movsb", {}};
  r.point.at.size = size;
  r.kind = KernelKind::baseline;
  r.op = Op::copy;
  KernelSpec s = default_spec(Op::copy, RegClass::string);
  s.unroll = 1;
  r.spec = s;
  r.tsc_hz = 2.0e9;
  r.placed = Placement{};
  r.reps.push_back(rep(ticks, 8, {uint64_t(ticks * 8)}, "precision"));
  return r;
}

/// `r` measured in 12 paired rounds at `ticks` per operation: each round's time is the
/// member's times a machine state the round shares and a small wobble of its own (its
/// phase `phase` among the members).
inline Result in_rounds(Result r, double ticks, double wobble, size_t phase) {
  static const std::vector<double> state = {1.0, 1.5, 1.1, 1.0, 1.4, 1.2, 1.0, 1.05, 1.6, 1.0, 1.3, 1.1};
  r.reps.clear();
  for (size_t k = 0; k < state.size(); ++k) {
    const double t = ticks * state[k] * (1 + wobble * (double((k * 7 + phase) % 5) - 2.0) / 2);
    Repetition x = rep(t, 1, {uint64_t(std::llround(t))}, "round");
    x.round = k + 1;
    x.harness_ticks = 4.0 * calls_per_operation(r.point.at);  // the empty routine: 4 ticks (2 ns) a call
    r.reps.push_back(x);
  }
  return r;
}

/// The fixed stream run.
inline RunDoc stream_run() {
  RunDoc d = run();
  d.results.clear();
  const Distribution fleet = *shipped_distribution("Memcpy_Fleet");
  const DistributionFacts f = distribution_facts(fleet);
  StreamRecord s;
  s.name = "Memcpy_Fleet";
  s.footprint_asked = "65536";
  s.footprint = 65536;
  s.seed = 1;
  s.calls = 4096;
  s.bytes = 552960;  // 135 B a call
  s.mean = f.mean;
  s.p50 = f.p50;
  s.p90 = f.p90;
  s.p99 = f.p99;
  s.max = f.max;
  s.distinct = f.distinct;
  s.capped = 3;
  s.fixed_weights = {{8, 0.6}, {64, 0.3}, {1024, 0.1}};
  s.cdf = f.cdf;
  d.context.streams.push_back(s);
  // ns per call on the stream (2 ticks a ns) and at each fixed size: rep movsb fastest on
  // the stream, the vector loop fastest at the fixed sizes (their prediction gets it wrong).
  struct Member {
    std::string kernel;
    double stream_ns;
    double fixed_ns[3];
  };
  const Member members[] = {{"rep_movsb", 6.0, {8, 9, 30}},
                            {"memcpy", 10.0, {4, 5, 20}},
                            {"copy/avx/unroll:64/scratch:4/t/fwd/overlap", 9.0, {3.5, 4.5, 18}},
                            {"copy/sse/unroll:64/scratch:4/t/fwd/overlap", 12.0, {5, 6, 25}}};
  auto make = [&](const std::string& k, uint64_t size, double ticks) {
    if (k == "rep_movsb") return rep_movsb(size, ticks);
    if (k == "memcpy") return baseline("memcpy", size, {}, ticks);
    return generated(k, size, {}, ticks);
  };
  size_t phase = 0;
  for (const Member& m : members) {
    Result r = make(m.kernel, s.bytes, 1);
    const Coords at = stream_at(s.bytes);
    r.point.at.stream = at.stream;
    r.point.at.footprint = at.footprint;
    r.point.at.stream_seed = at.stream_seed;
    r.point.at.stream_calls = at.stream_calls;
    d.results.push_back(in_rounds(r, m.stream_ns * 2 * s.calls, 0.02, phase++));
  }
  for (size_t i = 0; i < 3; ++i)
    for (const Member& m : members) {
      const uint64_t size = s.fixed_weights[i].first;
      d.results.push_back(in_rounds(make(m.kernel, size, 1), m.fixed_ns[i] * 2, 0.02, phase++));
    }
  return d;
}

}  // namespace golden
