// Sweep configs: JSON in, a validated Config out (schema: configs/schema/config.schema.json).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/spec.hpp"

namespace kex {

enum class CacheMode { warm, cold };
std::string_view to_string(CacheMode);

/// Where src and dst live relative to their 2 MiB-aligned buffers.
struct Layout {
  uint64_t src_offset = 0;          ///< bytes past the buffer's alignment
  uint64_t dst_offset = 0;
  std::optional<int64_t> distance;  ///< dst - src in bytes (one shared buffer) when set
  bool huge_pages = true;           ///< madvise(MADV_HUGEPAGE)
};

/// The measurement policy (docs/DESIGN.md "Measuring").
struct Policy {
  double precision = 0.01;          ///< stop when the median's 95% CI half-width / median <= this
  double max_time_per_point = 0.25; ///< seconds of sampling per point at most
  uint32_t min_samples = 11;
  uint32_t max_samples = 1001;
  double sample_us = 100;           ///< target duration of one sample (clamped to 20..1000 µs)
};

/// `segments` section: run the segment-override table with the sweep.
struct SegmentsRequest {
  bool enabled = false;
  uint64_t iterations = 2'000'000;
  bool mixed = true;
  bool modern = true;
};

/// One config file after validation. `raw` is the JSON as written (stored in results).
struct Config {
  std::string source;                  ///< file path, or "built-in:default.json"
  nlohmann::json raw;
  std::vector<uint64_t> sizes;         ///< ascending, unique, > 0
  std::vector<KernelSpec> kernels;     ///< valid specs in grid order (duplicates removed)
  std::vector<std::string> presets;    ///< preset ids, aliases or set names as written
  std::string harness = "kex";         ///< kex | fastc | hahn (presets only)
  bool preset_fsave = true;
  std::vector<std::string> baselines;  ///< subset of memcpy, memset, rep_movsb, rep_stosb
  Layout layout;
  std::vector<CacheMode> caches = {CacheMode::warm};
  Policy policy;
  SegmentsRequest segments;
  std::string out_json, plot_dir;      ///< outputs.json / outputs.plot_dir ("" = not set)
};

/// Parses and validates a config. Errors throw InputError with one line:
/// "<source>: <JSON path>: <value>: <what is allowed>", or the parse position
/// ("<source>:<line>:<column>: <parser message>") for malformed JSON.
Config parse_config(const std::string& text, const std::string& source);

/// Reads `path` (InputError if unreadable) and parses it; "built-in:NAME" reads an embedded config.
Config load_config(const std::string& path);

/// Largest buffer size a config may ask for (per src/dst buffer): a quarter of MemAvailable.
uint64_t max_config_size();

}  // namespace kex
