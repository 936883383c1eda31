#include "src/run/supervisor.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
#include "src/core/units.hpp"
#include "src/model/result_json.hpp"
#include "src/run/counters.hpp"
#include "src/run/measure.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/shared_objects.hpp"
#include "src/run/team.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

/// Frames from the worker: a task started, finished, or could not be measured
/// (its buffers are not mapped); a sentinel reading; a fault (from the signal
/// handler); where the buffers were mapped; why the worker cannot go on (then it exits).
/// kRetire: the worker measured its share (Protocol::tasks_per_worker) and exits; a new
/// worker with fresh buffer mappings goes on from the next task.
enum Kind : uint32_t {
  kStart = 1, kDone = 2, kSentinel = 3, kFault = 4, kBuffers = 5, kUnmapped = 6, kFatal = 7, kRetire = 8
};

struct Frame {
  uint32_t kind;
  uint32_t len;
};

struct FaultInfo {
  int32_t signal;
  uint32_t pad;
  uint64_t ip, addr;
};

int g_worker_fd = -1;
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

nlohmann::json task_json(const Task& t) { return nlohmann::json::array({t.point, t.rep, t.round}); }
/// A task (or a round's member) as a frame names it: the queue it came from is the
/// supervisor's own, so point, repetition and round identify it.
Task task_from(const nlohmann::json& j) {
  return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), {}, j.at(2).get<uint64_t>()};
}

void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

/// Every online CPU but `cpu` (the supervisor stays off the worker's CPU); false when there is none.
bool other_cpus(int cpu, cpu_set_t& set) {
  CPU_ZERO(&set);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  bool any = false;
  for (long i = 0; i < n && i < CPU_SETSIZE; ++i)
    if (i != cpu) {
      CPU_SET(i, &set);
      any = true;
    }
  return any;
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
    if (j.buffer_plan < plans.size()) points[j.buffer_plan].push_back({j.at.layout, j.at.size});
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
      points.push_back({j.at.layout, j.at.size});
      add_layout(layouts, j.at.layout, j.at.size);
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
      const Place pl = b->place(j.at.layout, j.at.size, j.alignment);
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
    const Place pl = bufs[j.buffer_plan]->place(j.at.layout, j.at.size, j.alignment);
    Operation op{j.fn, pl.dst, j.copy ? pl.src : nullptr, j.at, nullptr, {}};
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
  const double steal0 = steal_seconds(pr.cpu);
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
  const double steal = (steal_seconds(pr.cpu) - steal0) / double(out.size());
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
/// reading was disturbed (separate repetitions only, within `budget`) and says so.
void send_window(int fd, const SentinelReading& r, std::vector<Task>& window, std::vector<Task>& queue,
                 size_t& budget) {
  // A round is not measured again: its members were compared in their own window,
  // which a disturbance shares; the sentinel marks them for the absolute figures.
  const bool rounds = std::any_of(window.begin(), window.end(), [](const Task& x) { return x.round != 0; });
  bool requeued = false;
  if (r.disturbed && !rounds && budget >= window.size()) {
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

[[noreturn]] void worker_main(int fd, const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                              std::vector<Task> queue, size_t start, uint64_t first_order, size_t budget,
                              const Protocol& pr, const volatile std::sig_atomic_t* stop, volatile uint32_t* running) {
  g_worker_fd = fd;
  catch_faults(on_worker_fault);
  g_worker_stop = stop && *stop ? 1 : 0;
  catch_worker_stops();
  stop = &g_worker_stop;
  pin(pr.cpu);
  open_shared_objects();  // the user's shared objects open in the worker, before any timing
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
    const auto t0 = std::chrono::steady_clock::now();
    auto reading = [&](size_t done) {
      SentinelReading r = sentinel->measure();
      r.at_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r.after_task = done;
      det.add(r);
      return r;
    };
    uint64_t order = first_order;  // of the next repetition: unique over the run and its resumes
    if (sentinel) {
      // A first reading sets the baseline before anything is measured.
      SentinelReading r = reading(order);
      send(fd, kSentinel, nlohmann::json{{"reading", to_json(r)}, {"window", nlohmann::json::array()},
                                         {"requeued", false}}.dump());
    }
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

}  // namespace

double steal_seconds(int cpu) {
  if (cpu < 0) return 0;
  std::ifstream f("/proc/stat");
  const std::string want = "cpu" + std::to_string(cpu);
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, want.size() + 1, want + " ") != 0) continue;
    std::istringstream in(line.substr(want.size()));
    uint64_t v[8] = {};
    for (auto& x : v) in >> x;
    const long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? double(v[7]) / double(hz) : 0;
  }
  return 0;
}

