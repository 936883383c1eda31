#include "src/run/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
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
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
#include "src/model/result_json.hpp"
#include "src/run/contain.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/shared_objects.hpp"
#include "src/run/supervisor_detail.hpp"

// The parent's side of run_supervised: workers started in turn, their frames followed,
// their deaths and losses told apart. The worker is in supervisor_worker.cpp.

namespace kex {

namespace {

/// The text of /proc/stat: read from `fd` (from its start) when one is given, else opened here.
std::string proc_stat_text(int fd) {
  const int own = fd < 0 ? open("/proc/stat", O_RDONLY | O_CLOEXEC) : -1;
  const int from = fd < 0 ? own : fd;
  std::string text;
  if (from >= 0) {
    // The cpu lines come first: 256 KiB hold them for thousands of CPUs.
    text.resize(size_t(256) << 10);
    size_t got = 0;
    for (ssize_t k; got < text.size() && (k = pread(from, text.data() + got, text.size() - got, off_t(got))) > 0;)
      got += size_t(k);
    text.resize(got);
  }
  if (own >= 0) close(own);
  return text;
}

}  // namespace

double steal_seconds(int cpu, int proc_stat) {
  if (cpu < 0) return 0;
  std::istringstream f(proc_stat_text(proc_stat));
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

namespace supervisor_detail {

namespace {

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

/// What the supervisor heard from one worker.
struct WorkerLog {
  std::optional<size_t> inflight;  ///< the task started and not finished
  std::optional<FaultInfo> fault;  ///< the worker's fault handler spoke: the kernel (or the timeout) killed it
  std::optional<std::string> fatal;
  bool fatal_input = false;        ///< the fatal error is the user's to fix (a limit)
  size_t finished = 0;             ///< tasks it finished (measured, or refused for unmapped buffers)
  bool retired = false;            ///< it measured its share and left the rest to a new worker
  bool overran = false;            ///< kex killed it: no frame within the task timeout (its alarm did not end it)
  bool garbled = false;            ///< kex killed it: a frame kex's worker does not write (code wrote into its pipe)
  bool ignored_stop = false;       ///< kex killed it: told to stop, it started another task (code took its SIGINT)
  bool exited_early = false;       ///< it exited with status 0 in a task (code called exit): a death
  std::optional<size_t> last_start;  ///< the queue index of the last task it started
};

/// One frame from a worker, read and checked (Supervision::hear).
struct Heard {
  uint32_t kind = 0;
  std::optional<FaultInfo> fault;                      ///< kFault
  std::vector<BufferPlacement> buffers;                ///< kBuffers
  size_t i = 0;                                        ///< kStart, kDone, kUnmapped: the task's index in the queue
  std::vector<std::pair<Task, Repetition>> done;       ///< kDone
  Task task;                                           ///< kUnmapped
  std::string message;                                 ///< kUnmapped, kFatal
  bool input = false;                                  ///< kFatal: the user's to fix
  std::optional<SentinelReading> reading;              ///< kSentinel
  std::vector<Task> window;                            ///< kSentinel
  bool requeued = false;                               ///< kSentinel
};

/// The largest frame a worker writes (a task's repetitions with their samples) is far below this.
constexpr uint32_t kMaxFrame = uint32_t(256) << 20;

/// Processes and threads a worker may have beyond its helper threads (its pids cgroup's pids.max).
constexpr unsigned kWorkerSpareTasks = 16;

/// One supervised measuring phase: workers started in turn until the queue is done.
class Supervision {
 public:
  Supervision(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans, std::vector<Task> queue,
              const Protocol& pr, const SupervisorEvents& ev, const volatile std::sig_atomic_t* stop,
              SharedObjects* objects)
      : jobs_(jobs), plans_(plans), queue_(std::move(queue)), pr_(pr), ev_(ev), stop_(stop), objects_(objects),
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
    call_filter_available();  // says once, in kex's process, when there is no filter
    ContainedChild child("the measuring worker", worker_tasks(),
                         objects_ ? objects_->descriptors() : std::vector<int>{});
    if (child.in_child())
      worker_main(child.fd(), jobs_, plans_, queue_, cursor_, next_order_, budget_, pr_, stop_, running_, objects_);
    ++res_.workers;
    cpu_set_t others;
    if (other_cpus(pr_.cpu, others)) sched_setaffinity(0, sizeof others, &others);
    WorkerLog w;
    *running_ = 0;
    const bool killed = follow(child, w);
    const int status = child.reap();
    if (killed) return false;
    if (w.ignored_stop) {  // the task it started is not measured: the phase ends as a stop ends it
      res_.stopped = true;
      return false;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      const bool stopped = stop_ && *stop_;
      if (w.retired && !w.inflight && !stopped) return true;  // a fresh worker takes the rest
      if (stopped) res_.stopped = true;
      // It finished its queue, or stopped after a task. Status 0 in a task, or with tasks
      // still owed, is code that exited (exit, _exit): a death, which the points it owed see.
      if (stopped || (!w.inflight && cursor_ >= queue_.size())) return false;
      w.exited_early = w.inflight.has_value();
    }
    died(status, w);
    return true;
  }

  /// The pids.max of a worker's cgroup: its threads and a few more.
  unsigned worker_tasks() const {
    uint32_t threads = 1;
    for (const MeasureJob& j : jobs_) threads = std::max(threads, j.at.threads);
    return threads + kWorkerSpareTasks;
  }

  /// Reads the worker's frames until its pipe closes (ContainedChild::follow); answers
  /// stops (SIGINT to the worker on the first, SIGKILL on the second; a worker that starts
  /// another task after the first was told is killed too, w.ignored_stop). From its buffers'
  /// frame on (its own setup done, the user's code next), the next task must start within
  /// the task timeout and kDeadlineGrace of the last start, or the worker is killed
  /// (w.overran). True when it was killed for a second stop.
  bool follow(ContainedChild& child, WorkerLog& w) {
    std::string buf;
    bool told_to_stop = false, killed = false;
    Deadline deadline;
    const auto take = [&](std::string_view chunk) {
      buf.append(chunk);
      while (!w.garbled && buf.size() >= sizeof(Frame)) {
        Frame f;
        std::memcpy(&f, buf.data(), sizeof f);
        if (f.len > kMaxFrame) w.garbled = true;
        if (w.garbled || buf.size() < sizeof f + f.len) break;
        const std::string payload = buf.substr(sizeof f, f.len);
        buf.erase(0, sizeof f + f.len);
        Heard h;
        try {
          h = hear(f.kind, payload);
          // The worker starts its tasks in queue order: a start that goes back is forged.
          if (h.kind == kStart && w.last_start && h.i <= *w.last_start) throw std::runtime_error("a task started again");
        } catch (const std::exception&) {  // not what kex's worker writes: code wrote into the pipe
          w.garbled = true;
          break;
        }
        if (h.kind == kStart) w.last_start = h.i;
        frame(h, w);  // an error here (the journal's) is kex's, and goes up
        if (told_to_stop && h.kind == kStart) w.ignored_stop = true;
        // Only its setup's end and each task's start give the worker more time: whatever else
        // it sends (code can write frames too) does not keep it alive past a task's timeout.
        if (h.kind == kBuffers || h.kind == kStart) deadline.in(pr_.task_timeout_s + kDeadlineGrace);
      }
    };
    const auto tick = [&] {
      if (stop_ && *stop_ >= 2) {
        killed = res_.abandoned = true;
        return false;
      }
      if (stop_ && *stop_ == 1 && !told_to_stop) {
        kill(child.pid(), SIGINT);  // the worker's handler sets its stop: it ends after the current task
        told_to_stop = true;
      }
      w.overran = deadline.passed();
      return !w.overran && !w.garbled && !w.ignored_stop;
    };
    child.follow(take, tick);
    return killed;
  }

  /// A frame as read, checked against this phase (its tasks and indices in range):
  /// throws for anything kex's worker does not write (code wrote into the pipe).
  Heard hear(uint32_t kind, const std::string& payload) const {
    Heard h;
    h.kind = kind;
    if (kind == kFault) {
      if (payload.size() != sizeof(FaultInfo)) throw std::runtime_error("a fault frame of another size");
      h.fault.emplace();
      std::memcpy(&*h.fault, payload.data(), sizeof(FaultInfo));
      return h;
    }
    const nlohmann::json m = nlohmann::json::parse(payload);
    const auto task = [&](const nlohmann::json& t) {
      Task x = task_from(t);
      if (x.point >= jobs_.size()) throw std::runtime_error("a task of no point");
      return x;
    };
    if (kind == kStart || kind == kDone || kind == kUnmapped) {
      h.i = m.at("i").get<size_t>();
      if (h.i >= queue_.size()) throw std::runtime_error("a task out of the queue");
    }
    if (kind == kBuffers)
      for (const auto& b : m) h.buffers.push_back(buffer_placement_from_json(b, "worker: buffers"));
    if (kind == kDone)
      for (const auto& d : m.at("done")) h.done.emplace_back(task(d.at("task")), repetition_from_json(d.at("rep"), "worker"));
    if (kind == kUnmapped) {
      h.task = task(m.at("task"));
      h.message = m.at("message").get<std::string>();
    }
    if (kind == kSentinel) {
      h.reading = sentinel_reading_from_json(m.at("reading"), "worker: reading");
      for (const auto& t : m.at("window")) h.window.push_back(task(t));
      h.requeued = m.at("requeued").get<bool>();
      if (h.requeued && h.window.size() > budget_) throw std::runtime_error("a requeue past the budget");
    }
    if (kind == kFatal) {
      h.message = m.at("message").get<std::string>();
      h.input = m.at("input").get<bool>();
    }
    return h;
  }

  /// What a frame heard means for the phase and the worker's log.
  void frame(const Heard& h, WorkerLog& w) {
    if (h.kind == kFault) {
      w.fault = h.fault;
    } else if (h.kind == kBuffers) {
      if (res_.buffers.empty()) res_.buffers = h.buffers;  // the first worker's (each maps the same plans)
    } else if (h.kind == kStart) {
      w.inflight = h.i;
    } else if (h.kind == kDone) {
      for (const auto& [t, rep] : h.done) {
        res_.measured_s += rep.seconds;
        ++res_.tasks_done;
        next_order_ = std::max(next_order_, rep.order + 1);
        if (ev_.done) ev_.done(t, rep);
      }
      finished(h.i, w);
    } else if (h.kind == kUnmapped) {
      lost(h.task, {StatusKind::error, h.message});
      finished(h.i, w);
    } else if (h.kind == kSentinel) {
      sentinel(h);
    } else if (h.kind == kRetire) {
      w.retired = true;
    } else if (h.kind == kFatal) {
      w.fatal = h.message;
      w.fatal_input = h.input;
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

  void sentinel(const Heard& h) {
    if (h.requeued) {
      queue_.insert(queue_.end(), h.window.begin(), h.window.end());
      budget_ -= std::min(budget_, h.window.size());
      res_.remeasured += h.window.size();
    }
    if (ev_.sentinel) ev_.sentinel(*h.reading, h.window, h.requeued);
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
    if (w.fault || w.overran || w.garbled || w.exited_early) {
      const SandboxOutcome o = kernel_death(w);
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

  /// How the kernel killed the worker: the fault it reported (a signal, the alarm, a
  /// refused system call), kex's kill past the deadline, or an exit with status 0.
  SandboxOutcome kernel_death(const WorkerLog& w) const {
    SandboxOutcome o;
    const std::string late = "did not return within " + std::to_string(pr_.task_timeout_s) + " s";
    if (w.garbled) {
      o.signal = SIGKILL;
      o.message = "wrote into the pipe to kex (a malformed frame): killed by kex";
      return o;
    }
    if (w.exited_early) {
      o.message = "ended the measuring worker with exit status 0 instead of returning";
      return o;
    }
    if (!w.fault) {
      o.signal = SIGKILL;
      o.timed_out = true;
      o.message = late + " (its alarm did not end it: killed by kex)";
      return o;
    }
    o.signal = w.fault->signal;
    o.fault_ip = w.fault->ip;
    o.fault_addr = w.fault->addr;
    o.timed_out = o.signal == SIGALRM;
    o.message = o.timed_out ? late
                : o.signal == SIGSYS ? refused_call_text(o.fault_addr)
                                     : std::string("killed by SIG") + sigabbrev_np(o.signal);
    return o;
  }

  /// "was killed by SIGKILL (not by its kernel: no fault was reported)", "exited
  /// with status 4 (REASON)": how a worker died when its kernel did not kill it.
  std::string death_text(int status, const WorkerLog& w) const {
    if (w.overran)
      return "sent nothing for " + std::to_string(pr_.task_timeout_s) + " s and more (killed by kex)";
    if (w.garbled) return "wrote a malformed frame into the pipe to kex (killed by kex)";
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
  SharedObjects* objects_;  ///< the run's shared objects, opened in each worker (may be null)
  size_t budget_;
  uint64_t next_order_;     ///< the order of the next repetition (a new worker goes on from it)
  volatile uint32_t* running_ = nullptr;  ///< shared with the worker: the member it runs (index + 1)
  size_t cursor_ = 0;       ///< first task the current worker has not finished
  size_t idle_deaths_ = 0;  ///< workers in a row that died with no task in flight and none finished
  SupervisedRun res_;
};

}  // namespace

}  // namespace supervisor_detail

SupervisedRun run_supervised(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                             std::vector<Task> queue, const Protocol& pr, const SupervisorEvents& ev,
                             const volatile std::sig_atomic_t* stop, SharedObjects* objects) {
  return supervisor_detail::Supervision(jobs, plans, std::move(queue), pr, ev, stop, objects).run();
}

}  // namespace kex
