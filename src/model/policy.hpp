// The measuring policy of a config: how long and how precisely each point is sampled. One
// type, set by a config (config_fields.hpp: map_policy) and recorded whole in the results'
// context (PolicyRecord, context.hpp).
#pragma once
#include <cstdint>

namespace kex {

/// The measurement policy (docs/DESIGN.md "Measuring").
struct Policy {
  double precision = 0.01;          ///< stop when the median's 95% CI half-width / median <= this
  double max_time_per_point = 0.25; ///< seconds of sampling per point at most
  double min_time_per_point = 0;    ///< seconds of sampling before the precision may stop it: a
                                    ///< repetition then spans many flips of a two-state core
                                    ///< (benchmarks/results/2026-12-01-two-states.md)
  uint32_t min_samples = 11;
  uint32_t max_samples = 1001;
  double sample_us = 100;           ///< target duration of one sample (clamped to 20..1000 µs)
  bool operator==(const Policy&) const = default;
};

}  // namespace kex
