// A run of a seed program's own protocol (fastc, hahn): its results and what its
// table's header prints (docs/seed-kernels.md §1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/point.hpp"
#include "src/model/result.hpp"

namespace kex {

/// What a seed table's header says about the run that made it.
struct SeedHeader {
  Harness harness = Harness::fastc;
  double tsc_mhz = 0;            ///< kex's TSC rate
  std::string tsc_source;
  bool pmu_available = false;
  std::string cpu_model;
  int pinned_cpu = -1;
  bool fsave = true;
  uint64_t buffer_address = 0;   ///< where the seed's buffer was mapped (fast.c printed it)
  double hahn_mhz = 0;           ///< hahn: athlon.c's own calibration
};

/// The Results of one seed-harness run, in the order the table prints them.
struct SeedRun {
  SeedHeader header;
  std::vector<Result> results;
};

}  // namespace kex
