// Synthetic results documents in the `kex run` format, with crossovers placed
// at known sizes (see the comments on the tiers), for plot/compare/merge/
// crossover tests and CLI tests.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/result_json.hpp"

namespace synth {

using nlohmann::json;

struct Options {
  std::string host = "alpha";
  std::string cpu = "Synthetic CPU A";
  double time_scale = 1.0;  ///< every time multiplied by this (B = A * scale)
  int shard_index = 0, shard_count = 1;
  bool with_presets = true, with_segments = true;
};

// Caches: L1d 48 KiB, L2 1 MiB, LLC 32 MiB. Sizes 256 B .. 256 MiB, powers of two.
// Tier of a size: 0 L1 (<= 48K), 1 L2 (<= 1M), 2 L3 (<= 32M), 3 DRAM.
inline int tier(double s) { return s <= 49152 ? 0 : s <= 1048576 ? 1 : s <= 33554432 ? 2 : 3; }

struct K {
  std::string kernel, kind, op, regs, store, prefetch;
  double overhead_ns;
  double bw[4];  // GB/s per tier
};

// Known crossovers of these curves (worked out in the comments of test_crossover.cpp):
//  - non-temporal beats temporal from 64 MiB up (DRAM tier: 10 > 6.2);
//  - rep movsb beats the best vector loop from 32 KiB to 1 MiB;
//  - prefetching helps from 64 KiB to 32 MiB, stops helping above 32 MiB.
inline std::vector<K> kernels() {
  return {
      {"copy/sse/unroll:64/scratch:4/t/fwd", "generated", "copy", "sse", "temporal", "none", 5, {40, 25, 15, 6}},
      {"copy/avx/unroll:128/scratch:4/t/fwd", "generated", "copy", "avx", "temporal", "none", 6, {48, 28, 16, 6.2}},
      {"copy/sse/unroll:64/scratch:4/nt/fwd", "generated", "copy", "sse", "nontemporal", "none", 8, {8, 8, 8, 9.5}},
      {"copy/avx/unroll:128/scratch:4/nt/fwd", "generated", "copy", "avx", "nontemporal", "none", 8, {9, 9, 9, 10}},
      {"copy/sse/unroll:64/scratch:4/pf:nta@256/t/fwd", "generated", "copy", "sse", "temporal", "nta", 5, {38, 30, 18, 6.0}},
      {"memcpy", "baseline", "copy", "", "", "", 4, {45, 30, 17, 9}},
      {"rep_movsb", "baseline", "copy", "", "", "", 30, {50, 31, 15, 6}},
      {"clear/sse/unroll:64/scratch:4/t/fwd", "generated", "clear", "sse", "temporal", "none", 4, {60, 40, 25, 10}},
      {"clear/avx/unroll:128/scratch:4/nt/fwd", "generated", "clear", "avx", "nontemporal", "none", 8, {15, 15, 15, 18}},
      {"memset", "baseline", "clear", "", "", "", 4, {65, 42, 26, 17}},
      {"rep_stosb", "baseline", "clear", "", "", "", 25, {70, 40, 24, 16}},
  };
}

inline std::vector<double> sizes() {
  std::vector<double> v;
  for (int e = 8; e <= 28; ++e) v.push_back(std::exp2(e));
  return v;
}

/// GB/s of kernel k at size s before time_scale.
inline double model_gbps(const K& k, double s) { return s / (k.overhead_ns + s / k.bw[tier(s)]); }

inline json context(const Options& o) {
  json c = {{"date", "2025-01-01T00:00:00Z"},
            {"host_name", o.host},
            {"executable", "kex"},
            {"num_cpus", 2},
            {"mhz_per_cpu", 2096},
            {"cpu_scaling_enabled", false},
            {"caches",
             json::array({{{"type", "Data"}, {"level", 1}, {"size", 49152}, {"num_sharing", 0}},
                          {{"type", "Unified"}, {"level", 2}, {"size", 1048576}, {"num_sharing", 0}},
                          {{"type", "Unified"}, {"level", 3}, {"size", 33554432}, {"num_sharing", 0}}})},
            {"library_build_type", "release"},
            {"json_schema_version", 1},
            {"kex_version", "0.1.0"},
            {"machine",
             {{"cpu_vendor", "AuthenticAMD"},
              {"cpu_model", o.cpu},
              {"cpu_family", 26},
              {"cpu_model_number", 2},
              {"cpu_stepping", 1},
              {"cpu_features", json::array({"sse2", "avx", "erms"})},
              {"caches", {{"l1d_bytes", 49152}, {"l2_bytes", 1048576}, {"llc_bytes", 33554432}, {"source", "synthetic"}}},
              {"tsc_hz", 2.0e9},
              {"tsc_source", "synthetic"},
              {"kernel", "Linux 6.1"},
              {"virtualization", ""},
              {"transparent_hugepage", "always [madvise] never"},
              {"pmu_available", false},
              {"pmu_error", "synthetic"}}},
            {"config", json::array()},
            {"policy", json::array({{{"source", "synthetic"}, {"precision", 0.01}, {"max_time_per_point_s", 0.25},
                                     {"min_samples", 11}, {"max_samples", 1001}, {"sample_us", 100}}})},
            {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}},
            {"interrupted", false}};
  if (o.with_segments)
    c["segments"] = {{"header", {{"iterations", 1000}}},
                     {"cases", json::array({{{"name", "plain load"}, {"ns_per_iteration", 0.5 * o.time_scale}},
                                            {{"name", "fs with LDT selector"}, {"ns_per_iteration", 26.0 * o.time_scale}},
                                            {{"name", "gs via wrgsbase"}, {"ns_per_iteration", 1.2 * o.time_scale}},
                                            {{"name", "fs via arch_prctl"}, {"skipped", true}, {"skip_message", "no"}}})}};
  return c;
}

