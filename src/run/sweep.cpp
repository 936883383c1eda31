#include "src/run/sweep.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "src/run/baselines.hpp"
#include "src/run/buffers.hpp"
#include "src/core/error.hpp"
#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"
#include "src/run/harness.hpp"
#include "src/run/results_build.hpp"
#include "src/run/segments.hpp"
#include "src/run/preset_select.hpp"
#include "src/run/sweep_presets.hpp"
#include "src/core/units.hpp"
#include "src/run/verify.hpp"

namespace kex {

using nlohmann::ordered_json;

namespace {

KernelEntry generated_entry(const KernelSpec& s, std::string key, std::string kind) {
  KernelEntry e;
  e.key = std::move(key);
  e.kind = std::move(kind);
  e.op = s.op;
  e.params = spec_params(s);
  e.fill = s.fill;
  e.alignment = required_alignment(s);
  e.width = reg_class_info(s.regs).width;
  e.unroll = s.unroll;
  e.emit = [s](Xbyak::CodeGenerator& g) { emit_kernel(g, s); };
  e.skip = cpu_unsupported_reason(s);
  return e;
}

std::string hex64(uint64_t v) {
  char b[20];
  snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

/// Progress on stderr: one updating line on a TTY, a plain line per 5% otherwise.
struct Progress {
  bool on, tty;
  size_t total, done = 0, last_pct = 0;
  Progress(bool enabled, size_t n) : on(enabled && n > 0), tty(isatty(2)), total(n) {}
  void step(const std::string& what) {
    ++done;
    if (!on) return;
    if (tty) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, what.c_str());
      if (done == total) std::fputc('\n', stderr);
    } else {
      size_t pct = done * 100 / total;
      if (pct >= last_pct + 5 || done == total) {
        last_pct = pct;
        std::fprintf(stderr, "kex: %zu/%zu points (%zu%%) %s\n", done, total, pct, what.c_str());
      }
    }
  }
};

}  // namespace

std::vector<KernelEntry> config_kernels(const Config& c) {
  std::vector<KernelEntry> out;
  bool has_copy = false, has_clear = false;
  for (const auto& s : c.kernels) {
    out.push_back(generated_entry(s, spec_name(s), "generated"));
    (s.op == Op::copy ? has_copy : has_clear) = true;
  }
  append_preset_kernels(c, out);
  for (const auto& e : out) (e.op == Op::copy ? has_copy : has_clear) = true;
  const bool only_baselines = out.empty();
  for (const auto& name : c.baselines) {
    auto b = find_baseline(name);
    if (!b) throw InputError(c.source + ": /baselines: unknown baseline '" + name + "'");
    if (!only_baselines && !(b->op == Op::copy ? has_copy : has_clear)) continue;
    if (b->spec) {
      auto e = generated_entry(*b->spec, b->name, "baseline");
      out.push_back(std::move(e));
    } else {
      KernelEntry e;
      e.key = b->name;
      e.kind = "baseline";
      e.op = b->op;
      e.params = {{"op", std::string(to_string(b->op))}, {"impl", "libc"}};
      e.libc = b->libc;
      out.push_back(std::move(e));
    }
  }
  return out;
}

