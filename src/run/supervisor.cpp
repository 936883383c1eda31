#include "src/run/supervisor.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "src/core/fd_io.hpp"
#include "src/model/result_json.hpp"
#include "src/run/counters.hpp"
#include "src/run/measure.hpp"
#include "src/run/sandbox.hpp"

namespace kex {

namespace {

enum Kind : uint32_t { kStart = 1, kDone = 2, kSentinel = 3, kFault = 4, kBuffers = 5 };

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

nlohmann::json task_json(const Task& t) { return nlohmann::json::array({t.point, t.rep}); }
Task task_from(const nlohmann::json& j) { return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>()}; }

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

[[noreturn]] void worker_main(int fd, const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                              std::vector<Task> queue, size_t start, size_t budget, const Protocol& pr,
                              const volatile std::sig_atomic_t* stop) {
  g_worker_fd = fd;
  struct sigaction sa {};
  sa.sa_sigaction = on_worker_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGALRM}) sigaction(s, &sa, nullptr);
  g_worker_stop = stop && *stop ? 1 : 0;
  struct sigaction st {};
  st.sa_handler = on_worker_stop;
  sigemptyset(&st.sa_mask);
  sigaction(SIGINT, &st, nullptr);
  sigaction(SIGTERM, &st, nullptr);
  stop = &g_worker_stop;
  pin(pr.cpu);
  try {
    std::vector<std::unique_ptr<Buffers>> bufs;
    for (const auto& p : plans) bufs.push_back(std::make_unique<Buffers>(p));
    nlohmann::ordered_json where = nlohmann::ordered_json::array();  // the buffers as mapped (prefaulted, so placed)
    for (size_t k = 0; k < bufs.size(); ++k)
      where.push_back(to_json(BufferPlacement{bufs[k]->bytes(), plans[k].huge_pages(), bufs[k]->huge_page_bytes(),
                                              bufs[k]->numa_nodes()}));
    send(fd, kBuffers, where.dump());
    std::unique_ptr<Sentinel> sentinel;
    if (pr.sentinel.enabled) sentinel = std::make_unique<Sentinel>(pr.sentinel.mem_bytes);
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
    auto reading_json = [](const SentinelReading& r) {
      return nlohmann::json{{"l1_ticks_per_kib", r.l1_ticks_per_kib}, {"mem_ticks_per_kib", r.mem_ticks_per_kib},
                            {"at_s", r.at_s}, {"after_task", r.after_task}, {"disturbed", r.disturbed}};
    };
    if (sentinel) {
      // A first reading sets the baseline before anything is measured.
      SentinelReading r = reading(pr.first_order + start);
      send(fd, kSentinel, nlohmann::json{{"reading", reading_json(r)}, {"window", nlohmann::json::array()},
                                         {"requeued", false}}.dump());
    }
    std::vector<Task> window;
    std::string previous;
    for (size_t i = start; i < queue.size(); ++i) {
      if (stop && *stop) break;
      const Task t = queue[i];
      send(fd, kStart, nlohmann::json{{"i", i}, {"task", task_json(t)}}.dump());
      const MeasureJob& j = jobs[t.point];
      const Place pl = bufs[j.buffer_plan]->place(j.at.layout, j.alignment);
      const Operation op{j.fn, pl.dst, j.copy ? pl.src : nullptr, j.at};
      const double steal0 = steal_seconds(pr.cpu);
      alarm(pr.task_timeout_s);
      Repetition rep = measure(op, j.policy, stop, pr.counters.empty() ? nullptr : &counters);
      alarm(0);
      rep.steal_s = steal_seconds(pr.cpu) - steal0;
      rep.order = pr.first_order + i;
      rep.previous = previous;
      previous = j.name;
      send(fd, kDone, nlohmann::json{{"i", i}, {"task", task_json(t)}, {"rep", to_json(rep)}}.dump());
      window.push_back(t);
      const bool last = i + 1 == queue.size();
      if (sentinel && (window.size() >= pr.sentinel.every || last)) {
        SentinelReading r = reading(pr.first_order + i + 1);
        bool requeued = false;
        if (r.disturbed && budget >= window.size()) {
          queue.insert(queue.end(), window.begin(), window.end());
          budget -= window.size();
          requeued = true;
        }
        nlohmann::json w = nlohmann::json::array();
        for (const Task& x : window) w.push_back(task_json(x));
        send(fd, kSentinel, nlohmann::json{{"reading", reading_json(r)}, {"window", w}, {"requeued", requeued}}.dump());
        window.clear();
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kex: measuring worker: %s\n", e.what());
    _exit(4);
  }
  _exit(0);
}

}  // namespace

nlohmann::ordered_json to_json(const BufferPlacement& b) {
  return {{"bytes", b.bytes},
          {"huge_pages_advised", b.huge_pages_advised},
          {"huge_page_bytes", b.huge_page_bytes},
          {"numa_nodes", b.numa_nodes}};
}

BufferPlacement buffer_placement_from_json(const nlohmann::json& j) {
  return {j.at("bytes").get<uint64_t>(), j.at("huge_pages_advised").get<bool>(), j.at("huge_page_bytes").get<int64_t>(),
          j.at("numa_nodes").get<std::vector<int>>()};
}

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

