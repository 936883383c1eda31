#include "src/run/harness.hpp"

#include <cpuid.h>
#include <algorithm>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "generators/jit.hpp"
#include "src/core/limits.hpp"
#include "src/core/units.hpp"
#include "src/run/machine.hpp"
#include "src/run/plans.hpp"
#include "src/run/result_build.hpp"
#include "src/run/verify.hpp"

namespace kex {

namespace {

constexpr size_t kMiB = 1 << 20;

/// Plain rdtsc, not serialised: fast.c read the TSC this way.
inline uint64_t rdtsc_plain() {
  uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return (uint64_t(hi) << 32) | lo;
}

inline void cpuid_serialise() {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
  asm volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

double wall_seconds() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

/// The seed programs' waits: fast.c's sleep(1) before each copy, athlon.c's 30
/// calibration sleeps of 10-210 ms. KEX_SEED_TIMING=fast (a test seam: the tests that
/// check a table's text set it, one real-time test per harness does not) sleeps 0 s and
/// calibrates with 3 sleeps of 10 ms; results record the sleep (sleep_before_s) and the MHz.
struct SeedWaits {
  double fastc_sleep_s = 1;
  int hahn_samples = 30;
  double hahn_extra_s = 0.2;  ///< the random part of each calibration sleep, at most
};

const SeedWaits& seed_waits() {
  static const SeedWaits w = [] {
    const char* e = std::getenv("KEX_SEED_TIMING");
    return e && std::string(e) == "fast" ? SeedWaits{0, 3, 0} : SeedWaits{};
  }();
  return w;
}

/// athlon.c's clock: 30 samples of (gettimeofday, cpuid, rdtsc, select() sleep of
/// 10 ms + U(0,200) ms, cpuid, rdtsc, gettimeofday); least-squares slope of ticks on
/// wall seconds. Returns MHz.
double hahn_mhz() {
  static const double mhz = [] {
    srand48(static_cast<long>(rdtsc_plain()));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int n = seed_waits().hahn_samples;
    for (int i = 0; i < n; ++i) {
      double w0 = wall_seconds();
      cpuid_serialise();
      uint64_t t0 = rdtsc_plain();
      timeval tv{0, static_cast<suseconds_t>(10000 + drand48() * seed_waits().hahn_extra_s * 1e6)};
      select(0, nullptr, nullptr, nullptr, &tv);
      cpuid_serialise();
      uint64_t t1 = rdtsc_plain();
      double w1 = wall_seconds();
      double x = w1 - w0, y = double(t1 - t0);
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return slope / 1e6;
  }();
  return mhz;
}

struct Buffer {
  uint8_t* base = nullptr;
  size_t size = 0;
  Buffer(size_t bytes, bool fill) : size(bytes + kPageBytes) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw_os_error("cannot map the seed harness's " + format_bytes(size) + " buffer", errno);
    base = static_cast<uint8_t*>(p);
    // fast.c: memset(Buffer, 0xfe, ...) faults every page in; athlon.c only mmaps, and its
    // untimed first pass of each test faults the pages in.
    if (fill) memset(base, 0xfe, size);
  }
  ~Buffer() { munmap(base, size); }
};

struct HarnessEntry {
  const Preset* p;
  bool first_of_op;
};

}  // namespace

SeedRun run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts,
                         const volatile std::sig_atomic_t* stop) {
  auto stopped = [&] { return stop && *stop; };
  if (h == Harness::kex) throw std::invalid_argument("run_seed_harness: the kex harness is run by the sweep");
  const bool fast_c = h != Harness::hahn;  // fast.c's passes: fastc itself and LaHaise's xmm64.c
  const Machine& m = machine();

  // 1. Plan and generate every distinct preset once.
  struct Gen {
    KernelPlan plan;
    size_t code = SIZE_MAX;
    Status status;
  };
  std::map<const Preset*, Gen> gen;
  CodeArena arena;
  for (const Preset* p : list) {
    if (!p || gen.count(p)) continue;
    Gen& g = gen[p];
    g.plan = preset_plan(*p, opts);
    g.status = plan_status(g.plan);
    if (g.status.kind != StatusKind::ok) continue;
    try {
      g.code = arena.add(g.plan.emit);
    } catch (const std::exception& e) {
      g.status = {StatusKind::error, std::string("code generation failed: ") + e.what()};
    }
  }
  arena.finalize();

  // 2. Verify them in the sandbox before anything is timed.
  std::vector<VerifyTarget> targets;
  std::vector<const Preset*> verified;
  for (auto& [p, g] : gen) {
    if (g.status.kind != StatusKind::ok) continue;
    const CodeRef r = arena.ref(g.code);
    VerifyTarget t;
    t.fn = r.as<KernelFn>();
    t.is_copy = p->op == Op::copy;
    t.alignment = p->alignment;
    t.size_multiple = p->region;
    t.code = r.code;
    t.code_size = r.size;
    targets.push_back(t);
    verified.push_back(p);
  }
  auto verdicts = verify_targets(targets, stop);
  if (stopped()) return {};
  for (size_t i = 0; i < verified.size(); ++i)
    if (!verdicts[i].ok())
      gen[verified[i]].status = {StatusKind::error, "verification failed: " + verdicts[i].message, verdicts[i].signal,
                                 verdicts[i].fault_offset};

  // 3. Pin, map the seed's buffer, calibrate (hahn).
  SeedRun run;
  const int cpu = pin_to_one_cpu();
  const size_t buf_bytes = (fast_c ? 16 : 32) * kMiB;
  Buffer buf(buf_bytes, fast_c);
  const double mhz = fast_c ? m.tsc_hz / 1e6 : hahn_mhz();
  SeedHeader& hd = run.header;
  hd.harness = h;
  hd.tsc_mhz = m.tsc_hz / 1e6;
  hd.tsc_source = m.tsc_source;
  hd.pmu_available = m.pmu_available;
  hd.cpu_model = m.model_name;
  hd.pinned_cpu = cpu;
  hd.fsave = opts.fsave;
  hd.buffer_address = reinterpret_cast<uint64_t>(buf.base);
  hd.hahn_mhz = fast_c ? 0 : mhz;

  std::map<const Preset*, uint32_t> runs;
  for (Op op : {Op::clear, Op::copy}) {
    bool first = true;
    for (const Preset* p : list) {
      if (!p || p->op != op) continue;
      if (stopped()) return run;
      const bool warm_label = fast_c && first &&
                              std::find(p->aliases.begin(), p->aliases.end(), "warm up run") != p->aliases.end();
      first = false;
      const Gen& g = gen[p];
      const bool copy = op == Op::copy;
      const size_t pages = fast_c ? (copy ? 2048 : 4096) : (copy ? 4096 : 8192);
      // fast.c's malloc'd buffer: +8 past page alignment for every kernel it ran (glibc on
      // i386); xmm64.c's and athlon.c's buffers were page-aligned. A kernel that needs more
      // than 8-byte alignment (movdqa/movntdq) cannot run at +8 and runs page-aligned.
      const bool plus8 = h == Harness::fastc && p->alignment <= 8;
      const size_t offset = plus8 ? 8 : 0;
      const size_t src_off = fast_c ? 8 * kMiB : 16 * kMiB;
      Coords at;
      at.size = kPageBytes;
      at.harness = h;
      at.pass = ++runs[p];
      SeedFigures f;
      f.pages = pages;
      f.divisor = fast_c ? pages : 8192;  // athlon.c divides copies by all 8192 pages
      f.buffer_offset = offset;
      f.buffer_bytes = buf_bytes;
      f.src_minus_dst = copy ? src_off : 0;
      f.warm_up_pass = !fast_c;
      f.sleep_before_s = fast_c && copy ? seed_waits().fastc_sleep_s : 0;
      f.label = warm_label ? "warm up run" : !fast_c ? g.plan.preset->hahn_printed : p->printed;
      if (!fast_c && copy)
        f.note = "hahn copy figure is half the per-copy cost, as athlon.c printed it (delta/8192 for 4096 copies); "
                 "mb_per_s counts read + write traffic (32 MiB per pass); real_time is the true time per page copy";
      if (h == Harness::fastc && !plus8)
        f.note = "run page-aligned, not at fast.c's +8: the kernel needs " + std::to_string(p->alignment) +
                 "-byte alignment";
      if (g.status.kind != StatusKind::ok) {
        run.results.push_back(make_result(g.plan, at, g.status, {}, std::nullopt, std::nullopt, f));
        continue;
      }
      const CodeRef code = arena.ref(g.code);
      const KernelFn fn = code.as<KernelFn>();
      uint8_t* const b = buf.base + offset;
      auto pass = [&](size_t n) {
        for (size_t i = 0; i < n; ++i) fn(b + kPageBytes * i, copy ? b + src_off + kPageBytes * i : nullptr, kPageBytes);
      };
      uint64_t t0, t1;
      if (fast_c) {
        if (copy)  // fast.c's sleep(1), in slices so a stop is answered at once
          for (int ms = 0; ms < int(f.sleep_before_s * 1000) && !stopped(); ms += 50) usleep(50000);
        if (stopped()) return run;
        t0 = rdtsc_plain();
        pass(pages);
        t1 = rdtsc_plain();
      } else {
        pass(pages);  // untimed warm-up
        t0 = rdtsc_plain();
        cpuid_serialise();
        pass(pages);
        cpuid_serialise();
        t1 = rdtsc_plain();
      }
      const CodeInfo info{code.size, code.hash};
      Placement pl;
      pl.src_offset = copy ? int64_t(offset + src_off) : 0;
      pl.dst_offset = int64_t(offset);
      pl.src_page_offset = copy ? uint32_t(offset % kPageBytes) : 0;
      pl.dst_page_offset = uint32_t(offset % kPageBytes);
      pl.relative_offset = copy ? uint32_t((kPageBytes - (src_off % kPageBytes)) % kPageBytes) : 0;
      if (t1 < t0) {
        run.results.push_back(make_result(g.plan, at, {StatusKind::error, "test invalid; timer overflow"}, {}, pl, info, f));
        continue;
      }
      const uint64_t delta = t1 - t0;
      f.printed_ticks = static_cast<int64_t>(delta / f.divisor);
      f.mb_per_s = fast_c || delta == 0 ? 0 : 32.0 / (double(delta) / (mhz * 1e6));
      f.mhz = fast_c ? 0 : mhz;
      Repetition rep;
      rep.calls_per_sample = static_cast<uint32_t>(pages);
      rep.sample_ticks = {delta};
      rep.per_call = summarize({double(delta) / double(pages)});
      rep.stop_reason = "single pass";
      run.results.push_back(make_result(g.plan, at, {}, {rep}, pl, info, f));
    }
  }
  return run;
}

}  // namespace kex