namespace {

/// What the supervisor heard from one worker.
struct WorkerLog {
  std::optional<size_t> inflight;  ///< the task started and not finished
  std::optional<FaultInfo> fault;  ///< the worker's fault handler spoke: the kernel (or the timeout) killed it
  std::optional<std::string> fatal;
  bool fatal_input = false;        ///< the fatal error is the user's to fix (a limit)
  size_t finished = 0;             ///< tasks it finished (measured, or refused for unmapped buffers)
  bool retired = false;            ///< it measured its share and left the rest to a new worker
};

/// One supervised measuring phase: workers started in turn until the queue is done.
class Supervision {
 public:
  Supervision(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans, std::vector<Task> queue,
              const Protocol& pr, const SupervisorEvents& ev, const volatile std::sig_atomic_t* stop)
      : jobs_(jobs), plans_(plans), queue_(std::move(queue)), pr_(pr), ev_(ev), stop_(stop),
        budget_(static_cast<size_t>(pr.sentinel.budget * double(queue_.size()))), next_order_(pr.first_order) {
    // A word the worker and this process share: which member of its task the worker is
    // running (index + 1; 0 between members), read when the worker dies.
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) throw_os_error("cannot map the page shared with the measuring worker", errno);
    running_ = static_cast<volatile uint32_t*>(page);
  }
  ~Supervision() { munmap(const_cast<uint32_t*>(running_), 4096); }
  Supervision(const Supervision&) = delete;
  Supervision& operator=(const Supervision&) = delete;

  SupervisedRun run() {
    const auto t0 = std::chrono::steady_clock::now();
    while (cursor_ < queue_.size()) {
      if (stop_ && *stop_) {
        res_.stopped = true;
        break;
      }
      if (!run_worker()) break;
    }
    pin(pr_.cpu);
    res_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res_;
  }

 private:
  /// Starts a worker on the queue from the cursor and follows it to its end. False
  /// when the phase is over (queue done, stopped, abandoned).
  bool run_worker() {
    const PipedFork f = fork_with_pipe("the measuring worker");
    if (f.pid == 0) worker_main(f.fd, jobs_, plans_, queue_, cursor_, next_order_, budget_, pr_, stop_, running_);
    const pid_t pid = f.pid;
    ++res_.workers;
    cpu_set_t others;
    if (other_cpus(pr_.cpu, others)) sched_setaffinity(0, sizeof others, &others);
    WorkerLog w;
    *running_ = 0;
    const bool killed = follow(f.fd, pid, w);
    close(f.fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (killed) return false;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (w.retired && !(stop_ && *stop_)) return true;  // a fresh worker takes the rest
      if (stop_ && *stop_) res_.stopped = true;
      return false;  // the worker finished its queue (or stopped after a task)
    }
    died(status, w);
    return true;
  }

