// A fixed run for golden-file tests: Results in every state (measured, skipped,
// crashed, interrupted, a seed-harness pass), at several coordinates, with a
// fixed context. Writers must print exactly tests/golden/<name>; set
// KEX_UPDATE_GOLDEN=1 to rewrite the files after an intended change (and review
// the diff).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "generators/presets/presets.hpp"
#include "src/model/noise.hpp"
#include "src/model/result_json.hpp"
#include "src/model/seed.hpp"
#include "src/model/spec.hpp"

namespace golden {

using namespace kex;

inline Repetition rep(double median_ticks, uint32_t calls, std::vector<uint64_t> samples, const char* stop) {
  Repetition r;
  r.calls_per_sample = calls;
  r.sample_ticks = std::move(samples);
  std::vector<double> per;
  for (uint64_t s : r.sample_ticks) per.push_back(double(s) / calls);
  r.per_call = summarize(per);
  r.per_call.median = median_ticks;  // pin the figure the writers print
  r.stop_reason = stop;
  r.cycles_per_tick = 1.25;
  r.cycles_method = "imul-chain estimate";
  r.context_switches = 1;
  r.seconds = 0.02;
  return r;
}

inline Result generated(const std::string& spec, uint64_t size, const Layout& l, double ticks) {
  Result r;
  r.spec = parse_spec_name(spec);
  r.point = {spec_name(*r.spec), {}};
  r.point.at.size = size;
  r.point.at.layout = l;
  r.op = r.spec->op;
  r.tsc_hz = 2.0e9;
  Placement p;
  p.src_offset = int64_t(l.src_offset);
  p.dst_offset = l.distance ? int64_t(l.src_offset) + *l.distance : int64_t(l.dst_offset);
  p.src_page_offset = uint32_t(l.src_offset % 4096);
  p.dst_page_offset = uint32_t(((p.dst_offset % 4096) + 4096) % 4096);
  p.relative_offset = uint32_t((((p.dst_offset - p.src_offset) % 4096) + 4096) % 4096);
  r.placed = p;
  r.code = CodeInfo{180, 0x1234abcd5678ef90ull};
  r.reps.push_back(rep(ticks, 8, {uint64_t(ticks * 8), uint64_t(ticks * 8 * 1.01), uint64_t(ticks * 8 * 0.99)}, "precision"));
  return r;
}

inline Result baseline(const char* fn, uint64_t size, const Layout& l, double ticks) {
  Result r;
  r.point = {fn, {}};
  r.point.at.size = size;
  r.point.at.layout = l;
  r.kind = KernelKind::baseline;
  r.op = std::string(fn) == "memset" ? Op::clear : Op::copy;
  r.libc = LibcFacts{*parse_function(fn)};
  r.tsc_hz = 2.0e9;
  r.placed = Placement{};
  r.reps.push_back(rep(ticks, 8, {uint64_t(ticks * 8), uint64_t(ticks * 8)}, "precision"));
  return r;
}

inline PresetFacts facts(const char* id, const char* printed, Confidence c) {
  PresetFacts f;
  f.id = id;
  f.printed = f.hahn_printed = printed;
  f.family = "fastc";
  f.origin = "golden test origin";
  f.confidence = c;
  f.features = {"mmx"};
  f.substitutions = {"femms -> emms (no 3DNow! on this CPU)"};
  return f;
}

/// The fixed run.
inline RunDoc run() {
  RunDoc d;
  d.context.date = "2026-12-01T00:00:00+0000";
  d.context.host_name = "golden";
  d.context.machine.cpu_vendor = "AuthenticAMD";
  d.context.machine.cpu_model = "Golden CPU";
  d.context.machine.family = 25;
  d.context.machine.model = 1;
  d.context.machine.stepping = 1;
  d.context.machine.features = {"sse2", "avx"};
  d.context.machine.num_cpus = 2;
  d.context.machine.l1d_bytes = 32768;
  d.context.machine.l2_bytes = 524288;
  d.context.machine.llc_bytes = 33554432;
  d.context.machine.tsc_hz = 2.0e9;
  d.context.machine.virtualization = "KVM";
  d.context.configs.push_back({"golden.json", nlohmann::ordered_json{{"sizes", {4096, 65536}}}});
  d.context.gbench.executable = "kex";
  d.context.gbench.num_cpus = 2;
  d.context.gbench.mhz_per_cpu = 2000;
  d.context.build.kex_version = "0.1.0";
  {  // the noise the summary reports (context.protocol.noise), from fixed sentinel figures
    const Noise n = compute_noise({100, 101, 99, 102, 130}, {400, 410, 395, 405, 600}, 1, 40, 8, 0.25, 8, {});
    ProtocolRecord p;  // one repetition a point, each measured alone, as a quiet run took them
    p.workers_started = 1;
    p.cpu = 1;
    p.tasks_measured = 40;
    p.remeasured_tasks = 8;
    p.measuring_s = 1.5;
    p.measured_s = 1.2;
    p.overhead_ms_per_task = 7.5;
    p.noise = n;
    d.context.protocol = p;
  }
  Layout plain, alias, far;
  alias.distance = 64;
  far.distance = 4096 + 64;
  const char* vec = "copy/avx/unroll:128/scratch:4/t/fwd";
  const char* rep = "copy/string/unroll:1/t/fwd";
  for (uint64_t size : {4096u, 65536u})
    for (const Layout& l : {plain, far}) {
      const double k = l.distance ? 1.3 : 1.0;
      d.results.push_back(generated(vec, size, l, double(size) / 40 * k));
      d.results.push_back(generated(rep, size, l, double(size) / 45 * k));
      d.results.push_back(baseline("memcpy", size, l, double(size) / 42 * k));
    }
  // The vector loop refused where src and dst overlap; an AVX-512 loop skipped; one crashed.
  Result refused = generated(vec, 4096, alias, 1);
  refused.reps.clear();
  refused.placed.reset();
  refused.status = {StatusKind::skipped,
                    "refused: the kernel does not give memmove's result where src and dst overlap: size 4096, distance 64"};
  d.results.push_back(refused);
  Result skipped = generated("copy/avx512/unroll:256/scratch:4/t/fwd", 4096, plain, 1);
  skipped.reps.clear();
  skipped.placed.reset();
  skipped.code.reset();
  skipped.status = {StatusKind::skipped, "this CPU lacks avx512f"};
  d.results.push_back(skipped);
  Result crashed = generated("copy/sse/unroll:64/scratch:4/nt/fwd", 4096, plain, 1);
  crashed.reps.clear();
  crashed.status = {StatusKind::error, "verification failed: killed by SIGSEGV at code+0x3a touching 0x0 while verifying",
                    11, 0x3a};
  d.results.push_back(crashed);
  // Stopped by Ctrl-C during its samples: measured, but the stop reason says so.
  Result cut = generated("clear/avx/unroll:128/scratch:4/t/fwd", 4096, plain, 41);
  cut.reps.front().stop_reason = "interrupted";
  d.results.push_back(cut);
  d.results.push_back(baseline("memset", 4096, plain, 44));
  // Presets: one under the kex harness, one a fast.c pass.
  Result kp;
  kp.point = {"fastc/faster_copy", {}};
  kp.point.at.size = 4096;
  kp.kind = KernelKind::preset;
  kp.op = Op::copy;
  kp.preset = facts("fastc/faster_copy", "faster_copy", Confidence::high);
  kp.tsc_hz = 2.0e9;
  kp.reps.push_back(golden::rep(300, 16, {4800, 4900}, "precision"));
  d.results.push_back(kp);
  Result sp = kp;
  sp.point.at.harness = Harness::fastc;
  sp.preset = facts("xmm64/xmma_clear", "xmma_clear", Confidence::low);
  sp.point.kernel = "xmm64/xmma_clear";
  sp.op = Op::clear;
  sp.reps = {golden::rep(1234.5, 4096, {5056512}, "single pass")};
  SeedFigures f;
  f.pages = 4096;
  f.divisor = 4096;
  f.printed_ticks = 1234;
  f.buffer_offset = 8;  // fast.c ran every kernel 8 bytes past a page
  f.buffer_bytes = 16 << 20;
  f.label = "xmma_clear";
  sp.seed = f;
  d.results.push_back(sp);
  return d;
}

/// The fast.c pass of run() as a seed run (for the seed-table writer).
inline SeedRun seed_run() {
  SeedRun s;
  s.header.harness = Harness::fastc;
  s.header.tsc_mhz = 2000;
  s.header.tsc_source = "golden";
  s.header.cpu_model = "Golden CPU";
  s.header.pinned_cpu = 1;
  s.header.buffer_address = 0x7f0000000008;
  for (const auto& r : run().results)
    if (r.point.at.harness == Harness::fastc) s.results.push_back(r);
  return s;
}

// ---------------------------------------------------------------------------
// Variations of the fixed run, for the writers that take two runs, several
// repetitions, curves or presets the fixed run does not have.
// ---------------------------------------------------------------------------

/// `r` with every time scaled by `f` (> 1: slower): each sample and order statistic.
inline Result scaled(Result r, double f) {
  for (Repetition& x : r.reps) {
    for (uint64_t& s : x.sample_ticks) s = uint64_t(std::llround(double(s) * f));
    SampleStats& p = x.per_call;
    for (double* v : {&p.min, &p.p10, &p.median, &p.p90, &p.max, &p.ci_low, &p.ci_high}) *v *= f;
  }
  return r;
}

/// `run` with each measured point's repetition taken `n` times, the i-th scaled by a
/// fixed factor around 1 (0.4% apart), as a run with --repetitions n would give.
inline RunDoc repeated(RunDoc run, size_t n) {
  for (Result& r : run.results) {
    if (!r.ok()) continue;
    const Result one = r;
    r.reps.clear();
    for (size_t i = 0; i < n; ++i) {
      Result x = scaled(one, 1 + 0.004 * (double(i) - double(n - 1) / 2));
      x.reps.front().order = i;
      r.reps.push_back(x.reps.front());
    }
  }
  run.context.protocol->repetitions = uint32_t(n);
  return run;
}

/// B of the compare goldens, from A = run(): the 4 KiB vector loop 20% faster, the
/// 4 KiB rep movsb 25% slower, the far 4 KiB vector loop 0.5% slower (below any
/// minimum effect), memcpy at 64 KiB 15% slower in its median and times but with A's
/// fastest sample (what --statistic best compares), the far 64 KiB rep movsb not
/// measured (only in A), the SSE NT loop that crashed in A measured (only in B); the
/// rest as in A. repeated(A, n) against repeated(B, n): the same, n repetitions a point.
inline RunDoc contender(const RunDoc& a) {
  RunDoc b;
  b.context = a.context;
  b.context.host_name = "golden-b";
  b.context.date = "2026-12-02T00:00:00+0000";
  for (const Result& r : a.results) {
    const std::string& k = r.point.kernel;
    const uint64_t size = r.point.at.size;
    const bool far = r.point.at.layout.distance.has_value();
    const bool vec = k == "copy/avx/unroll:128/scratch:4/t/fwd", rep_movsb = k == "copy/string/unroll:1/t/fwd";
    if (!r.ok() && k == "copy/sse/unroll:64/scratch:4/nt/fwd") {
      b.results.push_back(generated(k, size, r.point.at.layout, double(size) / 38));
      continue;
    }
    if (rep_movsb && size == 65536 && far) continue;
    if (!r.ok()) b.results.push_back(r);
    else if (vec && size == 4096) b.results.push_back(scaled(r, far ? 1.005 : 0.8));
    else if (rep_movsb && size == 4096 && !far) b.results.push_back(scaled(r, 1.25));
    else if (k == "memcpy" && size == 65536 && !far) {
      Result x = scaled(r, 1.15);
      for (size_t i = 0; i < x.reps.size(); ++i) {  // the fastest sample as A's
        auto fastest = std::min_element(x.reps[i].sample_ticks.begin(), x.reps[i].sample_ticks.end());
        *fastest = *std::min_element(r.reps[i].sample_ticks.begin(), r.reps[i].sample_ticks.end());
        x.reps[i].per_call.min = r.reps[i].per_call.min;
      }
      b.results.push_back(x);
    } else
      b.results.push_back(r);
  }
  return b;
}

/// `d` with sentinel readings in its context (context.sentinel_readings, as a sweep
/// writes them: every `window` tasks) and its noise record computed from them, the
/// task counts and its results.
inline RunDoc with_readings(RunDoc d, const std::vector<double>& l1, const std::vector<double>& mem,
                            const std::vector<bool>& disturbed, size_t tasks, size_t remeasured) {
  std::vector<SentinelWindow> readings;
  size_t flagged = 0;
  for (size_t i = 0; i < l1.size(); ++i) {
    readings.push_back({{l1[i], mem[i], 0.5 * double(i + 1), 8 * (i + 1), bool(disturbed[i])}, 8, bool(disturbed[i])});
    flagged += disturbed[i];
  }
  d.context.sentinel_readings = readings;
  d.context.protocol->noise = compute_noise(l1, mem, flagged, tasks, remeasured, 0.25, tasks / 4, d.results);
  return d;
}

/// A copy sweep from 4 KiB to 64 MiB (warm, default layout) with crossovers: the
/// non-temporal loop wins from 4 MiB up, rep movsb in [16 KiB, 64 KiB] and at 64 MiB,
/// prefetching helps in [64 KiB, 1 MiB]. A cold point and a far layout's point that
/// would win everything are not at the conditions compared.
inline RunDoc crossover_run() {
  RunDoc d = run();
  d.results.clear();
  const uint64_t sizes[] = {4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
  struct Curve {
    const char* kernel;
    double gbps[8];
  };
  const Curve curves[] = {
      {"copy/avx/unroll:128/scratch:4/t/fwd", {60, 70, 65, 40, 30, 14, 10, 9}},
      {"copy/avx/unroll:128/scratch:4/nt/fwd", {20, 25, 28, 26, 24, 16, 14, 13}},
      {"copy/avx/unroll:128/scratch:4/pf:nta@256/t/fwd", {55, 68, 66, 45, 33, 15, 11, 9.5}},
      {"rep_movsb", {40, 75, 70, 38, 28, 15, 12, 14}},
  };
  for (const Curve& c : curves)
    for (size_t i = 0; i < std::size(sizes); ++i) {
      const double ticks = 2 * double(sizes[i]) / c.gbps[i];  // 2 GHz TSC
      if (std::string(c.kernel) != "rep_movsb") {
        d.results.push_back(generated(c.kernel, sizes[i], Layout{}, ticks));
        continue;
      }
      Result r = generated("copy/string/unroll:1/t/fwd", sizes[i], Layout{}, ticks);
      r.kind = KernelKind::baseline;
      r.point.kernel = "rep_movsb";
      r.code.reset();
      d.results.push_back(r);
    }
  Result cold = generated("copy/avx/unroll:128/scratch:4/nt/fwd", 4096, Layout{}, 1);
  cold.point.at.cache = CacheMode::cold;
  d.results.push_back(cold);
  Layout far;
  far.distance = 4096 + 64;
  d.results.push_back(generated("copy/avx/unroll:128/scratch:4/nt/fwd", 16384, far, 1));
  return d;
}

/// A measured preset (its facts from the preset table) at `size` taking `ticks` per call.
inline Result preset(const std::string& key, uint64_t size, double ticks) {
  const Preset* p = find_preset(key);
  if (!p) throw std::logic_error("golden::preset: no preset " + key);
  Result r;
  r.point = {key, {}};
  r.point.at.size = size;
  r.kind = KernelKind::preset;
  r.op = p->op;
  r.preset = preset_facts(*p, {}, true);
  r.tsc_hz = 2.0e9;
  r.reps.push_back(rep(ticks, 4, {uint64_t(ticks * 4), uint64_t(ticks * 4 * 1.02)}, "precision"));
  return r;
}

/// Asami's experiment (seed 003) at four sizes, listed out of size order: two unroll
/// presets, the FP copy and libc memcpy; a cold point and a skipped one that runtests
/// leaves out.
inline RunDoc asami_run() {
  RunDoc d = run();
  d.results.clear();
  for (uint64_t size : {4096u, 32u, 64u, 128u})
    for (const auto& [key, mib_s] : {std::pair{"asami/unroll:96/scratch:2/every:32", 90.0},
                                     std::pair{"asami/unroll:96/scratch:3/every:0", 70.0},
                                     std::pair{"asami/fp_copy", 110.0}, std::pair{"memcpy", 60.0}}) {
      const double ticks = double(size) / ((mib_s + double(size) / 8) * (1 << 20)) * 2e9;
      if (std::string(key) == "memcpy") d.results.push_back(baseline("memcpy", size, Layout{}, ticks));
      else d.results.push_back(preset(key, size, ticks));
    }
  Result cold = preset("asami/fp_copy", 256, 100);
  cold.point.at.cache = CacheMode::cold;
  d.results.push_back(cold);
  Result skipped = preset("asami/fp_copy", 512, 100);
  skipped.reps.clear();
  skipped.status = {StatusKind::skipped, "stopped after emit"};
  d.results.push_back(skipped);
  return d;
}

/// `run` split into `n` shards of one run (round robin over its points, as the shards
/// of a sweep take turns), each from its own node of the same machine.
inline std::vector<RunDoc> shards(const RunDoc& run, size_t n) {
  std::vector<RunDoc> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i].context = run.context;
    out[i].context.shard_index = i;
    out[i].context.shard_count = n;
    out[i].context.host_name = "golden-node" + std::to_string(i);
    out[i].context.run_id = "00000000000005a" + std::to_string(i);
  }
  for (size_t i = 0; i < run.results.size(); ++i) out[i % n].results.push_back(run.results[i]);
  return out;
}

/// The text from the first occurrence of `start` on (a written file's head names kex's build
/// and the CPU, which no golden holds); "missing: START" and the text when it is absent.
inline std::string from(const std::string& text, const std::string& start) {
  const size_t at = text.find(start);
  return at == std::string::npos ? "missing: " + start + "\n" + text : text.substr(at);
}

/// Compares `text` with tests/golden/<name> (or rewrites it with KEX_UPDATE_GOLDEN=1).
/// Returns "" when equal, else the first differing line of each.
inline std::string check(const std::string& name, const std::string& text) {
  const std::string path = std::string(KEX_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("KEX_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return "";
  }
  std::ifstream in(path);
  if (!in) return path + ": missing (run the test with KEX_UPDATE_GOLDEN=1 to write it)";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = ss.str();
  if (want == text) return "";
  std::istringstream a(want), b(text);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga && !gb) return name + ": differs (line endings?)";
    if (la != lb || ga != gb)
      return name + ":" + std::to_string(line) + ": expected `" + (ga ? la : "<end>") + "`, got `" + (gb ? lb : "<end>") + "`";
  }
}

}  // namespace golden
