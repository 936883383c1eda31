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
#include <optional>
#include <stdexcept>
#include <utility>

#include "generators/jit.hpp"
#include "src/core/limits.hpp"
#include "src/core/units.hpp"
#include "src/run/built.hpp"
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

/// The seed harness's run as it goes: the list and the protocol, every preset's code
/// and status, the seed's buffer and clock, and the Results so far.
struct SeedSession {
  const std::vector<const Preset*>& list;
  Harness h;
  const PresetOptions& opts;
  const volatile std::sig_atomic_t* stop;
  bool fast_c;                            ///< fast.c's passes: fastc itself and LaHaise's xmm64.c
  const Machine& m;
  std::vector<KernelPlan> plans;           ///< every distinct preset of the list, in first-listed order
  std::vector<Built> built;                ///< per plan: its code; not ok: its Results say why, it does not run
  std::map<const Preset*, size_t> kernel;  ///< preset -> its plan
  CodeArena arena;
  std::optional<Buffer> buf;
  size_t buf_bytes = 0;
  double mhz = 0;                         ///< the MHz the figures use: kex's TSC rate or athlon.c's
  SeedRun run;
  std::map<const Preset*, uint32_t> runs; ///< passes so far, per preset

  SeedSession(const std::vector<const Preset*>& l, Harness hh, const PresetOptions& o,
              const volatile std::sig_atomic_t* st)
      : list(l), h(hh), opts(o), stop(st), fast_c(hh != Harness::hahn), m(machine()) {}
  bool stopped() const { return stop && *stop; }
};

/// One kernel's pass: where it runs in the buffer, its point and the seed's figures.
struct SeedPass {
  const KernelPlan* plan = nullptr;
  const Built* built = nullptr;
  bool copy = false;
  size_t pages = 0;    ///< pages per timed pass
  size_t offset = 0;   ///< dst's offset from the buffer's page-aligned start, in bytes
  size_t src_off = 0;  ///< src - dst of a copy, in bytes
  Coords at;
  SeedFigures f;
};

/// 1. Plans and generates every distinct preset of the list once, into the session's
/// arena (finalized); a preset that cannot run or fails to generate keeps its status.
void generate_kernels(SeedSession& s) {
  for (const Preset* p : s.list)
    if (p && s.kernel.emplace(p, s.plans.size()).second) s.plans.push_back(preset_plan(*p, s.opts));
  s.built = build_plans(s.arena, s.plans);
}

/// 2. Verifies every generated preset in the sandbox before anything is timed; a
/// failure becomes its error status. False when a stop ended the verification.
bool verify_kernels(SeedSession& s) {
  std::vector<Verification> checks;
  for (size_t k = 0; k < s.plans.size(); ++k)
    if (s.built[k].status.kind == StatusKind::ok) checks.push_back({verify_target(s.plans[k], s.built[k]), {}, k});
  verify_all(checks, s.stop);
  if (s.stopped()) return false;
  for (const Verification& c : checks) s.built[c.subject].status = verification_status(c);
  return true;
}

/// The run's header once the buffer is mapped and the clock known: the protocol, kex's
/// TSC, the machine, the CPU it is pinned to, the buffer's address (and athlon.c's MHz).
void fill_header(SeedSession& s, int cpu) {
  SeedHeader& hd = s.run.header;
  hd.harness = s.h;
  hd.tsc_mhz = s.m.tsc_hz / 1e6;
  hd.tsc_source = s.m.tsc_source;
  hd.pmu_available = s.m.pmu_available;
  hd.cpu_model = s.m.model_name;
  hd.pinned_cpu = cpu;
  hd.fsave = s.opts.fsave;
  hd.buffer_address = reinterpret_cast<uint64_t>(s.buf->base);
  hd.hahn_mhz = s.h == Harness::hahn ? s.mhz : 0;
}

/// 3. Pins to one CPU, maps the seed's buffer (fast.c: 16 MiB memset to 0xfe; athlon.c:
/// 32 MiB only mapped), calibrates the clock (hahn) and fills in the run's header.
void pin_map_calibrate(SeedSession& s) {
  const int cpu = pin_to_one_cpu();
  s.buf_bytes = (s.fast_c ? 16 : 32) * kMiB;
  s.buf.emplace(s.buf_bytes, s.fast_c);
  s.mhz = s.fast_c ? s.m.tsc_hz / 1e6 : hahn_mhz();
  fill_header(s, cpu);
}

