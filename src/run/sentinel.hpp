// The sentinel: a short fixed measurement taken every few points, sensitive to
// what disturbs a shared machine (another tenant on the core or its SMT sibling,
// memory-bandwidth load), and the detector that flags the windows around it as
// disturbed when it deviates from its running baseline. Why a run needs one:
// benchmarks/results/2026-12-01-zen4-second-machine.md; its buffer and threshold:
// benchmarks/results/2026-12-01-sentinel-choice.md.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/protocol.hpp"  // SentinelReading

namespace kex {

/// Flags a reading whose L1 or memory figure exceeds the running baseline (the
/// median of the last `window` undisturbed readings) by more than `threshold`
/// (0.10 = 10% slower). The first reading sets the baseline; faster readings
/// lower it as they come. Pure logic (tests feed it synthetic timings).
class DisturbanceDetector {
 public:
  DisturbanceDetector(double threshold, size_t window) : threshold_(threshold), window_(window) {}
  /// Records `r` and returns whether it is disturbed (and sets r.disturbed).
  bool add(SentinelReading& r);
  double baseline_l1() const { return median(l1_); }
  double baseline_mem() const { return median(mem_); }
  size_t readings() const { return count_; }
  size_t disturbed() const { return disturbed_; }

 private:
  static double median(const std::deque<double>& v);
  double threshold_;
  size_t window_;
  std::deque<double> l1_, mem_;
  size_t count_ = 0, disturbed_ = 0;
};

/// The sentinel's own buffers and loops, made once per measuring process.
class Sentinel {
 public:
  /// `mem_bytes`: size of the read buffer (0: no memory part). Maps and prefaults it.
  explicit Sentinel(uint64_t mem_bytes);
  ~Sentinel();
  Sentinel(const Sentinel&) = delete;
  Sentinel& operator=(const Sentinel&) = delete;
  /// Takes one reading (about 1 ms with the default sizes).
  SentinelReading measure();

 private:
  uint8_t* l1_ = nullptr;
  uint8_t* mem_ = nullptr;
  uint64_t mem_bytes_ = 0;
};

}  // namespace kex
