#include "src/run/segments.hpp"

#include <asm/prctl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "src/run/segments_detail.hpp"

// The measurement and the section; the set-up is in segments_setup.cpp, the case
// table and its probes in segments_cases.cpp (shared through segments_detail.hpp).

namespace kex::segments_detail {

namespace {

/// Restores the affinity mask of the calling thread when it goes out of scope.
struct AffinityGuard {
  cpu_set_t saved{};
  bool ok = false;
  AffinityGuard() { ok = sched_getaffinity(0, sizeof saved, &saved) == 0; }
  ~AffinityGuard() { if (ok) sched_setaffinity(0, sizeof saved, &saved); }
};

uint64_t median_of(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds a timed chunk of a segment case lasts at most (about): the stop latency.
constexpr double kChunkSeconds = 0.02;

/// The passes of the next chunk after `chunk` passes took `ticks`: about
/// `target_ticks`, at most 4 times the last (one fast reading does not make a long chunk).
uint64_t next_chunk(uint64_t chunk, uint64_t ticks, double target_ticks) {
  if (ticks == 0) return chunk * 4;
  const double want = double(chunk) * target_ticks / double(ticks);
  return std::max<uint64_t>(1, std::min<uint64_t>(chunk * 4, static_cast<uint64_t>(want)));
}

/// A SIGINT or SIGTERM waits (blocked while a case runs).
bool stop_pending() {
  sigset_t pending;
  return sigpending(&pending) == 0 && (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

uint64_t cputime_ns() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return uint64_t(t.tv_sec) * 1'000'000'000ull + uint64_t(t.tv_nsec);
}

/// A case's identity in the section: name, register, selectors, variant, and its
/// skip message when it is not measured.
SegmentCase case_record(const Case& c) {
  SegmentCase j;
  j.name = c.name;
  j.segment = c.spec.seg;
  if (c.selector) j.selector = hex_selector(*c.selector);
  j.selector_kind = c.kind;
  j.variant = c.spec.variant;
  if (c.entry) {
    j.entry_selector = hex_selector(*c.entry);
    j.entry_selector_kind = c.entry_kind;
  }
  if (c.spec.set_base && c.spec.variant != SegVariant::mixed) j.base = hex_addr(c.spec.base);
  if (c.spec.variant == SegVariant::mixed) j.restored_selector = hex_selector(*c.entry) + (*c.entry == 0 ? " (base 0)" : "");
  j.skipped = !c.skip.empty();
  j.skip_message = c.skip;
  return j;
}

/// A case's timed samples: TSC ticks per sample of `per_sample` iterations, the
/// CLOCK_PROCESS_CPUTIME_ID nanoseconds around them; fewer than asked when a stop came.
struct CaseSamples {
  std::vector<uint64_t> ticks;
  uint64_t cpu_ns = 0, per_sample = 0;
  double cycles_per_tick = 0;  ///< core cycles per TSC tick, read after the warm-up
};

/// Times `fn` (case `c`) in `o.repetitions` samples with every signal blocked (no
/// handler may run while fs is not glibc's); throws std::runtime_error when the case
/// left the fs or gs base changed (after putting it back).
CaseSamples measure_case(const Case& c, SegKernelFn fn, const SegmentOptions& o, uint64_t per_sample_wanted,
                         double tsc_hz, const Selectors& sel) {
  CaseSamples out;
  const uint64_t passes = std::max<uint64_t>(1, (per_sample_wanted + c.spec.unroll - 1) / c.spec.unroll);
  out.per_sample = passes * c.spec.unroll;
  SegState st;
  st.fs_base = sel.fs_base;
  st.gs_base = sel.gs_base;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  // A sample is timed in chunks of about 20 ms (one TSC pair each, summed): after
  // every chunk, also a sample's last, a pending SIGINT/SIGTERM ends the table, so
  // no case holds a stop longer than a chunk whatever its iteration count. The
  // chunk starts at a few thousand iterations and follows the time the last took.
  const double chunk_ticks = tsc_hz * kChunkSeconds;
  uint64_t chunk = std::max<uint64_t>(1, 4096 / c.spec.unroll);
  bool interrupted = false;  // a stop is pending: no further chunk
  auto timed = [&](uint64_t n) {
    uint64_t sum = 0, done = 0;
    while (done < n && !interrupted) {
      const uint64_t k = std::min(n - done, chunk);
      const uint64_t t = fn(k, &st);
      sum += t;
      done += k;
      if (k == chunk) chunk = next_chunk(chunk, t, chunk_ticks);
      interrupted = stop_pending();
    }
    return done == n ? std::optional<uint64_t>(sum) : std::nullopt;
  };
  timed(std::max<uint64_t>(1, passes / 8));  // warm-up
  out.cycles_per_tick = core_cycles_per_tick();
  for (int r = 0; r < o.repetitions && !interrupted; ++r) {
    // The seed's clock around each sample too: it timed its loops with
    // CLOCK_PROCESS_CPUTIME_ID (docs/seed-kernels.md §8).
    const uint64_t t0 = cputime_ns();
    const std::optional<uint64_t> sample = timed(passes);
    out.cpu_ns += cputime_ns() - t0;
    if (sample) out.ticks.push_back(*sample);
  }
  // Unblocking delivers a pending stop: kex run's handler counts it (the table
  // ends here), and without a handler (kex segments) the signal ends the process.
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (get_base(ARCH_GET_FS) != sel.fs_base || read_fs() != sel.fs) {
    syscall(SYS_arch_prctl, ARCH_SET_FS, sel.fs_base);
    throw std::runtime_error("segments: " + c.name + " left the fs base changed");
  }
  if (get_base(ARCH_GET_GS) != sel.gs_base || read_gs() != sel.gs) {
    syscall(SYS_arch_prctl, ARCH_SET_GS, sel.gs_base);
    throw std::runtime_error("segments: " + c.name + " left the gs base changed");
  }
  return out;
}

/// A measured case's figures: the fastest sample per iteration (ns, TSC ticks, and
/// estimated core cycles), the median, the counts behind them.
void add_figures(SegmentCase& j, const CaseSamples& s, const Case& c, const SegmentOptions& o, double tsc_hz) {
  const double cycles_per_tick = s.cycles_per_tick;
  const uint64_t mn = *std::min_element(s.ticks.begin(), s.ticks.end());
  const uint64_t med = median_of(s.ticks);
  const double ticks = double(mn) / double(s.per_sample);
  j.ns_per_iteration = ticks / tsc_hz * 1e9;
  j.ticks_per_iteration = ticks;
  j.est_cycles_per_iteration = ticks * cycles_per_tick;
  j.cycles_method = "imul-chain estimate";
  j.cycles_per_tick = cycles_per_tick;
  j.repetitions = o.repetitions;
  j.iterations_per_sample = s.per_sample;
  j.unroll = uint64_t(c.spec.unroll);
  j.min_ticks = mn;
  j.median_ticks = med;
  j.median_ns_per_iteration = double(med) / double(s.per_sample) / tsc_hz * 1e9;
  j.timed_iterations = s.per_sample * uint64_t(o.repetitions);
  j.cputime_ns = s.cpu_ns;
}

/// The section's header: the CPU, the selectors on entry and those set up (null
/// where one could not be, with the reason), the clocks and the protocol.
SegmentHeader segments_header(const Machine& m, const Selectors& s, const Descriptors& desc, const SegmentOptions& o,
                              int cpu, bool clears_base, bool fsgsbase) {
  SegmentHeader h;
  h.cpu_model = m.model_name;
  h.mhz = m.cpuinfo_mhz > 0 ? m.cpuinfo_mhz : m.tsc_hz / 1e6;
  const double mhz_after = cpuinfo_of(m.cache_cpu).mhz;  // the block "mhz" was read from
  if (mhz_after > 0) h.mhz_after = mhz_after;
  h.family = m.family;
  h.model = m.model;
  h.stepping = m.stepping;
  auto sel_or_null = [](bool ok, uint16_t v) { return ok ? std::optional<std::string>(hex_selector(v)) : std::nullopt; };
  h.selectors = {{"ds", hex_selector(s.ds)},     {"ss", hex_selector(s.ss)},
                 {"fs", hex_selector(s.fs)},     {"gs", hex_selector(s.gs)},
                 {"data", hex_selector(s.data)}, {"ldt", sel_or_null(desc.ldt.ok(), s.ldt)},
                 {"gdt", sel_or_null(desc.tls.ok(), s.tls)}};
  if (!desc.ldt.ok()) h.ldt_error = desc.ldt.error;
  if (!desc.tls.ok()) h.gdt_error = desc.tls.error;
  h.entry_selectors = NamedSelectors{{"null", hex_selector(0)},
                                     {"data", hex_selector(s.data)},
                                     {"ldt", sel_or_null(desc.ldt_entry.ok(), s.ldt_entry)},
                                     {"gdt-tls", sel_or_null(desc.tls_entry.ok(), s.tls_entry)},
                                     {"gdt-cpunode", hex_selector(kCpuNodeSelector)}};
  if (!desc.ldt_entry.ok()) h.ldt_entry_error = desc.ldt_entry.error;
  if (!desc.tls_entry.ok()) h.gdt_entry_error = desc.tls_entry.error;
  h.timer = "TSC";
  h.seed_clock = "CPUTIME";
  h.tsc_hz = m.tsc_hz;
  h.iterations = o.iterations;
  h.repetitions = o.repetitions;
  h.cpu = cpu;
  h.null_selector_clears_base = clears_base;
  h.base_restore = fsgsbase ? "wrfsbase/wrgsbase" : "arch_prctl";
  return h;
}

/// JITs every case's kernel up front, one arena, one mprotect (docs/methodology.md §1.6);
/// a skipped case gets no code.
std::vector<Built> build_kernels(CodeArena& arena, const std::vector<Case>& cases) {
  std::vector<std::function<void(Xbyak::CodeGenerator&)>> emits(cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].skip.empty()) emits[i] = [&c = cases[i]](Xbyak::CodeGenerator& g) { emit_segment_kernel(g, c.spec); };
  return emit_kernels(arena, emits);
}

/// Probes each case in a child of its own first: one that faults, or leaves
/// anything changed, never reaches the measuring process or another probe.
void probe_cases(std::vector<Case>& cases, const std::vector<Built>& built, const SegmentOptions& o) {
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    if (o.stop && *o.stop) break;
    if (c.skip.empty() && built[i].status.kind != StatusKind::ok) c.skip = built[i].status.message;
    if (!c.skip.empty()) continue;
    const auto fn = built[i].as<SegKernelFn>();
    const SandboxOutcome out = run_sandboxed(1, [&](size_t) { return check_case_here(c, fn); }, 10).at(0);
    c.skip = out.finished ? out.message : describe_fault(c, built[i], out);
  }
}

/// Measures the probed cases in table order into `out.cases`, until a stop or a case cut short.
void measure_cases(SegmentSection& out, const std::vector<Case>& cases, const std::vector<Built>& built,
                   const SegmentOptions& o, double tsc_hz, const Selectors& sel) {
  const uint64_t per_sample_wanted = (o.iterations + o.repetitions - 1) / o.repetitions;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (o.stop && *o.stop) break;  // signals are blocked inside a case; between cases a stop is seen
    SegmentCase j = case_record(c);
    if (!c.skip.empty()) {
      out.cases.push_back(std::move(j));
      continue;
    }
    const CaseSamples s = measure_case(c, built[i].as<SegKernelFn>(), o, per_sample_wanted, tsc_hz, sel);
    if (s.ticks.size() < size_t(o.repetitions)) break;  // the case was cut short: it has no figure
    add_figures(j, s, c, o, tsc_hz);
    out.cases.push_back(std::move(j));
  }
}

}  // namespace

