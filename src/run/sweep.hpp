// The main job: configs -> points -> JIT -> verify -> measure -> results JSON.
#pragma once
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "generators/emit.hpp"

namespace kex {

/// One runnable kernel of a sweep: a generated spec, a baseline or a preset.
struct KernelEntry {
  std::string key;                    ///< results "kernel": spec name, baseline name or preset id
  std::string kind;                   ///< "generated" | "baseline" | "preset"
  Op op = Op::copy;
  nlohmann::ordered_json params;      ///< typed parameters for results
  nlohmann::ordered_json extra;       ///< e.g. {"preset": {...}} merged into each entry
  uint8_t fill = 0;
  uint32_t alignment = 1;             ///< dst/src alignment the kernel needs
  uint32_t width = 8, unroll = 64;    ///< for verification sizes
  uint64_t size_multiple = 1;         ///< page presets: sizes must be multiples
  std::function<void(Xbyak::CodeGenerator&)> emit;  ///< empty for libc baselines
  KernelFn libc = nullptr;
  // Filled while running:
  KernelFn fn = nullptr;
  std::string skip;                   ///< not runnable on this CPU (never executed)
  std::string error;                  ///< failed to emit or to verify
  std::string code_hash;
  size_t code_bytes = 0;
};

/// One measured point.
struct Point {
  size_t config = 0;
  size_t kernel = 0;  ///< index into that config's kernels
  uint64_t size = 0;
  CacheMode cache = CacheMode::warm;
};

struct RunOptions {
  size_t shard_index = 0, shard_count = 1;  ///< run points with (global index % count) == index
  const volatile std::sig_atomic_t* stop = nullptr;  ///< set by SIGINT/SIGTERM
  bool progress = true;                     ///< progress on stderr
};

/// The kernels a config asks for, in order: generated specs, then presets (kex
/// harness), then baselines matching the ops present. Throws InputError for unknown presets.
std::vector<KernelEntry> config_kernels(const Config& c);

/// Runs every config's points (this shard's share) and returns the results document
/// {"context": ..., "benchmarks": [...]}; segment tables land in context.segments.
/// Points that were not run because of an interrupt are absent; context.interrupted says so.
nlohmann::ordered_json run_sweep(const std::vector<Config>& configs, const RunOptions& opt);

}  // namespace kex
