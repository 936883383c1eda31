// The closing stages of a sweep: the Results in config order, the protocol's record
// and the run's noise for the context, the run's totals.
#include <chrono>
#include <cstdio>

#include "src/core/units.hpp"
#include "src/model/noise.hpp"
#include "src/run/context.hpp"
#include "src/run/machine.hpp"
#include "src/run/result_build.hpp"
#include "src/run/sweep_detail.hpp"
#include "src/run/topology.hpp"

namespace kex::sweep_detail {

namespace {

/// Says which points were not measured as asked (at most 10 lines on stderr); they are
/// in context.incomplete_points.
void report_incomplete(const std::vector<IncompletePoint>& points) {
  for (size_t k = 0; k < points.size() && k < 10; ++k)
    std::fprintf(stderr, "kex: warning: %s: %s; %zu of %u repetitions measured\n", points[k].point.c_str(),
                 points[k].message.c_str(), points[k].repetitions, points[k].asked);
  if (points.size() > 10)
    std::fprintf(stderr, "kex: warning: ... and %zu more points not measured as asked (context.incomplete_points)\n",
                 points.size() - 10);
}

/// NUMA nodes as the warning writes them: "[0,1]".
std::string node_list(const std::vector<int>& nodes) {
  std::string out = "[";
  for (size_t k = 0; k < nodes.size(); ++k) out += (k ? "," : "") + std::to_string(nodes[k]);
  return out + "]";
}

}  // namespace

void collect_results(Sweep& w) {
  w.interrupted |= w.stopped();
  for (const Job& js : w.jobs) {
    PointState& p = w.points[js.point];
    const PlannedSlot& s = p.slot;
    const KernelPlan& kp = w.plan(s);
    const Built& b = w.code(s);
    if (js.died) {
      p.result = make_result(kp, s.at, *js.died, {}, p.place.placed, b.info);
      if (w.opt.journal) w.opt.journal->result(*p.result);
    } else if (js.lost) {
      // The repetitions it finished stand; without one, the point is an error in this
      // run's output, but not in the journal: a resume measures it again.
      w.out.doc.context.incomplete_points.push_back(
          {s.name, js.lost->message, js.lost->signal, js.reps.size(), w.protocol.repetitions});
      p.result = make_result(kp, s.at, js.reps.empty() ? *js.lost : Status{}, js.reps, p.place.placed, b.info);
    } else if (!js.reps.empty()) {
      p.result = make_result(kp, s.at, {}, js.reps, p.place.placed, b.info);
    }
  }
  for (PointState& p : w.points)
    if (p.result) w.out.doc.results.push_back(std::move(*p.result));
  report_incomplete(w.out.doc.context.incomplete_points);
}

/// The protocol's facts and the run's noise for the context, and where the buffers were.
void record_protocol(Sweep& w) {
  const Protocol& pr = w.protocol;
  const SupervisedRun& sup = w.sup;
  ProtocolRecord p(pr);
  p.threads = w.places;
  p.journal = w.opt.journal ? w.opt.journal->path() : "";
  p.workers_started = sup.workers;
  p.tasks_measured = sup.tasks_done;
  p.remeasured_tasks = sup.remeasured;
  p.measuring_s = sup.seconds;
  p.measured_s = sup.measured_s;
  p.overhead_ms_per_task = sup.tasks_done ? (sup.seconds - sup.measured_s) * 1e3 / double(sup.tasks_done) : 0.0;
  // The same budget the supervisor allows (a fraction of the tasks to do).
  const auto budget_tasks = static_cast<size_t>(pr.sentinel.budget * double(w.todo_tasks));
  p.noise = compute_noise(w.sentinel_l1, w.sentinel_mem, w.sentinel_disturbed, sup.tasks_done, sup.remeasured,
                          pr.sentinel.budget, budget_tasks, w.out.doc.results);
  w.out.doc.context.protocol = p;
  if (sup.buffers.empty()) return;
  // Where the measured memory really is: a buffer on another node than the worker's
  // CPU reads remote memory (each plan's nodes, and the CPU's).
  const int node = numa_node_of_cpu(pr.cpu);
  for (const BufferPlacement& b : sup.buffers)
    if (node >= 0 && !b.numa_nodes.empty() && b.numa_nodes != std::vector<int>{node})
      std::fprintf(stderr, "kex: warning: %s of buffers on NUMA node(s) %s, the worker's CPU %d on node %d\n",
                   format_bytes(b.bytes).c_str(), node_list(b.numa_nodes).c_str(), pr.cpu, node);
  w.out.doc.context.buffers = BufferRecord{node, sup.buffers};
}

SweepRun finish(Sweep& w) {
  if (w.opt.stop && *w.opt.stop >= 2) w.out.abandoned = true;
  RunContext& c = w.out.doc.context;
  c.interrupted = w.interrupted;
  c.totals = RunTotals{load_average(), w.points.size(), w.out.doc.results.size(),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - w.t_start).count()};
  return std::move(w.out);
}

}  // namespace kex::sweep_detail
