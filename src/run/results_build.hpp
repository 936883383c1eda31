// The results document: Google Benchmark's envelope {"context", "benchmarks"} with
// kex's fields (schema: configs/schema/results.schema.json).
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "src/run/measure.hpp"
#include "src/model/spec.hpp"
#include "src/run/sweep.hpp"

namespace kex {

/// The Google Benchmark fields every entry starts with: name, run_name, run_type,
/// repetitions, repetition_index, threads (one run, one thread).
nlohmann::ordered_json entry_head(const std::string& name);

/// Typed parameters of a spec, as results' "params".
nlohmann::ordered_json spec_params(const KernelSpec& s);

/// The context: gbench keys (date, host_name, num_cpus, mhz_per_cpu, caches, ...),
/// kex_version, library versions, machine, every config as written, the policy.
nlohmann::ordered_json make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index,
                                    size_t shard_count);

/// One benchmark entry. Without a measurement: skipped (k.skip) or error_occurred (k.error).
/// Times: real_time/cpu_time = median ns per call; bytes counted once per byte copied.
nlohmann::ordered_json make_entry(const KernelEntry& k, const Config& c, const Point& p, const Measurement* m);


}  // namespace kex