ordered_json run_sweep(const std::vector<Config>& configs, const RunOptions& opt) {
  const Machine& m = machine();
  const int cpu = pin_to_one_cpu();
  ordered_json doc;
  doc["context"] = make_context(configs, cpu, opt.shard_index, opt.shard_count);
  doc["benchmarks"] = ordered_json::array();
  auto& out = doc["benchmarks"];
  bool interrupted = false;

  // Enumerate every point of every config first: sharding is by global index.
  std::vector<std::vector<KernelEntry>> kernels;
  std::vector<Point> points;
  size_t global = 0;
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    kernels.push_back(config_kernels(c));
    for (CacheMode cache : c.caches)
      for (uint64_t size : c.sizes)
        for (size_t k = 0; k < kernels[ci].size(); ++k) {
          if (size % kernels[ci][k].size_multiple) continue;
          if (global++ % opt.shard_count == opt.shard_index) points.push_back({ci, k, size, cache});
        }
  }
  Progress progress(opt.progress, points.size());
  const auto t_start = std::chrono::steady_clock::now();

  for (size_t ci = 0; ci < configs.size() && !interrupted; ++ci) {
    const Config& c = configs[ci];
    auto& ks = kernels[ci];
    std::vector<bool> used(ks.size(), false);
    uint64_t max_size = 0;
    for (const auto& p : points)
      if (p.config == ci) {
        used[p.kernel] = true;
        max_size = std::max(max_size, p.size);
      }

    // 1. JIT everything up front into one W^X arena (never inside a timed region).
    CodeArena arena;
    std::vector<size_t> code_index(ks.size(), SIZE_MAX);
    for (size_t k = 0; k < ks.size(); ++k) {
      if (!used[k] || !ks[k].emit) continue;
      try {
        code_index[k] = arena.add(ks[k].emit);
      } catch (const std::exception& e) {
        ks[k].error = std::string("code generation failed: ") + e.what();
      }
    }
    arena.finalize();
    for (size_t k = 0; k < ks.size(); ++k) {
      if (ks[k].libc) ks[k].fn = ks[k].libc;
      if (code_index[k] == SIZE_MAX) continue;
      CodeRef r = arena.ref(code_index[k]);
      ks[k].fn = r.as<KernelFn>();
      ks[k].code_bytes = r.size;
      ks[k].code_hash = hex64(r.hash);
    }

    // 2. Verify every runnable kernel in child processes before any timing.
    std::vector<VerifyTarget> targets;
    std::vector<size_t> target_kernel;
    for (size_t k = 0; k < ks.size(); ++k) {
      if (!used[k] || !ks[k].fn || !ks[k].skip.empty() || !ks[k].error.empty()) continue;
      VerifyTarget t;
      t.fn = ks[k].fn;
      t.is_copy = ks[k].op == Op::copy;
      t.fill = ks[k].fill;
      t.alignment = ks[k].alignment;
      t.width = ks[k].width;
      t.unroll = ks[k].unroll;
      t.size_multiple = ks[k].size_multiple;
      if (t.size_multiple > 1) t.max_size = 3 * t.size_multiple;
      targets.push_back(t);
      target_kernel.push_back(k);
    }
    if (opt.progress && !targets.empty())
      std::fprintf(stderr, "kex: %s: verifying %zu kernel%s\n", c.source.c_str(), targets.size(),
                   targets.size() == 1 ? "" : "s");
    auto verdicts = verify_in_child(targets);
    for (size_t i = 0; i < verdicts.size(); ++i)
      if (!verdicts[i].empty()) ks[target_kernel[i]].error = "verification failed: " + verdicts[i];
    if (opt.stop && *opt.stop) { interrupted = true; break; }

    // 3. Measure.
    std::unique_ptr<Buffers> buffers;
    if (max_size) {
      uint64_t need = max_size;
      for (const auto& k : ks) need = std::max<uint64_t>(need, max_size + k.alignment);
      buffers = std::make_unique<Buffers>(need, c.layout);
    }
    for (const auto& p : points) {
      if (p.config != ci) continue;
      if (opt.stop && *opt.stop) { interrupted = true; break; }
      const KernelEntry& k = ks[p.kernel];
      std::optional<Measurement> meas;
      // A kernel that needs aligned pointers gets the configured offsets rounded up
      // to its alignment; the entry records the offsets actually used.
      const uint64_t pad_d = (k.alignment - c.layout.dst_offset % k.alignment) % k.alignment;
      const uint64_t pad_s = (k.alignment - c.layout.src_offset % k.alignment) % k.alignment;
      if (k.skip.empty() && k.error.empty() && k.fn)
        meas = measure(k.fn, buffers->dst() + pad_d, buffers->src() + pad_s, p.size, p.cache, c.policy, opt.stop);
      out.push_back(make_entry(k, c, p, meas ? &*meas : nullptr));
      if (pad_d || pad_s) {
        auto& params = out.back()["params"];
        params["src_offset"] = c.layout.src_offset + pad_s;
        params["dst_offset"] = c.layout.dst_offset + pad_d;
        params["offsets_rounded_up_to_alignment"] = k.alignment;
      }
      std::string what = k.key + " " + format_bytes(p.size);
      if (meas) {
        char b[48];
        snprintf(b, sizeof b, " %.2f GB/s", double(p.size) / (meas->per_call.median / m.tsc_hz * 1e9));
        what += b;
      }
      progress.step(what);
    }
  }
  // Seed harnesses (fastc, hahn) and the segment table run once, in shard 0 only.
  if (opt.shard_index == 0) {
    ordered_json tables = ordered_json::array();
    for (const Config& c : configs) {
      if (interrupted || (opt.stop && *opt.stop)) { interrupted = true; break; }
      if (c.presets.empty() || c.harness == "kex") continue;
      PresetOptions po;
      po.fsave = c.preset_fsave;
      if (opt.progress) std::fprintf(stderr, "kex: %s: running presets under the %s harness\n", c.source.c_str(), c.harness.c_str());
      HarnessResult hr = run_seed_harness(resolve_presets(c.presets, c.source), *parse_harness(c.harness), po);
      for (auto& e : hr.entries) out.push_back(e);
      tables.push_back({{"source", c.source}, {"harness", c.harness}, {"text", hr.text}});
    }
    if (!tables.empty()) doc["context"]["seed_tables"] = tables;
    for (const Config& c : configs) {
      if (!c.segments.enabled) continue;
      if (interrupted || (opt.stop && *opt.stop)) { interrupted = true; break; }
      if (opt.progress) std::fprintf(stderr, "kex: running the segment-override table\n");
      SegmentOptions so;
      so.iterations = c.segments.iterations;
      so.mixed = c.segments.mixed;
      so.modern = c.segments.modern;
      doc["context"]["segments"] = run_segments(so);
      break;  // one table per run
    }
  }
  doc["context"]["interrupted"] = interrupted;
  doc["context"]["points_planned"] = points.size();
  doc["context"]["points_written"] = out.size();
  doc["context"]["elapsed_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return doc;
}

}  // namespace kex