/// Preset `p`'s next pass (its pass number counts up): pages, placement, point and the
/// seed's figures but the timed ones. `first`: the first kernel of its op (fast.c
/// labels it 'warm up run' when it has that alias).
SeedPass plan_pass(SeedSession& s, const Preset* p, bool first) {
  SeedPass ps;
  ps.plan = &s.plans[s.kernel.at(p)];
  ps.built = &s.built[s.kernel.at(p)];
  ps.copy = p->op == Op::copy;
  const bool warm_label =
      s.fast_c && first && std::find(p->aliases.begin(), p->aliases.end(), "warm up run") != p->aliases.end();
  ps.pages = s.fast_c ? (ps.copy ? 2048 : 4096) : (ps.copy ? 4096 : 8192);
  // fast.c's malloc'd buffer: +8 past page alignment for every kernel it ran (glibc on
  // i386); xmm64.c's and athlon.c's buffers were page-aligned. A kernel that needs more
  // than 8-byte alignment (movdqa/movntdq) cannot run at +8 and runs page-aligned.
  const bool plus8 = s.h == Harness::fastc && p->alignment <= 8;
  ps.offset = plus8 ? 8 : 0;
  ps.src_off = s.fast_c ? 8 * kMiB : 16 * kMiB;
  ps.at.size = kPageBytes;
  ps.at.harness = s.h;
  ps.at.pass = ++s.runs[p];
  SeedFigures& f = ps.f;
  f.pages = ps.pages;
  f.divisor = s.fast_c ? ps.pages : 8192;  // athlon.c divides copies by all 8192 pages
  f.buffer_offset = ps.offset;
  f.buffer_bytes = s.buf_bytes;
  f.src_minus_dst = ps.copy ? ps.src_off : 0;
  f.warm_up_pass = !s.fast_c;
  f.sleep_before_s = s.fast_c && ps.copy ? seed_waits().fastc_sleep_s : 0;
  f.label = warm_label ? "warm up run" : !s.fast_c ? ps.plan->preset->hahn_printed : p->printed;
  if (!s.fast_c && ps.copy)
    f.note = "hahn copy figure is half the per-copy cost, as athlon.c printed it (delta/8192 for 4096 copies); "
             "mb_per_s counts read + write traffic (32 MiB per pass); real_time is the true time per page copy";
  if (s.h == Harness::fastc && !plus8)
    f.note = "run page-aligned, not at fast.c's +8: the kernel needs " + std::to_string(p->alignment) +
             "-byte alignment";
  return ps;
}

/// Times one pass of `fn` over the pass's pages as the seed did. fast.c: sleep(1)
/// before a copy (in 50 ms slices, so a stop is answered at once), rdtsc, pass, rdtsc;
/// athlon.c: an untimed pass, then rdtsc, cpuid, pass, cpuid, rdtsc. Returns the two
/// TSC readings, or nothing when a stop came before the pass.
std::optional<std::pair<uint64_t, uint64_t>> time_pass(const SeedSession& s, const SeedPass& ps, KernelFn fn) {
  uint8_t* const b = s.buf->base + ps.offset;
  auto pass = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) fn(b + kPageBytes * i, ps.copy ? b + ps.src_off + kPageBytes * i : nullptr, kPageBytes);
  };
  uint64_t t0, t1;
  if (s.fast_c) {
    if (ps.copy)  // fast.c's sleep(1), in slices so a stop is answered at once
      for (int ms = 0; ms < int(ps.f.sleep_before_s * 1000) && !s.stopped(); ms += 50) usleep(50000);
    if (s.stopped()) return std::nullopt;
    t0 = rdtsc_plain();
    pass(ps.pages);
    t1 = rdtsc_plain();
  } else {
    pass(ps.pages);  // untimed warm-up
    t0 = rdtsc_plain();
    cpuid_serialise();
    pass(ps.pages);
    cpuid_serialise();
    t1 = rdtsc_plain();
  }
  return std::make_pair(t0, t1);
}

/// Where the pass's src and dst were, relative to the buffer and to their pages.
Placement pass_placement(const SeedPass& ps) {
  Placement pl;
  pl.src_offset = ps.copy ? int64_t(ps.offset + ps.src_off) : 0;
  pl.dst_offset = int64_t(ps.offset);
  pl.src_page_offset = ps.copy ? uint32_t(ps.offset % kPageBytes) : 0;
  pl.dst_page_offset = uint32_t(ps.offset % kPageBytes);
  pl.relative_offset = ps.copy ? uint32_t((kPageBytes - (ps.src_off % kPageBytes)) % kPageBytes) : 0;
  return pl;
}

