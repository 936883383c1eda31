#include "src/run/measure.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "generators/jit.hpp"
#include "src/run/buffers.hpp"
#include "src/run/counters.hpp"
#include "src/run/machine.hpp"
#include "src/run/team.hpp"

namespace kex {

namespace {

/// A per-thread perf counter (read once per point, never per sample: a read is a syscall).
struct PerfCounter {
  int fd = -1;
  PerfCounter(uint32_t type, uint64_t config) {
    perf_event_attr a{};
    a.type = type;
    a.size = sizeof a;
    a.config = config;
    a.exclude_kernel = type == PERF_TYPE_HARDWARE;
    a.exclude_hv = 1;
    fd = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  }
  ~PerfCounter() {
    if (fd >= 0) close(fd);
  }
  bool ok() const { return fd >= 0; }
  uint64_t read_value() const {
    uint64_t v = 0;
    if (fd >= 0 && ::read(fd, &v, sizeof v) != sizeof v) v = 0;
    return v;
  }
};

PerfCounter& hw_cycles() {
  static PerfCounter c(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  return c;
}
PerfCounter& context_switches() {
  static PerfCounter c(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
  return c;
}
PerfCounter& migrations() {
  static PerfCounter c(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
  return c;
}

}  // namespace

void open_perf_counters() {
  hw_cycles();
  context_switches();
  migrations();
}

uint64_t timer_overhead_ticks() {
  static const uint64_t overhead = [] {
    std::vector<double> v;
    for (int i = 0; i < 1001; ++i) {
      uint64_t a = tsc_fenced();
      uint64_t b = tsc_fenced();
      v.push_back(static_cast<double>(b - a));
    }
    return static_cast<uint64_t>(summarize(v).median);
  }();
  return overhead;
}

namespace {

/// Reads [p, p+n) back with 8-byte loads, so the sum depends on every byte.
__attribute__((noinline)) uint64_t read_back(const uint8_t* p, size_t n) {
  uint64_t s0 = 0, s1 = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint64_t a, b;
    memcpy(&a, p + i, 8);
    memcpy(&b, p + i + 8, 8);
    s0 += a;
    s1 ^= b;
  }
  for (; i < n; ++i) s0 += p[i];
  return s0 + s1;
}

volatile uint64_t g_sink;

/// The generated timed loops of this process (generators/driver.hpp), made once: the plain
/// one and the one that reads each call's destination back (consume).
/// The empty routine (a bare ret) is timed beside the competitors: the loop's own cost.
struct Drivers {
  CodeArena arena;
  DriverFn plain = nullptr, consume = nullptr;
  KernelFn empty = nullptr;
  Drivers() {
    const size_t p = arena.add([](Xbyak::CodeGenerator& g) { emit_driver(g, nullptr); });
    const size_t c = arena.add([](Xbyak::CodeGenerator& g) { emit_driver(g, read_back); });
    const size_t e = arena.add(emit_empty);
    arena.finalize();
    plain = arena.ref(p).as<DriverFn>();
    consume = arena.ref(c).as<DriverFn>();
    empty = arena.ref(e).as<KernelFn>();
  }
};

const Drivers& drivers() {
  static const Drivers d;
  return d;
}

/// Runs `passes` operations of `op` back to back through the timed loop.
inline void run_operations(const Operation& op, uint64_t passes) {
  const Drivers& d = drivers();
  const uint64_t sum = (op.at.consume ? d.consume : d.plain)(op.calls->data(), op.calls->size(), passes, op.fn);
  if (op.at.consume) g_sink = sum;
}

}  // namespace

Operation::Operation(KernelFn f, uint8_t* d, const uint8_t* s, const Coords& a, std::optional<uint8_t> e,
                     const Stream* stream, std::shared_ptr<const std::vector<CallArgs>> built)
    : fn(f), dst(d), src(s), at(a), esi_fill(e),
      calls(built ? std::move(built)
                  : std::make_shared<const std::vector<CallArgs>>(stream ? stream_calls(d, s, *stream, e)
                                                                         : operation_calls(d, s, a, e))),
      stream(stream) {}

std::vector<CallArgs> stream_calls(uint8_t* dst, const uint8_t* src, const Stream& stream, std::optional<uint8_t> esi_fill) {
  std::vector<CallArgs> out;
  out.reserve(stream.calls.size());
  for (const StreamCall& c : stream.calls) {
    const uint8_t* from = esi_fill          ? reinterpret_cast<const uint8_t*>(uintptr_t(*esi_fill))
                          : c.overlapping ? dst + c.src_offset
                          : src           ? src + c.src_offset
                                          : nullptr;
    out.push_back({dst + c.dst_offset, from, c.size});
  }
  return out;
}

std::vector<CallArgs> operation_calls(uint8_t* dst, const uint8_t* src, const Coords& at, std::optional<uint8_t> esi_fill) {
  const uint64_t size = at.size;
  const uint64_t chunk = at.chunk ? at.chunk : size;
  // memset's ABI: (dst, int fill, bytes), the fill where a copy's source goes.
  const auto second = [&](uint64_t off) {
    return esi_fill ? reinterpret_cast<const uint8_t*>(uintptr_t(*esi_fill)) : src ? src + off : nullptr;
  };
  if (chunk >= size) return {{dst, second(0), size}};
  std::vector<CallArgs> out;
  out.reserve((size + chunk - 1) / chunk);
  for (uint64_t off = 0; off < size; off += chunk) out.push_back({dst + off, second(off), std::min(chunk, size - off)});
  return out;
}

void run_operation(const Operation& op) { run_operations(op, 1); }

namespace {

/// The untimed part of a sample: prefill the destination, flush src and dst (cold).
void prepare_sample(const Operation& op) {
  if (op.at.prefill) memset(op.dst, *op.at.prefill, region_bytes(op.at));
  if (op.at.cache == CacheMode::cold) {
    if (op.src) Buffers::flush(op.src, region_bytes(op.at));
    Buffers::flush(op.dst, region_bytes(op.at));
  }
}

/// Worker k's operation: op itself for worker 0, else the same on its own buffers.
Operation worker_op(const Operation& op, uint32_t k) {
  if (k == 0) return Operation(op.fn, op.dst, op.src, op.at, op.esi_fill, op.stream, op.calls);
  Operation w(op.fn, op.peers[k - 1].dst, op.peers[k - 1].src, op.at, op.esi_fill, op.stream);
  if (op.stream) {  // the same calls in worker k's own order
    std::vector<CallArgs> mine;
    mine.reserve(w.calls->size());
    for (uint32_t i : worker_call_order(w.calls->size(), op.at.stream_seed, k)) mine.push_back((*w.calls)[i]);
    w.calls = std::make_shared<const std::vector<CallArgs>>(std::move(mine));
  }
  return w;
}

/// Each worker's own time per operation over a repetition's samples (threads > 1).
struct ThreadTimes {
  std::vector<std::vector<double>> per_call;  ///< per worker
  std::vector<double> spread;                 ///< per sample: last start - first start
  void add(const TeamSample& s, uint32_t calls) {
    per_call.resize(s.start.size());
    for (size_t k = 0; k < s.start.size(); ++k) per_call[k].push_back(double(s.end[k] - s.start[k]) / calls);
    spread.push_back(double(s.start_spread()));
  }
  void finish(Repetition& r, const Team& team) const {
    for (size_t k = 0; k < per_call.size(); ++k) {
      const SampleStats st = summarize(per_call[k]);
      r.threads.push_back({team.cpu(uint32_t(k)), st.median, st.min});
    }
    if (!spread.empty()) r.start_spread_ticks = summarize(spread).median;
  }
};

/// One timed sample of `calls` operations, the timer pair subtracted where it matters
/// (> 0.1% of the sample); prefill and flush first, untimed. With threads, every worker
/// runs them on its own buffers from a common start, and `tt` gets each one's times.
uint64_t timed_sample(const Operation& op, uint32_t calls, uint64_t overhead, ThreadTimes* tt = nullptr) {
  if (op.at.threads > 1 && op.team) {
    if (op.workers.empty())
      for (uint32_t k = 0; k < op.at.threads; ++k) op.workers.push_back(worker_op(op, k));
    const std::vector<Operation>& mine = op.workers;
    const TeamSample s = team_sample(
        *op.team, op.at.threads, [&](uint32_t k) { prepare_sample(mine[k]); },
        [&](uint32_t k) { run_operations(mine[k], calls); });
    if (tt) tt->add(s, calls);
    return s.wall();
  }
  prepare_sample(op);
  const uint64_t a = tsc_fenced();
  run_operations(op, calls);
  uint64_t t = tsc_fenced() - a;
  if (overhead * 1000 > t) t = t > overhead ? t - overhead : 0;
  return t;
}

/// The ticks of one operation, to plan how many make a sample: one timed call; with
/// threads, the slowest worker's own time per call over a short sample (the barrier's
/// skew and the team's start are a cost per sample, not per call: counted per call they
/// would make samples of a few calls, where that cost weighs).
uint64_t call_ticks(const Operation& op) {
  if (!(op.team && op.at.threads > 1)) return timed_sample(op, 1, 0);
  constexpr uint32_t kCalls = 4;
  ThreadTimes tt;
  timed_sample(op, kCalls, 0, &tt);
  double most = 0;
  for (const std::vector<double>& w : tt.per_call)
    if (!w.empty()) most = std::max(most, w.back());
  return uint64_t(std::max(most, 1.0));
}

/// A member's plan from the fastest of two calls after a warm-up call: calls to make a
/// sample of about sample_us, samples to fill about member_us (1 .. policy.samples),
/// settling calls of about settle_us (none for calls over 1 ms).
MemberPlan plan_member(const Operation& op, const RoundPolicy& p, double hz) {
  // Warm the member up (its code and data after the others ran), then time two calls.
  timed_sample(op, 1, 0);
  uint64_t one = ~0ull;
  for (int i = 0; i < 2; ++i) one = std::min(one, call_ticks(op));
  const double one_ticks = std::max<double>(double(one), 1);
  MemberPlan m;
  const bool cold = op.at.cache == CacheMode::cold;
  m.calls = cold ? 1 : static_cast<uint32_t>(std::clamp(p.sample_us * 1e-6 * hz / one_ticks, 1.0, 1e7));
  const double sample_ticks = one_ticks * m.calls;
  m.samples = static_cast<uint32_t>(std::clamp(p.member_us * 1e-6 * hz / sample_ticks, 1.0, double(std::max(p.samples, 1u))));
  m.settle = one_ticks > 1e-3 * hz ? 0 : static_cast<uint32_t>(std::clamp(p.settle_us * 1e-6 * hz / one_ticks, 1.0, 64.0));
  return m;
}

}  // namespace

namespace {

/// A round's members and the empty routine after them (when the round has one thread): the
/// empty routine on the first member's calls, timed as a member, is the loop's own cost.
struct RoundMembers {
  std::vector<Operation> ops;
  std::vector<MemberPlan> plans;
  size_t members = 0;  ///< ops[members] is the empty routine when harness
  bool harness = false;
  RoundMembers(const std::vector<Operation>& o, const std::vector<MemberPlan>& p) : ops(o), plans(p), members(o.size()) {
    plans.resize(members);
    harness = !ops.empty() && !(ops[0].team && ops[0].at.threads > 1);
    if (!harness) return;
    ops.push_back(ops[0]);  // the first member's calls, a stream's too
    ops.back().fn = drivers().empty;
    ops.back().workers.clear();  // made again with the empty routine
    plans.emplace_back();  // planned again each round: it races nothing
  }
};

/// Takes every member's samples in turns (rotated one member each visit), each visit settling
/// the member first; `running` holds the member's index + 1 while its code runs.
void take_turns(const RoundMembers& r, const RoundPolicy& policy, std::vector<Repetition>& reps,
                std::vector<std::vector<double>>& per_call, std::vector<ThreadTimes>& threads,
                volatile uint32_t* running) {
  const uint64_t overhead = timer_overhead_ticks();
  const size_t n = r.ops.size();
  const uint32_t block = std::max(policy.block, 1u);
  uint32_t most = 0;
  for (const MemberPlan& m : r.plans) most = std::max(most, m.samples);
  for (uint32_t visit = 0; visit * block < most; ++visit) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + visit) % n;  // rotate: each member follows a different one each visit
      const Operation& op = r.ops[i];
      const MemberPlan& m = r.plans[i];
      if (reps[i].sample_ticks.size() >= m.samples) continue;
      if (running) *running = i < r.members ? uint32_t(i + 1) : 0;
      for (uint32_t s = 0; s < m.settle; ++s) timed_sample(op, 1, 0);
      for (uint32_t b = 0; b < block && reps[i].sample_ticks.size() < m.samples; ++b) {
        const uint64_t t = timed_sample(op, m.calls, overhead, &threads[i]);
        reps[i].sample_ticks.push_back(t);
        per_call[i].push_back(double(t) / m.calls);
      }
    }
  }
  if (running) *running = 0;
}

}  // namespace

