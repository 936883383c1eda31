// The main job: configs -> plans x points -> JIT -> verify -> measure -> Results.
#pragma once
#include <csignal>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/context.hpp"
#include "src/model/seed.hpp"

namespace kex {

struct RunOptions {
  size_t shard_index = 0, shard_count = 1;  ///< run points with (global index % count) == index
  const volatile std::sig_atomic_t* stop = nullptr;  ///< set by SIGINT/SIGTERM
  bool progress = true;                     ///< progress on stderr
};

/// A finished sweep: the run, and each seed-harness run (with the config it came
/// from) whose Results are also in doc.results, for the seed-table writer.
struct SweepRun {
  RunDoc doc;
  std::vector<std::pair<std::string, SeedRun>> seed_runs;
};

/// Runs every config's points (this shard's share): one Result per point, skipped
/// and failed points included; the segment section lands in the context. Points
/// not reached because of an interrupt are absent and the context says interrupted.
SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt);

}  // namespace kex