  /// Reads the worker's frames until its pipe closes; answers stops (SIGINT to the
  /// worker on the first, SIGKILL on the second). True when it was killed for a second stop.
  bool follow(int fd, pid_t pid, WorkerLog& w) {
    std::string buf;
    bool told_to_stop = false, killed = false;
    for (;;) {
      pollfd pfd{fd, POLLIN, 0};
      const int n = poll(&pfd, 1, 100);
      if (n < 0 && errno != EINTR) break;
      if (stop_ && *stop_ >= 2 && !killed) {
        kill(pid, SIGKILL);
        killed = true;
        res_.abandoned = true;
      } else if (stop_ && *stop_ == 1 && !told_to_stop) {
        kill(pid, SIGINT);  // the worker's handler sets its stop: it ends after the current task
        told_to_stop = true;
      }
      if (n <= 0) continue;
      char chunk[65536];
      const ssize_t k = read(fd, chunk, sizeof chunk);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      buf.append(chunk, static_cast<size_t>(k));
      while (buf.size() >= sizeof(Frame)) {
        Frame f;
        std::memcpy(&f, buf.data(), sizeof f);
        if (buf.size() < sizeof f + f.len) break;
        const std::string payload = buf.substr(sizeof f, f.len);
        buf.erase(0, sizeof f + f.len);
        frame(f.kind, payload, w);
      }
    }
    return killed;
  }

  void frame(uint32_t kind, const std::string& payload, WorkerLog& w) {
    if (kind == kFault) {
      if (payload.size() == sizeof(FaultInfo)) {
        FaultInfo fi;
        std::memcpy(&fi, payload.data(), sizeof fi);
        w.fault = fi;
      }
      return;
    }
    const nlohmann::json m = nlohmann::json::parse(payload);
    if (kind == kBuffers) {
      if (res_.buffers.empty())  // the first worker's (each maps the same plans)
        for (const auto& b : m) res_.buffers.push_back(buffer_placement_from_json(b, "worker: buffers"));
    } else if (kind == kStart) {
      w.inflight = m.at("i").get<size_t>();
    } else if (kind == kDone) {
      for (const auto& d : m.at("done")) {
        Repetition rep = repetition_from_json(d.at("rep"), "worker");
        res_.measured_s += rep.seconds;
        ++res_.tasks_done;
        next_order_ = std::max(next_order_, rep.order + 1);
        if (ev_.done) ev_.done(task_from(d.at("task")), rep);
      }
      finished(m.at("i").get<size_t>(), w);
    } else if (kind == kUnmapped) {
      lost(task_from(m.at("task")), {StatusKind::error, m.at("message").get<std::string>()});
      finished(m.at("i").get<size_t>(), w);
    } else if (kind == kSentinel) {
      sentinel(m);
    } else if (kind == kRetire) {
      w.retired = true;
    } else if (kind == kFatal) {
      w.fatal = m.at("message").get<std::string>();
      w.fatal_input = m.at("input").get<bool>();
    }
  }

  void finished(size_t i, WorkerLog& w) {
    cursor_ = i + 1;
    w.inflight.reset();
    ++w.finished;
    idle_deaths_ = 0;
  }

  void lost(const Task& t, const Status& st) {
    if (ev_.lost) ev_.lost(t, st);
    else if (ev_.failed) ev_.failed(t, st);
  }

  void sentinel(const nlohmann::json& m) {
    const SentinelReading sr = sentinel_reading_from_json(m.at("reading"), "worker: reading");
    std::vector<Task> window;
    for (const auto& t : m.at("window")) window.push_back(task_from(t));
    const bool requeued = m.at("requeued").get<bool>();
    if (requeued) {
      queue_.insert(queue_.end(), window.begin(), window.end());
      budget_ -= std::min(budget_, window.size());
      res_.remeasured += window.size();
    }
    if (ev_.sentinel) ev_.sentinel(sr, window, requeued);
  }

