// The pipe between run_supervised (src/run/supervisor.cpp, the parent) and its measuring
// worker (src/run/supervisor_worker.cpp, a forked child): the frames the worker sends,
// and the worker's entry point. Internal to src/run.
#pragma once
#include <csignal>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/run/supervisor.hpp"

namespace kex::supervisor_detail {

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

/// A task as a frame names it: [point, repetition, round].
inline nlohmann::json task_json(const Task& t) { return nlohmann::json::array({t.point, t.rep, t.round}); }
/// A task (or a round's member) as a frame names it: the queue it came from is the
/// supervisor's own, so point, repetition and round identify it.
inline Task task_from(const nlohmann::json& j) {
  return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), {}, j.at(2).get<uint64_t>()};
}

/// Pins the calling thread to `cpu` (nothing when cpu < 0).
void pin(int cpu);

/// The measuring worker: measures `queue` from `start` (tasks over `jobs`, buffers of
/// `plans`), its repetitions ordered from `first_order`, requeueing disturbed windows
/// while `budget` lasts, and reports each step as a frame on `fd`; `running` (shared with
/// the parent) holds which member of its task it runs; `objects` (may be null), the run's
/// shared objects, open before any timing. Never returns: it exits.
[[noreturn]] void worker_main(int fd, const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                              std::vector<Task> queue, size_t start, uint64_t first_order, size_t budget,
                              const Protocol& pr, const volatile std::sig_atomic_t* stop, volatile uint32_t* running,
                              SharedObjects* objects);

}  // namespace kex::supervisor_detail