/// run_segments with its options checked.
SegmentSection run_table(const SegmentOptions& o) {
  const Machine& m = machine();
  AffinityGuard affinity;
  const int cpu = pin_to_one_cpu();
  Selectors sel = process_selectors();
  const bool clears_base = null_selector_clears_base();
  const bool fsgsbase = m.fsgsbase_enabled;

  DataPage page;
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kChase) = page.addr(DataPage::kChase);
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kBase) = 0;
  Descriptors desc(page);
  add_set_up_selectors(sel, desc);
  std::vector<Case> cases = build_cases(o, selector_blocks(o, sel, page, desc), entry_choices(sel, page, desc), page,
                                        clears_base, fsgsbase);
  CodeArena arena;
  const std::vector<Built> built = build_kernels(arena, cases);
  probe_cases(cases, built, o);
  SegmentSection out;
  measure_cases(out, cases, built, o, m.tsc_hz, sel);
  out.header = segments_header(m, sel, desc, o, cpu, clears_base, fsgsbase);
  return out;
}

}  // namespace kex::segments_detail

namespace kex {

SegmentSection run_segments(const SegmentOptions& o) {
  if (o.iterations == 0) throw std::invalid_argument("segments: iterations must be >= 1");
  if (o.repetitions < 1) throw std::invalid_argument("segments: repetitions must be >= 1");
  return segments_detail::run_table(o);
}

}  // namespace kex