std::vector<Repetition> measure_round(const std::vector<Operation>& ops, std::vector<MemberPlan>& plan,
                                      const RoundPolicy& policy, volatile uint32_t* running) {
  const double hz = machine().tsc_hz;
  RoundMembers r(ops, plan);
  const size_t n = r.ops.size();
  std::vector<Repetition> reps(n);
  std::vector<std::vector<double>> per_call(n);
  std::vector<ThreadTimes> threads(n);
  const uint64_t start = tsc_fenced();
  for (size_t i = 0; i < n; ++i)
    if (r.plans[i].calls == 0) {
      if (running) *running = i < r.members ? uint32_t(i + 1) : 0;
      r.plans[i] = plan_member(r.ops[i], policy, hz);
      // The empty routine races nothing: two samples a round make its median over the rounds
      // and cost a round little (a round of two members would otherwise take half again as long).
      if (i >= r.members) r.plans[i].samples = std::min(r.plans[i].samples, 2u);
    }
  const double cycles_per_tick = core_cycles_per_tick();
  const uint64_t cs0 = context_switches().read_value(), mig0 = migrations().read_value();
  take_turns(r, policy, reps, per_call, threads, running);
  const uint64_t cs = context_switches().read_value() - cs0, mig = migrations().read_value() - mig0;
  const double seconds = double(tsc_fenced() - start) / hz;
  const double harness = r.harness ? summarize(per_call[r.members]).median : 0;
  reps.resize(r.members);
  plan.assign(r.plans.begin(), r.plans.begin() + long(r.members));
  for (size_t i = 0; i < r.members; ++i) {
    Repetition& rep = reps[i];
    rep.calls_per_sample = plan[i].calls;
    rep.per_call = summarize(per_call[i]);
    rep.stop_reason = "round";
    rep.cycles_per_tick = cycles_per_tick;
    rep.cycles_method = "imul-chain estimate";
    rep.context_switches = cs;
    rep.migrations = mig;
    rep.seconds = seconds / double(r.members);
    rep.harness_ticks = harness;
    if (ops[i].team && ops[i].at.threads > 1) threads[i].finish(rep, *ops[i].team);
  }
  return reps;
}

