// The `ceilings` record of a results file (context.ceilings, configs/schema/results.schema.json
// "ceilings"): this machine's read, write and non-temporal-write bandwidth per cache level
// as one core reached it. Plain records only: src/model/ceilings.hpp computes them,
// src/model/ceilings_fields.hpp maps them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

/// One level's ceilings: the fastest probe of each kind at `size` (GB/s, bytes counted
/// once; 0 and "" when no probe of that kind was measured).
struct CeilingLevel {
  std::string level;                 ///< "L1d", "L2", "LLC" or "DRAM"
  uint64_t cache_bytes = 0;          ///< the level's size (DRAM: 0)
  uint64_t size = 0;                 ///< the probes' size in bytes, inside the level
  double read_gbps = 0, write_gbps = 0, nt_write_gbps = 0;
  std::string read_kernel, write_kernel, nt_write_kernel;  ///< the fastest probe of each kind
  bool operator==(const CeilingLevel&) const = default;
};

/// The ceilings of one run (context.ceilings), smallest level first.
struct Ceilings {
  std::vector<CeilingLevel> levels;
  /// Bytes per core cycle (estimated core cycles, src/run/machine.hpp) of the best read
  /// and temporal write at the L1d size: the L1d's load and store bytes per cycle as one
  /// core reaches them; 0 when not measured.
  double l1d_load_bytes_per_cycle = 0, l1d_store_bytes_per_cycle = 0;
  uint32_t rounds = 0;               ///< paired rounds per level
  double seconds = 0;                ///< wall time of the probe
  bool operator==(const Ceilings&) const = default;
};

}  // namespace kex