SupervisedRun run_supervised(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                             std::vector<Task> queue, const Protocol& pr, const SupervisorEvents& ev,
                             const volatile std::sig_atomic_t* stop) {
  SupervisedRun res;
  const auto t0 = std::chrono::steady_clock::now();
  size_t budget = static_cast<size_t>(pr.sentinel.budget * double(queue.size()));
  size_t cursor = 0;  // first task the current worker has not finished
  while (cursor < queue.size()) {
    if (stop && *stop) {
      res.stopped = true;
      break;
    }
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("supervisor: pipe failed: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("supervisor: fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      close(fds[0]);
      worker_main(fds[1], jobs, plans, queue, cursor, budget, pr, stop);
    }
    close(fds[1]);
    ++res.workers;
    cpu_set_t others;
    if (other_cpus(pr.cpu, others)) sched_setaffinity(0, sizeof others, &others);
    std::string buf;
    std::optional<size_t> inflight;
    std::optional<FaultInfo> fault;
    bool told_to_stop = false, killed = false;
    for (;;) {
      pollfd pfd{fds[0], POLLIN, 0};
      const int pr_n = poll(&pfd, 1, 100);
      if (pr_n < 0 && errno != EINTR) break;
      if (stop && *stop >= 2 && !killed) {
        kill(pid, SIGKILL);
        killed = true;
        res.abandoned = true;
      } else if (stop && *stop == 1 && !told_to_stop) {
        kill(pid, SIGINT);  // the worker's handler sets its stop: it ends after the current task
        told_to_stop = true;
      }
      if (pr_n <= 0) continue;
      char chunk[65536];
      const ssize_t k = read(fds[0], chunk, sizeof chunk);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      buf.append(chunk, static_cast<size_t>(k));
      while (buf.size() >= sizeof(Frame)) {
        Frame f;
        std::memcpy(&f, buf.data(), sizeof f);
        if (buf.size() < sizeof f + f.len) break;
        const std::string payload = buf.substr(sizeof f, f.len);
        buf.erase(0, sizeof f + f.len);
        if (f.kind == kFault && payload.size() == sizeof(FaultInfo)) {
          FaultInfo fi;
          std::memcpy(&fi, payload.data(), sizeof fi);
          fault = fi;
          continue;
        }
        const nlohmann::json m = nlohmann::json::parse(payload);
        if (f.kind == kBuffers) {
          if (res.buffers.empty())  // the first worker's (each maps the same plans)
            for (const auto& b : m) res.buffers.push_back(buffer_placement_from_json(b));
        } else if (f.kind == kStart) {
          inflight = m.at("i").get<size_t>();
        } else if (f.kind == kDone) {
          const size_t i = m.at("i").get<size_t>();
          Repetition rep = repetition_from_json(m.at("rep"), "worker");
          res.measured_s += rep.seconds;
          ++res.tasks_done;
          if (ev.done) ev.done(task_from(m.at("task")), rep);
          cursor = i + 1;
          inflight.reset();
        } else if (f.kind == kSentinel) {
          const auto& r = m.at("reading");
          SentinelReading sr;
          sr.l1_ticks_per_kib = r.at("l1_ticks_per_kib").get<double>();
          sr.mem_ticks_per_kib = r.at("mem_ticks_per_kib").get<double>();
          sr.at_s = r.at("at_s").get<double>();
          sr.after_task = r.at("after_task").get<uint64_t>();
          sr.disturbed = r.at("disturbed").get<bool>();
          std::vector<Task> window;
          for (const auto& t : m.at("window")) window.push_back(task_from(t));
          const bool requeued = m.at("requeued").get<bool>();
          if (requeued) {
            queue.insert(queue.end(), window.begin(), window.end());
            budget -= std::min(budget, window.size());
            res.remeasured += window.size();
          }
          if (ev.sentinel) ev.sentinel(sr, window, requeued);
        }
      }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (killed) break;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (stop && *stop) res.stopped = true;
      break;  // the worker finished its queue (or stopped after a task)
    }
    // The worker died: the task in flight is the one that killed it.
    const size_t at = inflight.value_or(cursor);
    if (at >= queue.size()) break;
    const Task bad = queue[at];
    const MeasureJob& j = jobs[bad.point];
    SandboxOutcome o;
    o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (fault) {
      o.signal = fault->signal;
      o.fault_ip = fault->ip;
      o.fault_addr = fault->addr;
    }
    o.timed_out = o.signal == SIGALRM;
    o.message = o.timed_out ? "did not return within " + std::to_string(pr.task_timeout_s) + " s"
                : o.signal    ? std::string("killed by SIG") + sigabbrev_np(o.signal)
                              : "the measuring worker exited with status " + std::to_string(WEXITSTATUS(status));
    Status st{StatusKind::error, describe_death(o, j.code, j.code_size) + " while measuring", o.signal,
              fault_offset(o, j.code, j.code_size)};
    if (ev.failed) ev.failed(bad, st);
    // The point that killed a worker is not measured again; the rest goes on.
    std::vector<Task> rest(queue.begin(), queue.begin() + long(at));
    for (size_t i = at + 1; i < queue.size(); ++i)
      if (queue[i].point != bad.point) rest.push_back(queue[i]);
    queue = std::move(rest);
    cursor = at;
  }
  pin(pr.cpu);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace kex