namespace {

/// Calls per sample for a separate repetition: from the fastest of a warm-up of at least
/// 3 operations and 2 ms (started at `start`), so a sample lasts about policy.sample_us; 1 cold.
uint32_t warm_up_calls(const Operation& op, const Policy& policy, double hz, uint64_t start) {
  uint64_t one = ~0ull;
  for (int i = 0;; ++i) {
    one = std::min(one, call_ticks(op));
    if (i >= 2 && double(tsc_fenced() - start) / hz >= 0.002) break;
  }
  if (op.at.cache == CacheMode::cold) return 1;
  const double sample_ticks = std::clamp(policy.sample_us, 20.0, 1000.0) * 1e-6 * hz;
  return static_cast<uint32_t>(std::clamp(sample_ticks / std::max<double>(one, 1), 1.0, 1e7));
}

/// The samples of one separate repetition: their ticks, per-call figures and, when
/// counters are open, the counters' sums over the timed samples only (prefill and
/// flush stay outside).
struct SeparateSamples {
  const Operation& op;
  Repetition& m;
  CounterSet* counters;
  bool team;
  uint64_t overhead;
  std::vector<double> per_call;
  std::vector<CounterValue> counted;
  uint64_t ops_counted = 0;
  ThreadTimes threads;

  /// Adds one sample's counter readings to the sums.
  void add_counts(uint32_t calls) {
    const std::vector<CounterValue> v = counters->read();
    if (counted.empty()) counted = v;
    else
      for (size_t x = 0; x < v.size(); ++x) {
        counted[x].value += v[x].value;
        counted[x].running = std::min(counted[x].running, v[x].running);
        counted[x].ok = counted[x].ok && v[x].ok;
      }
    ops_counted += calls;
  }