  /// A worker ended abnormally. The task in flight is the one it died on: the point
  /// fails when its kernel killed it (a fault, the timeout), and is lost (its finished
  /// repetitions stand) when something else did; either way its other repetitions
  /// are not measured, and a new worker goes on with the rest.
  void died(int status, const WorkerLog& w) {
    if (!w.inflight) {
      // Nothing was being measured: nothing is lost, unless the worker cannot start at all.
      if (w.fatal && w.finished == 0) {
        if (w.fatal_input) throw InputError("measuring worker: " + *w.fatal);
        throw std::runtime_error("measuring worker: " + *w.fatal);
      }
      if (++idle_deaths_ < 3) return;
      throw std::runtime_error("the measuring worker died 3 times in a row before measuring anything (" +
                               death_text(status, w) + ")");
    }
    const size_t at = *w.inflight;
    if (at >= queue_.size()) {
      cursor_ = queue_.size();
      return;
    }
    // The member the worker was running when it died (a round's members: the shared word).
    const Task task = queue_[at];
    const std::vector<uint32_t> points = task.points();
    const uint32_t k = *running_;
    const Task bad = task.member(k >= 1 && k <= points.size() ? points[k - 1] : points.front());
    const MeasureJob& j = jobs_[bad.point];
    if (w.fault) {
      SandboxOutcome o;
      o.signal = w.fault->signal;
      o.fault_ip = w.fault->ip;
      o.fault_addr = w.fault->addr;
      o.timed_out = o.signal == SIGALRM;
      o.message = o.timed_out ? "did not return within " + std::to_string(pr_.task_timeout_s) + " s"
                              : std::string("killed by SIG") + sigabbrev_np(o.signal);
      if (ev_.failed)
        ev_.failed(bad, {StatusKind::error, describe_death(o, j.code, j.code_size) + " while measuring", o.signal,
                         fault_offset(o, j.code, j.code_size)});
    } else {
      lost(bad, {StatusKind::error, "the measuring worker " + death_text(status, w) + " while measuring this point",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0});
    }
    // The point it died on is not measured again: it leaves every task still to do (a
    // round it was in, the one in flight included, is measured without it); the rest goes on.
    std::vector<Task> rest(queue_.begin(), queue_.begin() + long(at));
    for (size_t i = at; i < queue_.size(); ++i) {
      Task t = queue_[i];
      if (t.members.empty()) {
        if (t.point != bad.point) rest.push_back(std::move(t));
        continue;
      }
      std::erase(t.members, bad.point);
      if (t.members.empty()) continue;
      t.point = t.members.front();
      rest.push_back(std::move(t));
    }
    queue_ = std::move(rest);
    cursor_ = at;
  }

  /// "was killed by SIGKILL (not by its kernel: no fault was reported)", "exited
  /// with status 4 (REASON)": how a worker died when its kernel did not kill it.
  static std::string death_text(int status, const WorkerLog& w) {
    if (WIFSIGNALED(status))
      return std::string("was killed by SIG") + sigabbrev_np(WTERMSIG(status)) +
             " (not by its kernel: no fault was reported)";
    return "exited with status " + std::to_string(WEXITSTATUS(status)) + (w.fatal ? " (" + *w.fatal + ")" : "");
  }

  const std::vector<MeasureJob>& jobs_;
  const std::vector<BufferPlan>& plans_;
  std::vector<Task> queue_;
  const Protocol& pr_;
  const SupervisorEvents& ev_;
  const volatile std::sig_atomic_t* stop_;
  size_t budget_;
  uint64_t next_order_;     ///< the order of the next repetition (a new worker goes on from it)
  volatile uint32_t* running_ = nullptr;  ///< shared with the worker: the member it runs (index + 1)
  size_t cursor_ = 0;       ///< first task the current worker has not finished
  size_t idle_deaths_ = 0;  ///< workers in a row that died with no task in flight and none finished
  SupervisedRun res_;
};

}  // namespace

SupervisedRun run_supervised(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                             std::vector<Task> queue, const Protocol& pr, const SupervisorEvents& ev,
                             const volatile std::sig_atomic_t* stop) {
  return Supervision(jobs, plans, std::move(queue), pr, ev, stop).run();
}

}  // namespace kex