constexpr double kTscHz = 2.0e9;

/// One repetition whose median is `ns` per operation (other statistics around it).
inline kex::Repetition rep(double ns) {
  const double t = ns * kTscHz / 1e9;  // ticks
  kex::Repetition r;
  r.calls_per_sample = 64;
  r.per_call.n = 31;
  r.per_call.min = t * 0.97;
  r.per_call.p10 = t * 0.99;
  r.per_call.median = t;
  r.per_call.p90 = t * 1.03;
  r.per_call.max = t * 1.2;
  r.per_call.ci_low = t * 0.995;
  r.per_call.ci_high = t * 1.005;
  r.per_call.ci_rel = 0.005;
  r.stop_reason = "precision";
  r.cycles_per_tick = 1.0;
  r.cycles_method = "imul-chain estimate";
  r.seconds = 0.01;
  return r;
}

inline kex::Result entry(const K& k, double s, double scale) {
  using namespace kex;
  const double g = model_gbps(k, s) / scale;
  Result r;
  r.point.kernel = k.kernel;
  r.point.at.size = static_cast<uint64_t>(s);
  r.kind = *parse_kernel_kind(k.kind);
  r.op = *parse_op(k.op);
  if (k.kind == "generated") r.spec = parse_spec_name(k.kernel);
  if (k.kernel == "rep_movsb" || k.kernel == "rep_stosb") {
    KernelSpec x = default_spec(r.op, RegClass::string);
    x.unroll = 1;
    r.spec = x;
  }
  if (k.kernel == "memcpy" || k.kernel == "memset") r.libc = LibcFacts{*parse_function(k.kernel)};
  r.placed = Placement{};
  r.code = CodeInfo{100, 0x0123456789abcdefull};
  r.reps.push_back(rep(s / g));
  r.tsc_hz = kTscHz;
  return r;
}

/// The full sweep (or shard o.shard_index of o.shard_count: point i goes to shard i % count), typed.
inline kex::RunDoc run(const Options& o = {}) {
  using namespace kex;
  RunDoc doc;
  doc.context = context_from_json(context(o), "synth");
  size_t i = 0;
  auto add = [&](Result r) {
    if (int(i++ % size_t(o.shard_count)) == o.shard_index) doc.results.push_back(std::move(r));
  };
  for (const auto& k : kernels())
    for (double s : sizes()) add(entry(k, s, o.time_scale));
  if (o.with_presets) {
    const char* presets[][2] = {{"fastc/faster_copy", "faster_copy"}, {"fastc/xmm_clear", "xmm_clear"},
                                {"linux/v26_copy_page", "v26_copy_page"}, {"amd/no_prefetch", "no_prefetch"}};
    double cyc = 700;
    for (auto& p : presets) {
      Result r;
      r.point.kernel = p[0];
      r.point.at.size = 4096;
      r.kind = KernelKind::preset;
      r.op = std::string(p[1]).find("clear") != std::string::npos ? Op::clear : Op::copy;
      PresetFacts f;
      f.id = p[0];
      f.printed = f.hahn_printed = p[1];
      f.family = "seed";
      r.preset = f;
      r.reps.push_back(rep(cyc / 2.0 * o.time_scale));  // 2 ticks per ns
      r.tsc_hz = kTscHz;
      add(r);
      cyc += 450;
    }
  }
  // One skipped and one failed point, as `kex run` records them.
  Result sk;
  sk.point = parse_point_name("copy/avx512/unroll:256/scratch:4/t/fwd/4096");
  sk.spec = parse_spec_name(sk.point.kernel);
  sk.status = {StatusKind::skipped, "CPU lacks avx512f"};
  sk.tsc_hz = kTscHz;
  add(sk);
  Result er;
  er.point = parse_point_name("copy/mmx/unroll:64/scratch:4/t/fwd/4096");
  er.spec = parse_spec_name(er.point.kernel);
  er.status = {StatusKind::error, "verification failed: byte 17 differs"};
  er.tsc_hz = kTscHz;
  add(er);
  return doc;
}

/// The same sweep as a results document (what `kex run` writes).
inline json results(const Options& o = {}) { return json(kex::to_json(run(o))); }

}  // namespace synth