  /// Takes `count` more samples of m.calls_per_sample calls each.
  void take(uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t k = m.calls_per_sample;
      if (team) {
        const uint64_t t = timed_sample(op, k, overhead, &threads);
        m.sample_ticks.push_back(t);
        per_call.push_back(double(t) / k);
        continue;
      }
      prepare_sample(op);
      if (counters) counters->start();
      uint64_t a = tsc_fenced();
      run_operations(op, k);
      uint64_t b = tsc_fenced();
      if (counters) {
        counters->stop();
        add_counts(k);
      }
      uint64_t t = b - a;
      // Subtract the timer pair only where it matters (> 0.1% of the sample).
      if (overhead * 1000 > t) t = t > overhead ? t - overhead : 0;
      m.sample_ticks.push_back(t);
      per_call.push_back(static_cast<double>(t) / k);
    }
  }
};

/// The loop's own ticks per operation on `op`'s calls: the median of 11 samples of the
/// empty routine, `calls` operations each (a separate repetition's harness figure).
double harness_ticks(const Operation& op, uint32_t calls, uint64_t overhead) {
  Operation empty = op;  // the same calls, a stream's too
  empty.fn = drivers().empty;
  empty.workers.clear();  // made again with the empty routine
  std::vector<double> per_call;
  for (int i = 0; i < 11; ++i) per_call.push_back(double(timed_sample(empty, calls, overhead)) / calls);
  return summarize(per_call).median;
}

}  // namespace

