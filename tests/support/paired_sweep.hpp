// Synthetic copy (and clear) sweeps measured in paired rounds, for the crossover and
// workload tests: each kernel's true GB/s per size, a machine state per round shared
// by every member of the round (it cancels out of paired ratios), and each member's
// own noise per round (what the intervals over rounds must cover).
#pragma once
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/spec.hpp"

namespace paired_sweep {

using namespace kex;

struct Kernel {
  std::string name;          ///< a spec name, "rep_movsb", "rep_stosb", "memcpy" or "memset"
  std::vector<double> gbps;  ///< true GB/s per size (the sweep's sizes, in order)
  double noise = 0.005;      ///< sd of its own log-noise per round
};

inline Result member(const std::string& name, uint64_t size) {
  Result r;
  r.point.kernel = name;
  r.point.at.size = size;
  r.tsc_hz = 1e9;  // 1 tick = 1 ns
  if (name == "rep_movsb" || name == "rep_stosb") {
    r.kind = KernelKind::baseline;
    r.op = name == "rep_movsb" ? Op::copy : Op::clear;
    KernelSpec s = default_spec(r.op, RegClass::string);
    s.unroll = 1;
    r.spec = s;
  } else if (name == "memcpy" || name == "memset") {
    r.kind = KernelKind::baseline;
    r.op = name == "memcpy" ? Op::copy : Op::clear;
    r.libc = LibcFacts{*parse_function(name)};
  } else {
    r.kind = KernelKind::generated;
    r.spec = parse_spec_name(name);
    r.op = r.spec->op;
  }
  return r;
}

/// The sweep: every kernel at every size, `rounds` rounds each (round ids 1..rounds per
/// size); the machine state of a round is 1 or 1.6 times a drift, the same for every
/// member of that round.
inline RunDoc sweep(const std::vector<double>& sizes, const std::vector<Kernel>& kernels, size_t rounds = 15,
                    uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution slow(0.3);
  std::uniform_real_distribution<double> drift(0.95, 1.1);
  RunDoc d;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<double> state;
    for (size_t k = 0; k < rounds; ++k) state.push_back((slow(rng) ? 1.6 : 1.0) * drift(rng));
    for (const Kernel& kn : kernels) {
      Result r = member(kn.name, uint64_t(sizes[i]));
      std::normal_distribution<double> noise(0, kn.noise);
      for (size_t k = 0; k < rounds; ++k) {
        Repetition rep;
        rep.per_call.n = 8;
        rep.per_call.median = sizes[i] / kn.gbps[i] * state[k] * std::exp(noise(rng));
        rep.per_call.min = rep.per_call.p10 = rep.per_call.ci_low = rep.per_call.median * 0.99;
        rep.per_call.max = rep.per_call.p90 = rep.per_call.ci_high = rep.per_call.median * 1.01;
        rep.calls_per_sample = 1;
        rep.round = k + 1;
        rep.stop_reason = "round";
        r.reps.push_back(rep);
      }
      d.results.push_back(r);
    }
  }
  return d;
}

/// Sizes 2^lo .. 2^hi bytes.
inline std::vector<double> pow2(int lo, int hi) {
  std::vector<double> v;
  for (int e = lo; e <= hi; ++e) v.push_back(std::exp2(e));
  return v;
}

}  // namespace paired_sweep
