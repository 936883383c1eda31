// The measuring worker of run_supervised: a forked child that maps the buffers, measures
// its share of the queue (one task, or one paired round, at a time) with the sentinel's
// readings between, and reports every step to the parent as a frame.
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>

#include "src/core/error.hpp"
#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
#include "src/core/units.hpp"
#include "src/model/result_json.hpp"
#include "src/run/counters.hpp"
#include "src/run/measure.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/shared_objects.hpp"
#include "src/run/supervisor_detail.hpp"
#include "src/run/team.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

/// Stream passes a worker keeps built (each 1.5 MiB at the default 65,536 calls).
constexpr size_t kKeptPasses = 8;

/// `s`'s calls on dst/src (stream_calls), built once for a worker's repetitions of a point and
/// the points of one stream on the same buffers: building a pass took most of a stream
/// tune's time (every repetition built its own). An entry holds its stream, so no other
/// stream takes its address while it is kept; the latest used first.
std::shared_ptr<const std::vector<CallArgs>> kept_pass(const std::shared_ptr<const Stream>& s, uint8_t* dst,
                                                       const uint8_t* src, std::optional<uint8_t> esi) {
  struct Pass {
    std::shared_ptr<const Stream> stream;
    uint8_t* dst;
    const uint8_t* src;
    std::optional<uint8_t> esi;
    std::shared_ptr<const std::vector<CallArgs>> calls;
  };
  static std::vector<Pass> kept;
  for (size_t i = 0; i < kept.size(); ++i)
    if (kept[i].stream == s && kept[i].dst == dst && kept[i].src == src && kept[i].esi == esi) {
      std::rotate(kept.begin(), kept.begin() + std::ptrdiff_t(i), kept.begin() + std::ptrdiff_t(i) + 1);
      return kept.front().calls;
    }
  auto calls = std::make_shared<const std::vector<CallArgs>>(stream_calls(dst, src, *s, esi));
  kept.insert(kept.begin(), Pass{s, dst, src, esi, calls});
  if (kept.size() > kKeptPasses) kept.pop_back();
  return calls;
}

}  // namespace

Operation job_operation(const MeasureJob& j, uint8_t* dst, const uint8_t* src) {
  const void* entry = j.entry_slot && *j.entry_slot ? *j.entry_slot : j.entry;
  const KernelFn fn = entry ? reinterpret_cast<KernelFn>(const_cast<void*>(entry)) : j.fn;
  std::optional<uint8_t> esi;
  if (entry && j.fill_in_esi) esi = j.fill;
  return Operation(fn, dst, src, j.at, esi, j.stream.get(), j.stream ? kept_pass(j.stream, dst, src, esi) : nullptr);
}

}  // namespace kex