Repetition measure(const Operation& op, const Policy& policy, const volatile std::sig_atomic_t* stop,
                   CounterSet* counters) {
  Repetition m;
  const double hz = machine().tsc_hz;
  const uint64_t start = tsc_fenced();
  const bool team = op.team && op.at.threads > 1;
  SeparateSamples samples{op, m, team ? nullptr : counters, team, timer_overhead_ticks(), {}, {}, 0, {}};
  m.calls_per_sample = warm_up_calls(op, policy, hz, start);
  m.cycles_per_tick = core_cycles_per_tick();
  const bool perf = machine().pmu_available && hw_cycles().ok();
  const uint64_t cs0 = context_switches().read_value(), mig0 = migrations().read_value();
  const uint64_t cyc0 = perf ? hw_cycles().read_value() : 0;
  const uint64_t tick0 = tsc_fenced();
  const uint64_t cap_ticks = static_cast<uint64_t>(policy.max_time_per_point * hz);
  const uint64_t min_ticks = static_cast<uint64_t>(policy.min_time_per_point * hz);
  samples.take(std::max<uint32_t>(policy.min_samples, 3));
  for (;;) {
    m.per_call = summarize(samples.per_call);
    if (m.per_call.ci_rel <= policy.precision && tsc_fenced() - tick0 >= min_ticks) {
      m.stop_reason = "precision";
      break;
    }
    if (m.sample_ticks.size() >= policy.max_samples) { m.stop_reason = "sample_cap"; break; }
    if (tsc_fenced() - start >= cap_ticks) { m.stop_reason = "time_cap"; break; }
    if (stop && *stop) { m.stop_reason = "interrupted"; break; }
    samples.take(std::min<uint32_t>(10, policy.max_samples - static_cast<uint32_t>(m.sample_ticks.size())));
  }
  if (perf) {
    // Measured core cycles over the sampling (includes the timer reads; close enough).
    m.cycles_per_tick = double(hw_cycles().read_value() - cyc0) / double(tsc_fenced() - tick0);
    m.cycles_method = "perf";
  } else {
    // Average the estimate from before and after the samples (clock drift).
    m.cycles_per_tick = (m.cycles_per_tick + core_cycles_per_tick()) / 2;
    m.cycles_method = "imul-chain estimate";
  }
  for (const CounterValue& v : samples.counted)
    if (v.ok && samples.ops_counted) m.counters.push_back({v.name, v.value / double(samples.ops_counted), v.running});
  m.context_switches = context_switches().read_value() - cs0;
  m.migrations = migrations().read_value() - mig0;
  if (team) samples.threads.finish(m, *op.team);
  else m.harness_ticks = harness_ticks(op, m.calls_per_sample, samples.overhead);
  m.seconds = double(tsc_fenced() - start) / hz;
  return m;
}

}  // namespace kex
