// The workers of a multi-threaded point: helper threads, each pinned to its own CPU,
// that run one job at a time together with the calling (measuring) thread.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace kex {

/// Helper threads 1..n-1 on cpus[1..n-1] (the calling thread is worker 0, on cpus[0],
/// pinned by its owner). Between jobs the helpers spin for about a millisecond, then
/// sleep (so a run that measures one-thread points leaves their CPUs idle).
class Team {
 public:
  /// Starts one helper per cpus[1..]; each pins itself before anything else. Throws
  /// std::runtime_error naming the CPU when a helper cannot be pinned.
  explicit Team(const std::vector<int>& cpus);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  /// Workers, the calling thread included.
  uint32_t size() const { return uint32_t(cpus_.size()); }
  /// The CPU of worker k.
  int cpu(uint32_t k) const { return cpus_[k]; }

  /// Runs job(k) on workers k = 0..n-1 (n <= size(); 0 on the calling thread) at once, and
  /// returns when every one has finished. An exception from a helper's job is rethrown here.
  void run(uint32_t n, const std::function<void(uint32_t)>& job);

 private:
  struct Shared;
  void helper(uint32_t k);
  void stop();
  std::vector<int> cpus_;
  std::unique_ptr<Shared> s_;
  std::vector<std::thread> threads_;
};

/// The timestamps of one team sample (TSC ticks), per worker: when it reached the
/// start barrier, when it started (after every worker reached it) and when it ended.
struct TeamSample {
  std::vector<uint64_t> arrive, start, end;
  uint64_t wall() const;          ///< last end - first start: the sample's time
  uint64_t start_spread() const;  ///< last start - first start
};

/// One sample on `n` workers: each runs prepare(k) (untimed), waits at a spinning barrier
/// for all n, reads the TSC, runs body(k), reads the TSC again.
TeamSample team_sample(Team& team, uint32_t n, const std::function<void(uint32_t)>& prepare,
                       const std::function<void(uint32_t)>& body);

}  // namespace kex