namespace kex::supervisor_detail {

void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

namespace {

int g_worker_fd = -1;
int g_proc_stat = -1;  ///< /proc/stat, opened before the filter (steal time per task)
volatile std::sig_atomic_t g_worker_stop = 0;

/// In the worker: a stop (Ctrl-C to the group, or the supervisor's SIGINT) ends it after the current task.
extern "C" void on_worker_stop(int) { g_worker_stop = 1; }

/// In the worker: report a fault (write(2) only) and die by it.
extern "C" void on_worker_fault(int sig, siginfo_t* si, void* uc) {
  struct {
    Frame f;
    FaultInfo i;
  } m{{kFault, sizeof(FaultInfo)}, {sig, 0, 0, reinterpret_cast<uint64_t>(si->si_addr)}};
  m.i.ip = static_cast<uint64_t>(static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_RIP]);
  if (sig == SIGALRM) m.i.addr = 0;
  if (sig == SIGSYS) m.i.addr = refused_call(si->si_arch, si->si_syscall);
  if (g_worker_fd >= 0) {
    ssize_t w = write(g_worker_fd, &m, sizeof m);
    (void)w;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void send(int fd, Kind kind, const std::string& payload) {
  Frame f{kind, static_cast<uint32_t>(payload.size())};
  if (!write_all(fd, &f, sizeof f) || !write_all(fd, payload.data(), payload.size())) _exit(3);
}

/// In the worker: the sentinel's buffers, or InputError naming the limit that refused them.
std::unique_ptr<Sentinel> map_sentinel(uint64_t mem_bytes) {
  try {
    return std::make_unique<Sentinel>(mem_bytes);
  } catch (const std::runtime_error& e) {
    const int err = errno;
    throw InputError("cannot map the sentinel's " + format_bytes(mem_bytes) + " read buffer (" + e.what() +
                     limit_note(err) + "); raise the limit or run with --no-sentinel");
  }
}

/// In the worker: 0..15 huge pages (drawn from the run's seed and the task it starts
/// at), THP-advised and touched, held for the worker's life; none when they cannot be
/// mapped (the buffers then go where they go).
struct Spacer {
  void* base = nullptr;
  size_t bytes = 0;
  Spacer(uint64_t seed, size_t start) {
    std::mt19937_64 rng(seed ^ (0x94d049bb133111ebull * (start + 1)));
    bytes = size_t(rng() % 16) << 21;
    if (bytes == 0) return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      bytes = 0;
      return;
    }
    madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0x5a, bytes);
    base = p;
  }
  ~Spacer() {
    if (base) munmap(base, bytes);
  }
  Spacer(const Spacer&) = delete;
  Spacer& operator=(const Spacer&) = delete;
};

/// In the worker: every buffer plan mapped as far as the address space allows, each
/// for the points (jobs) that use it.
std::vector<std::unique_ptr<PlanBuffers>> map_buffers(const std::vector<MeasureJob>& jobs,
                                                      const std::vector<BufferPlan>& plans) {
  std::vector<std::vector<PlanPoint>> points(plans.size());
  for (const MeasureJob& j : jobs)
    if (j.buffer_plan < plans.size()) points[j.buffer_plan].push_back({j.at.layout, region_bytes(j.at)});
  std::vector<std::unique_ptr<PlanBuffers>> out;
  for (size_t k = 0; k < plans.size(); ++k) out.push_back(std::make_unique<PlanBuffers>(plans[k], points[k]));
  return out;
}

/// The most threads a job asks for (1 when none asks for more).
uint32_t most_threads(const std::vector<MeasureJob>& jobs) {
  uint32_t n = 1;
  for (const MeasureJob& j : jobs) n = std::max(n, j.at.threads);
  return n;
}

/// On helper thread k: each buffer plan, for the jobs with more than k threads only,
/// mapped (and so first-touched) by this thread, near its CPU; null where no job needs it.
std::vector<std::unique_ptr<PlanBuffers>> map_peer_buffers(const std::vector<MeasureJob>& jobs,
                                                           const std::vector<BufferPlan>& plans, uint32_t k) {
  std::vector<std::unique_ptr<PlanBuffers>> out(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    std::vector<std::pair<Layout, uint64_t>> layouts;
    std::vector<PlanPoint> points;
    for (const MeasureJob& j : jobs) {
      if (j.buffer_plan != i || j.at.threads <= k) continue;
      points.push_back({j.at.layout, region_bytes(j.at)});
      add_layout(layouts, j.at.layout, region_bytes(j.at));
    }
    if (points.empty()) continue;
    out[i] = std::make_unique<PlanBuffers>(BufferPlan(layouts, plans[i].max_alignment(), plans[i].huge_pages()), points);
  }
  return out;
}

/// In the worker: the helper threads of multi-threaded points (none when every point has
/// one thread), each with its own buffers, mapped on its own CPU.
struct Peers {
  std::unique_ptr<Team> team;
  std::vector<std::vector<std::unique_ptr<PlanBuffers>>> bufs;  ///< [k][plan], k = 1..; bufs[0] unused
  Peers(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans, const Protocol& pr) {
    const uint32_t n = most_threads(jobs);
    if (n <= 1) return;
    if (pr.thread_cpus.size() < n) throw std::runtime_error("no placement for the points' threads");
    team = std::make_unique<Team>(std::vector<int>(pr.thread_cpus.begin(), pr.thread_cpus.begin() + n));
    bufs.resize(n);
    team->run(n, [&](uint32_t k) {
      if (k == 0) return;
      bind_memory_near(pr.thread_cpus[k]);
      bufs[k] = map_peer_buffers(jobs, plans, k);
    });
  }
  /// Worker 1.. buffers of a job, or the refusal of the first that cannot be placed.
  std::string place(const MeasureJob& j, Operation& op) const {
    for (uint32_t k = 1; k < j.at.threads; ++k) {
      const PlanBuffers* b = k < bufs.size() && j.buffer_plan < bufs[k].size() ? bufs[k][j.buffer_plan].get() : nullptr;
      if (!b) return "no buffers for worker " + std::to_string(k);
      const Place pl = b->place(j.at.layout, region_bytes(j.at), j.alignment);
      if (!pl.refusal.empty()) return "worker " + std::to_string(k) + ": " + pl.refusal;
      op.peers.push_back({pl.dst, j.copy ? pl.src : nullptr});
    }
    op.team = team.get();
    return "";
  }
};

/// Where a plan's mapping landed (bytes 0 when none of it could be mapped).
BufferPlacement placement_of(const PlanBuffers& b, const BufferPlan& plan) {
  BufferPlacement p;
  p.huge_pages_advised = plan.huge_pages();
  p.planned_bytes = b.planned_bytes();
  if (const Buffers* m = b.mapped()) {
    p.bytes = m->bytes();
    p.huge_page_bytes = m->huge_page_bytes();
    p.numa_nodes = m->numa_nodes();
  }
  return p;
}


/// In the worker: one task measured; returns its repetitions (point, repetition), each
/// with its order, round and predecessor; sends kUnmapped for a member whose buffers
/// could not be mapped (the others are measured without it).
std::vector<std::pair<uint32_t, Repetition>> measure_task(int fd, size_t i, const Task& t,
                                                          const std::vector<MeasureJob>& jobs,
                                                          const std::vector<std::unique_ptr<PlanBuffers>>& bufs,
                                                          const Protocol& pr, const volatile std::sig_atomic_t* stop,
                                                          CounterSet& counters, volatile uint32_t* running,
                                                          std::map<uint32_t, MemberPlan>& plans, const Peers& peers) {
  std::vector<uint32_t> members;
  std::vector<Operation> ops;
  for (uint32_t p : t.points()) {
    const MeasureJob& j = jobs[p];
    const Place pl = bufs[j.buffer_plan]->place(j.at.layout, region_bytes(j.at), j.alignment);
    Operation op = job_operation(j, pl.dst, j.copy ? pl.src : nullptr);
    const std::string refusal = !pl.refusal.empty() ? pl.refusal : j.at.threads > 1 ? peers.place(j, op) : "";
    if (!refusal.empty()) {  // this point's buffers could not be mapped: the others go on
      send(fd, kUnmapped, nlohmann::json{{"i", i}, {"task", task_json(t.member(p))}, {"message", refusal}}.dump());
      continue;
    }
    members.push_back(p);
    ops.push_back(std::move(op));
  }
  std::vector<std::pair<uint32_t, Repetition>> out;
  if (members.empty()) return out;
  send(fd, kStart, nlohmann::json{{"i", i}, {"task", task_json(t)}}.dump());
  const double steal0 = steal_seconds(pr.cpu, g_proc_stat);
  alarm(pr.task_timeout_s);
  if (t.round == 0) {
    *running = 1;
    out.push_back({members[0], measure(ops[0], jobs[members[0]].policy, stop, pr.counters.empty() ? nullptr : &counters)});
    *running = 0;
  } else {
    std::vector<MemberPlan> plan;  // each point's plan from its first round in this worker
    for (uint32_t p : members) plan.push_back(plans[p]);
    std::vector<Repetition> reps = measure_round(ops, plan, pr.round, running);
    for (size_t k = 0; k < members.size(); ++k) {
      plans[members[k]] = plan[k];
      out.push_back({members[k], std::move(reps[k])});
    }
  }
  alarm(0);
  const double steal = (steal_seconds(pr.cpu, g_proc_stat) - steal0) / double(out.size());
  for (auto& [p, rep] : out) {
    rep.steal_s = steal;
    rep.round = t.round;
  }
  return out;
}

/// Sends where the buffers were mapped (prefaulted, so placed).
void send_buffers(int fd, const std::vector<std::unique_ptr<PlanBuffers>>& bufs, const std::vector<BufferPlan>& plans) {
  nlohmann::ordered_json where = nlohmann::ordered_json::array();
  for (size_t k = 0; k < bufs.size(); ++k) where.push_back(to_json(placement_of(*bufs[k], plans[k])));
  send(fd, kBuffers, where.dump());
}

/// The worker's SIGINT and SIGTERM set its own stop flag (the task in hand finishes).
void catch_worker_stops() {
  struct sigaction st {};
  st.sa_handler = on_worker_stop;
  sigemptyset(&st.sa_mask);
  sigaction(SIGINT, &st, nullptr);
  sigaction(SIGTERM, &st, nullptr);
}

/// Sends task `i`'s repetitions (none: it was refused or lost), each with its order in the
/// run and the name of the point measured before it.
void send_done(int fd, size_t i, const Task& t, std::vector<std::pair<uint32_t, Repetition>>& reps,
               const std::vector<MeasureJob>& jobs, uint64_t& order, std::string& previous) {
  nlohmann::json done = nlohmann::json::array();
  for (auto& [p, rep] : reps) {
    rep.order = order++;
    rep.previous = previous;
    previous = jobs[p].name;
    done.push_back({{"task", task_json(t.member(p))}, {"rep", to_json(rep)}});
  }
  send(fd, kDone, nlohmann::json{{"i", i}, {"done", done}}.dump());
}

/// After a sentinel reading `r` over the tasks of `window`: requeues them when the
/// reading was disturbed (separate repetitions only, within `budget`) and says so. An
/// empty window: the first reading, the baseline.
void send_window(int fd, const SentinelReading& r, std::vector<Task>& window, std::vector<Task>& queue,
                 size_t& budget) {
  // A round is not measured again: its members were compared in their own window,
  // which a disturbance shares; the sentinel marks them for the absolute figures.
  const bool rounds = std::any_of(window.begin(), window.end(), [](const Task& x) { return x.round != 0; });
  bool requeued = false;
  if (r.disturbed && !rounds && !window.empty() && budget >= window.size()) {
    queue.insert(queue.end(), window.begin(), window.end());
    budget -= window.size();
    requeued = true;
  }
  nlohmann::json w = nlohmann::json::array();  // a repetition each: the members of a round
  for (const Task& x : window)
    for (uint32_t p : x.points()) w.push_back(task_json(x.member(p)));
  send(fd, kSentinel, nlohmann::json{{"reading", to_json(r)}, {"window", w}, {"requeued", requeued}}.dump());
  window.clear();
}

/// The worker's first steps: its fault handler, its stop flag (set already when `stop`
/// is) and handlers, its CPU, and /proc/stat opened before the filter forbids it.
const volatile std::sig_atomic_t* worker_basics(int fd, const Protocol& pr, const volatile std::sig_atomic_t* stop) {
  g_worker_fd = fd;
  catch_faults(on_worker_fault);
  g_worker_stop = stop && *stop ? 1 : 0;
  catch_worker_stops();
  pin(pr.cpu);
  g_proc_stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
  return &g_worker_stop;
}

}  // namespace