/// The Result of a pass timed from TSC reading t0 to t1: one repetition of one sample
/// (ticks per page), the printed ticks (delta / divisor, truncated) and hahn's MB/s at
/// its MHz. A TSC that went backwards gives an error Result.
Result timed_result(const SeedSession& s, SeedPass& ps, uint64_t t0, uint64_t t1) {
  const std::optional<CodeInfo>& info = ps.built->info;
  const Placement pl = pass_placement(ps);
  if (t1 < t0) return make_result(*ps.plan, ps.at, {StatusKind::error, "test invalid; timer overflow"}, {}, pl, info, ps.f);
  const uint64_t delta = t1 - t0;
  ps.f.printed_ticks = static_cast<int64_t>(delta / ps.f.divisor);
  ps.f.mb_per_s = s.fast_c || delta == 0 ? 0 : 32.0 / (double(delta) / (s.mhz * 1e6));
  ps.f.mhz = s.fast_c ? 0 : s.mhz;
  Repetition rep;
  rep.calls_per_sample = static_cast<uint32_t>(ps.pages);
  rep.sample_ticks = {delta};
  rep.per_call = summarize({double(delta) / double(ps.pages)});
  rep.stop_reason = "single pass";
  return make_result(*ps.plan, ps.at, {}, {rep}, pl, info, ps.f);
}

/// 4. Every kernel of op `op` in list order, one pass each, its Result appended to the
/// run (a preset that cannot run: its status as the Result). False when a stop came.
bool run_passes(SeedSession& s, Op op) {
  bool first = true;
  for (const Preset* p : s.list) {
    if (!p || p->op != op) continue;
    if (s.stopped()) return false;
    SeedPass ps = plan_pass(s, p, first);
    first = false;
    if (ps.built->status.kind != StatusKind::ok) {
      s.run.results.push_back(make_result(*ps.plan, ps.at, ps.built->status, {}, std::nullopt, std::nullopt, ps.f));
      continue;
    }
    const auto ticks = time_pass(s, ps, ps.built->fn);
    if (!ticks) return false;
    s.run.results.push_back(timed_result(s, ps, ticks->first, ticks->second));
  }
  return true;
}

// ---- Asami's mem_cp (docs/seed-kernels.md §7.1, §7.6) ----

constexpr size_t kTotalSize = 4194304;  // mem_cp.c's TOTALSIZE: the bytes copied per size

/// 3'. mem_cp's buffers: pins to one CPU and maps dst (TOTALSIZE) and src (TOTALSIZE right
/// after it), page-aligned as a large malloc was; fills in the run's header.
void pin_map_mem_cp(SeedSession& s) {
  const int cpu = pin_to_one_cpu();
  s.buf_bytes = 2 * kTotalSize;
  s.buf.emplace(s.buf_bytes, false);
  s.mhz = s.m.tsc_hz / 1e6;
  fill_header(s, cpu);
}

/// mem_cp's set-up of one size: src filled with random() words seeded from
/// gettimeofday, dst zeroed ("ensure both ... are not swapped"); a fresh process per
/// size in runtests, so fresh data here per point.
void fill_mem_cp(uint8_t* dst, uint8_t* src) {
  timeval tv;
  gettimeofday(&tv, nullptr);
  srandom(static_cast<unsigned>(tv.tv_sec ^ tv.tv_usec));
  for (size_t i = 0; i < kTotalSize; i += 4) {
    const uint32_t w = static_cast<uint32_t>(random());
    memcpy(src + i, &w, 4);
  }
  memset(dst, 0, kTotalSize);
}

/// mem_cp's check after the timed copies: "" when dst[0, n) equals src, else its message
/// for the first byte that differs ("byte 17, should be 3a is 00").
std::string check_mem_cp(const uint8_t* dst, const uint8_t* src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (dst[i] != src[i]) {
      char b[96];
      snprintf(b, sizeof b, "mem_cp: byte %zu, should be %02x is %02x", i, src[i], dst[i]);
      return b;
    }
  return {};
}

