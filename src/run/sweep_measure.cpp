// The measuring stage of a sweep: the order of the tasks (paired rounds or separate
// repetitions, a resumed journal's taken over), the supervised worker, the progress
// line and the sentinel's readings.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "src/run/machine.hpp"
#include "src/run/schedule.hpp"
#include "src/run/sweep_detail.hpp"

namespace kex::sweep_detail {

namespace {

/// Progress on stderr: one updating line on a TTY, a plain line per 20% otherwise,
/// with elapsed time and an estimate of the rest.
struct Progress {
  bool on, tty;
  size_t total, done = 0, last_pct = 0;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Progress(bool enabled, size_t n) : on(enabled && n > 0), tty(isatty(2)), total(n) {}
  void step(const std::string& what) {
    ++done;
    if (!on) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double eta = done ? el / double(done) * double(total - std::min(done, total)) : 0;
    char times[64];
    std::snprintf(times, sizeof times, "%.0f s, about %.0f s left", el, eta);
    if (tty) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu %s] %s", done, total, times, what.c_str());
      if (done >= total) std::fputc('\n', stderr);
    } else {
      const size_t pct = done * 100 / total;
      if (pct >= last_pct + 20 || done == total) {
        last_pct = pct;
        std::fprintf(stderr, "kex: %zu/%zu tasks (%zu%%, %s) %s\n", done, total, pct, times, what.c_str());
      }
    }
  }
};

/// The order of a separate run: every (job, repetition) once, shuffled (jobs of one
/// family kept apart) or in turn; resumed, only the repetitions each job still lacks
/// (undisturbed ones count).
std::vector<Task> separate_order(const std::vector<Job>& jobs, const Protocol& protocol, bool resumed) {
  std::vector<uint32_t> families;
  for (const Job& j : jobs) families.push_back(j.family);
  const std::vector<Task> order = protocol.shuffle ? shuffled_tasks(families, protocol.repetitions, protocol.seed)
                                                   : ordered_tasks(jobs.size(), protocol.repetitions);
  if (!resumed) return order;
  std::vector<size_t> need;  // per job: the repetitions it still lacks
  for (const Job& j : jobs) {
    const auto have = size_t(std::count_if(j.reps.begin(), j.reps.end(), [](const Repetition& r) { return !r.disturbed; }));
    need.push_back(protocol.repetitions > have ? protocol.repetitions - have : 0);
  }
  std::vector<Task> kept;
  for (const Task& t : order)
    if (need[t.point] > 0) {
      --need[t.point];
      kept.push_back(t);
    }
  return kept;
}

/// The measuring order: the repetitions the journal holds are taken over, this
/// session's orders and rounds follow the journal's (a disturbed window marks only its
/// own repetitions; a round pairs only its own); then the paired rounds or the separate
/// repetitions still to do.
std::vector<Task> measuring_order(Sweep& w) {
  if (w.opt.resume)
    for (Job& job : w.jobs)
      if (auto it = w.opt.resume->reps.find(job.work.name); it != w.opt.resume->reps.end()) job.reps = it->second;
  uint64_t first_round = 1;
  for (const Job& js : w.jobs)
    for (const auto& r : js.reps) {
      w.protocol.first_order = std::max(w.protocol.first_order, r.order + 1);
      first_round = std::max(first_round, r.round + 1);
    }
  // Rounds of points this sweep does not measure keep their ids too (kex tune's earlier stages:
  // a candidate that left keeps its rounds, and a round id names one window in the whole run).
  if (w.opt.resume)
    for (const auto& [name, reps] : w.opt.resume->reps)
      for (const Repetition& r : reps) first_round = std::max(first_round, r.round + 1);
  if (!w.protocol.paired) return separate_order(w.jobs, w.protocol, w.opt.resume != nullptr);
  std::vector<std::vector<Repetition>> reps;  // what paired_order reads of each job
  for (const Job& js : w.jobs) reps.push_back(js.reps);
  return paired_order(w.pair_groups, reps, w.protocol.repetitions, w.protocol.shuffle, w.protocol.seed, first_round);
}

/// A sentinel reading: recorded in the context; a disturbed one marks the window's
/// repetitions (journaled) and, when it was requeued, the progress grows by it.
void on_sentinel(Sweep& w, Progress& progress, const SentinelReading& r, const std::vector<Task>& window, bool requeued) {
  w.out.doc.context.sentinel_readings.push_back({r, window.size(), requeued});
  w.sentinel_l1.push_back(r.l1_ticks_per_kib);
  w.sentinel_mem.push_back(r.mem_ticks_per_kib);
  w.sentinel_disturbed += r.disturbed;
  if (!r.disturbed) return;
  std::vector<std::pair<std::string, uint64_t>> marked;
  for (const Task& t : window)
    for (auto& rep : w.jobs[t.point].reps)
      if (!rep.disturbed && rep.order + window.size() >= r.after_task && rep.order < r.after_task) {
        rep.disturbed = true;
        marked.emplace_back(w.jobs[t.point].work.name, rep.order);
      }
  if (w.opt.journal && !marked.empty()) w.opt.journal->disturbed(marked);
  if (requeued) progress.total += window.size();
}

}  // namespace

void measure_jobs(Sweep& w) {
  const std::vector<Task> todo = measuring_order(w);
  w.todo_tasks = todo.size();
  size_t todo_reps = 0;
  for (const Task& t : todo) todo_reps += t.points().size();
  Progress progress(w.opt.progress, todo_reps);
  if (todo.empty() || w.stopped()) return;
  SupervisorEvents ev;
  ev.done = [&](const Task& t, const Repetition& r) {
    w.jobs[t.point].reps.push_back(r);
    if (w.opt.journal) w.opt.journal->repetition(w.jobs[t.point].work.name, r);
    char g[64] = "";
    if (r.per_call.median > 0)
      std::snprintf(g, sizeof g, " %.2f GB/s", double(moved_bytes(w.jobs[t.point].work.at)) / (r.per_call.median / machine().tsc_hz * 1e9));
    progress.step(w.jobs[t.point].work.name + g);
  };
  ev.failed = [&](const Task& t, const Status& s) {
    w.jobs[t.point].died = s;
    progress.step(w.jobs[t.point].work.name + " FAILED: " + s.message);
  };
  ev.lost = [&](const Task& t, const Status& s) {
    if (!w.jobs[t.point].lost) w.jobs[t.point].lost = s;
    progress.step(w.jobs[t.point].work.name + " NOT MEASURED: " + s.message);
  };
  ev.sentinel = [&](const SentinelReading& r, const std::vector<Task>& window, bool requeued) {
    on_sentinel(w, progress, r, window, requeued);
  };
  std::vector<MeasureJob> work;
  for (const Job& j : w.jobs) work.push_back(j.work);
  w.sup = run_supervised(work, w.bplans, todo, w.protocol, ev, w.opt.stop, w.shared_objects());
  w.interrupted |= w.sup.stopped || w.sup.abandoned;
  w.out.abandoned = w.sup.abandoned;
}

}  // namespace kex::sweep_detail