[[noreturn]] void worker_main(int fd, const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                              std::vector<Task> queue, size_t start, uint64_t first_order, size_t budget,
                              const Protocol& pr, const volatile std::sig_atomic_t* stop, volatile uint32_t* running,
                              SharedObjects* objects) {
  stop = worker_basics(fd, pr, stop);
  try {
    // The sentinel first: it is small, and every task needs it.
    std::unique_ptr<Sentinel> sentinel = pr.sentinel.enabled ? map_sentinel(pr.sentinel.mem_bytes) : nullptr;
    // A spacer of 0..15 huge pages before the buffers, different for each worker: a new
    // worker's buffers do not simply get the pages the last one freed, so the rounds of a
    // run see several physical layouts (the L3 slices and DRAM channels of every line).
    const Spacer spacer(pr.seed, start);
    const std::vector<std::unique_ptr<PlanBuffers>> bufs = map_buffers(jobs, plans);
    const Peers peers(jobs, plans, pr);
    send_buffers(fd, bufs, plans);
    DisturbanceDetector det(pr.sentinel.threshold, pr.sentinel.window);
    CounterSet counters;  // opened on the worker's own thread, after pinning
    if (!pr.counters.empty()) counters = open_counters(pr.counters);
    open_perf_counters();  // before the filter, which refuses perf_event_open
    const auto t0 = std::chrono::steady_clock::now();
    auto reading = [&](size_t done) {
      SentinelReading r = sentinel->measure();
      r.at_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r.after_task = done;
      det.add(r);
      return r;
    };
    uint64_t order = first_order;  // of the next repetition: unique over the run and its resumes
    if (sentinel) {  // a first reading sets the baseline before anything is measured
      std::vector<Task> none;
      send_window(fd, reading(order), none, queue, budget);
    }
    // The user's shared objects open here, under the filter, before any timing; the
    // kernels' filter follows (the parent's deadline runs from the buffers' frame).
    if (const std::string why = open_objects_filtered(CallFilter::kernels, objects); !why.empty())
      throw std::runtime_error("cannot install the system-call filter: " + why);
    std::vector<Task> window;
    std::string previous;
    std::map<uint32_t, MemberPlan> plans;
    for (size_t i = start; i < queue.size(); ++i) {
      if (stop && *stop) break;
      if (pr.tasks_per_worker && i >= start + pr.tasks_per_worker) {  // its share is done: a fresh worker goes on
        send(fd, kRetire, nlohmann::json{{"next", i}}.dump());
        _exit(0);
      }
      const Task& t = queue[i];
      auto reps = measure_task(fd, i, t, jobs, bufs, pr, stop, counters, running, plans, peers);
      send_done(fd, i, t, reps, jobs, order, previous);
      if (!reps.empty()) window.push_back(t);
      const bool last = i + 1 == queue.size();
      if (sentinel && !window.empty() && (window.size() >= pr.sentinel.every || last))
        send_window(fd, reading(order), window, queue, budget);
    }
  } catch (const std::exception& e) {  // the supervisor says it (and stops the run when no task ran)
    send(fd, kFatal, nlohmann::json{{"message", e.what()}, {"input", dynamic_cast<const InputError*>(&e) != nullptr}}.dump());
    _exit(4);
  }
  _exit(0);
}

}  // namespace kex::supervisor_detail