/// One point of mem_cp: TOTALSIZE / size copies of `size` bytes through the buffers
/// (copy i: dst + i*size <- src + i*size), timed with gettimeofday (and the TSC), then
/// verified. Its Result: one repetition of one sample, MB/s of 2^20 bytes as mem_cp
/// printed mb / (usecs / 1e6), bytes counted once.
Result mem_cp_point(SeedSession& s, const KernelPlan& plan, const Built& b, const Coords& at) {
  const size_t size = at.size, n = std::max<size_t>(1, kTotalSize / size);
  uint8_t* const dst = s.buf->base;
  uint8_t* const src = dst + kTotalSize;
  fill_mem_cp(dst, src);
  const KernelFn fn = b.fn;
  timeval t0, t1;
  gettimeofday(&t0, nullptr);
  const uint64_t k0 = rdtsc_plain();
  for (size_t i = 0; i < n; ++i) fn(dst + i * size, src + i * size, size);
  const uint64_t k1 = rdtsc_plain();
  gettimeofday(&t1, nullptr);
  const double usecs = double(t1.tv_sec - t0.tv_sec) * 1e6 + double(t1.tv_usec - t0.tv_usec);
  SeedFigures f;
  f.pages = n;
  f.divisor = n;
  f.buffer_bytes = kTotalSize;
  f.src_minus_dst = kTotalSize;
  f.label = plan.preset->printed;
  const uint64_t delta = k1 > k0 ? k1 - k0 : 0;
  f.printed_ticks = static_cast<int64_t>(delta / n);
  f.mb_per_s = usecs > 0 ? double(n * size) / double(1 << 20) / (usecs / 1e6) : 0;
  Placement pl;
  pl.src_offset = int64_t(kTotalSize);
  const std::optional<CodeInfo>& info = b.info;
  if (std::string bad = check_mem_cp(dst, src, n * size); !bad.empty())
    return make_result(plan, at, {StatusKind::error, bad}, {}, pl, info, f);
  Repetition rep;
  rep.calls_per_sample = static_cast<uint32_t>(n);
  rep.sample_ticks = {delta};
  rep.per_call = summarize({double(delta) / double(n)});
  rep.stop_reason = "single pass";
  rep.seconds = usecs / 1e6;
  return make_result(plan, at, {}, {rep}, pl, info, f);
}

/// 4'. Every preset of the list in order, at every size ascending (runtests ran one
/// function at every size): a copy's points measured, a clear's skipped (mem_cp timed
/// bcopy). False when a stop came.
bool run_mem_cp(SeedSession& s, std::vector<uint64_t> sizes) {
  if (sizes.empty()) sizes = mem_cp_sizes();
  std::sort(sizes.begin(), sizes.end());
  for (const Preset* p : s.list) {
    if (!p) continue;
    const size_t k = s.kernel.at(p);
    Coords at;
    at.harness = Harness::mem_cp;
    at.pass = ++s.runs[p];
    for (uint64_t size : sizes) {
      if (s.stopped()) return false;
      at.size = size;
      Status st = s.built[k].status;
      if (st.kind == StatusKind::ok && p->op != Op::copy) st = {StatusKind::skipped, "mem_cp times copies only"};
      if (st.kind == StatusKind::ok && size % p->region)
        st = {StatusKind::skipped, "the kernel copies whole " + std::to_string(p->region) + "-byte regions"};
      if (st.kind != StatusKind::ok) {
        s.run.results.push_back(make_result(s.plans[k], at, st, {}, std::nullopt, std::nullopt, std::nullopt));
        continue;
      }
      s.run.results.push_back(mem_cp_point(s, s.plans[k], s.built[k], at));
    }
  }
  return true;
}

}  // namespace

const std::vector<uint64_t>& mem_cp_sizes() {
  static const std::vector<uint64_t> sizes = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 10000};
  return sizes;
}

SeedRun run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts,
                         const volatile std::sig_atomic_t* stop, const std::vector<uint64_t>& sizes) {
  if (h == Harness::kex) throw std::invalid_argument("run_seed_harness: the kex harness is run by the sweep");
  SeedSession s(list, h, opts, stop);
  generate_kernels(s);
  if (!verify_kernels(s)) return {};
  if (h == Harness::mem_cp) {
    pin_map_mem_cp(s);
    if (!run_mem_cp(s, sizes)) return {};  // cut short by a stop: not a pass
    return std::move(s.run);
  }
  pin_map_calibrate(s);
  for (Op op : {Op::clear, Op::copy})
    if (!run_passes(s, op)) break;
  return std::move(s.run);
}

}  // namespace kex
