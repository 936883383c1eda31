// Supervised measurement: the points are measured by a pinned worker process;
// this process (the supervisor, on another CPU where there is one) records each
// finished repetition as it arrives. A worker that dies on a point (a signal, a
// timeout) costs that point only: it is recorded with the signal and the fault
// relative to the kernel's code, a new worker starts, and the run goes on.
#pragma once
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "src/model/point.hpp"
#include "src/model/result.hpp"
#include "src/model/stream.hpp"
#include "src/run/buffers.hpp"
#include "src/run/measure.hpp"
#include "src/run/placement.hpp"
#include "src/run/schedule.hpp"
#include "src/run/sentinel.hpp"

namespace kex {

class SharedObjects;

/// Everything the worker needs to measure one point (it inherits the code and
/// these descriptions through fork, and maps its own buffers).
struct MeasureJob {
  KernelFn fn = nullptr;          ///< the kernel ABI entry (a stub for code kex did not write)
  /// Where the timed loop enters it (Built::entry, entry_slot, fill_in_esi): the worker times
  /// that, with `fill` as each call's second argument for memset's ABI; fn where it is null.
  const void* entry = nullptr;
  void* const* entry_slot = nullptr;
  bool fill_in_esi = false;
  uint8_t fill = 0;
  /// A stream point's calls (null for one size repeated): the worker times one pass of them
  /// an operation, in the regions of its buffers.
  std::shared_ptr<const Stream> stream;
  const uint8_t* code = nullptr;  ///< the kernel's bytes (null for libc), to place a fault
  size_t code_size = 0;
  size_t buffer_plan = 0;         ///< index into the BufferPlans
  uint32_t alignment = 1;
  bool copy = true;               ///< the kernel takes a source buffer (a copy or a read)
  Coords at;
  Policy policy;
  std::string name;               ///< the point's name (for repetitions' "previous")
};

/// The timed operation of `j` on dst/src: at its entry, else its fn (a shared object not open
/// here: its stub then stops the worker as verification saw), with memset's fill in esi.
Operation job_operation(const MeasureJob& j, uint8_t* dst, const uint8_t* src);

/// What the supervisor hears, in order.
struct SupervisorEvents {
  std::function<void(const Task&, const Repetition&)> done;          ///< a repetition finished
  /// The kernel killed the worker on this task (a fault, the timeout): the point fails.
  std::function<void(const Task&, const Status&)> failed;
  /// This task could not be measured, not because of its kernel: its buffers cannot
  /// be mapped (once per task of the point), or the worker was killed from outside or
  /// exited while measuring it (the point's other repetitions are not measured; those
  /// it finished stand). Unset: `failed` hears these too.
  std::function<void(const Task&, const Status&)> lost;
  std::function<void(const SentinelReading&, const std::vector<Task>& window, bool requeued)> sentinel;
};

struct SupervisedRun {
  size_t workers = 0;          ///< worker processes started (1 + one per death)
  size_t tasks_done = 0;
  size_t remeasured = 0;       ///< tasks queued again after a disturbed window
  bool stopped = false;        ///< a stop (Ctrl-C once) ended it early; finished tasks are kept
  bool abandoned = false;      ///< a second stop: the worker was killed at once
  double seconds = 0;          ///< wall time of the measuring phase
  double measured_s = 0;       ///< sum of the repetitions' own time
  double sentinel_s = 0;       ///< time the worker spent on sentinel readings
  std::vector<BufferPlacement> buffers;  ///< per buffer plan, as the first worker mapped it (empty: no worker ran)
};

/// Measures `order` (tasks over `jobs`) in a worker process pinned to
/// protocol.cpu, with a sentinel reading after every protocol.sentinel.every tasks;
/// the window before a deviating reading is re-queued at the end while the budget
/// lasts. `stop` counts SIGINT/SIGTERM: 1 ends after the current task, 2 at once.
/// Each worker maps the buffer plans as far as the address space allows (PlanBuffers):
/// a point whose buffers are not mapped is `lost`, the others are measured.
/// Each worker opens `objects` (the run's shared objects; may be null) before timing.
/// Throws when no worker can be started: InputError at a process limit (pipe, fork,
/// or a worker that cannot map its sentinel), std::runtime_error otherwise.
SupervisedRun run_supervised(const std::vector<MeasureJob>& jobs, const std::vector<BufferPlan>& plans,
                             std::vector<Task> order, const Protocol& protocol, const SupervisorEvents& events,
                             const volatile std::sig_atomic_t* stop, SharedObjects* objects = nullptr);

/// Steal time of a CPU so far, in seconds (/proc/stat; 0 when unknown). With `proc_stat`
/// (a descriptor of /proc/stat opened before) it is read there: the measuring worker's
/// system-call filter lets it open no file.
double steal_seconds(int cpu, int proc_stat = -1);

}  // namespace kex
