// Supervised measurement: a kernel that faults or hangs costs its own point only.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>

#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"
#include "src/model/result_json.hpp"
#include "src/run/supervisor.hpp"
#include "src/run/supervisor_detail.hpp"
#include "tests/support/watchdog.hpp"

using namespace kex;

namespace {

struct Fixture {
  CodeArena arena;
  size_t good, bad, hang;
  std::vector<BufferPlan> plans;
  Fixture() {
    // Probe the machine and the timer here, once, as a run does before it forks its
    // worker: a worker left to do it would spend its task timeout's first 120 ms on
    // the TSC calibration (more under a sanitizer).
    (void)machine();
    (void)timer_overhead_ticks();
    good = arena.add([](Xbyak::CodeGenerator& g) { emit_kernel(g, default_spec(Op::copy, RegClass::sse)); });
    // Faults on its 4th instruction: xor eax,eax; nop; nop; mov rax,[rax].
    bad = arena.add([](Xbyak::CodeGenerator& g) {
      g.xor_(g.eax, g.eax);
      g.nop();
      g.nop();
      g.mov(g.rax, g.qword[g.rax]);
      g.ret();
    });
    hang = arena.add([](Xbyak::CodeGenerator& g) {
      Xbyak::Label l;
      g.L(l);
      g.jmp(l);
    });
    arena.finalize();
    Layout l;
    plans.emplace_back(std::vector<std::pair<Layout, uint64_t>>{{l, 4096}}, 16, true);
  }
  MeasureJob job(size_t code, const std::string& name) {
    MeasureJob j;
    const CodeRef r = arena.ref(code);
    j.fn = r.as<KernelFn>();
    j.code = r.code;
    j.code_size = r.size;
    j.at.size = 4096;
    j.policy.max_time_per_point = 0.005;
    j.policy.min_samples = 5;
    j.name = name;
    return j;
  }
};

/// A "kernel" that writes bytes into every descriptor it may hold (the pipe to kex among
/// them), then waits for ever.
void junk_writer(void*, const void*, size_t) {
  const std::string junk(64, '\x7f');
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, junk.data(), junk.size());
  for (;;) pause();
}

/// A "kernel" that blocks every signal, then writes well-formed sentinel frames, as the worker
/// writes them, into every descriptor it may hold, ten a second for ever.
void frame_forger(void*, const void*, size_t) {
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  const std::string payload = nlohmann::json{{"reading", to_json(SentinelReading{})},
                                             {"window", nlohmann::json::array()},
                                             {"requeued", false}}.dump();
  const supervisor_detail::Frame f{supervisor_detail::kSentinel, uint32_t(payload.size())};
  const std::string frame = std::string(reinterpret_cast<const char*>(&f), sizeof f) + payload;
  for (;;) {
    for (int fd = 3; fd < 64; ++fd) (void)!write(fd, frame.data(), frame.size());
    usleep(100000);
  }
}

Protocol quick() {
  Protocol p;
  p.repetitions = 2;
  p.sentinel.enabled = false;
  p.task_timeout_s = 2;
  return p;
}

}  // namespace

TEST_CASE("a kernel that faults while measured is recorded with the signal and its offset, the run goes on" * doctest::test_suite("supervisor")) {
  Fixture f;
  std::vector<MeasureJob> jobs = {f.job(f.good, "a"), f.job(f.bad, "bad"), f.job(f.good, "c")};
  std::vector<Task> order = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  std::map<uint32_t, int> done;
  std::vector<std::pair<Task, Status>> failed;
  SupervisorEvents ev;
  ev.done = [&](const Task& t, const Repetition& r) {
    ++done[t.point];
    CHECK(r.per_call.median > 0);
  };
  ev.failed = [&](const Task& t, const Status& s) { failed.push_back({t, s}); };
  const SupervisedRun r = run_supervised(jobs, f.plans, order, quick(), ev, nullptr);
  CHECK(done[0] == 2);
  CHECK(done[2] == 2);
  CHECK(done.count(1) == 0);
  REQUIRE(failed.size() == 1);  // the bad point's second repetition is not tried again
  CHECK(failed[0].first.point == 1);
  CHECK(failed[0].second.kind == StatusKind::error);
  CHECK(failed[0].second.signal == SIGSEGV);
  CHECK(failed[0].second.fault_offset == std::optional<int64_t>(4));
  CHECK(failed[0].second.message == "killed by SIGSEGV at code+0x4 touching 0x0 while measuring");
  CHECK(r.workers == 2);
  CHECK(r.tasks_done == 4);
  CHECK_FALSE(r.stopped);
}

TEST_CASE("a kernel that never returns is stopped by the timeout and recorded" * doctest::test_suite("supervisor")) {
  Fixture f;
  Protocol p = quick();
  p.task_timeout_s = 1;
  std::vector<MeasureJob> jobs = {f.job(f.hang, "hang"), f.job(f.good, "ok")};
  std::vector<std::pair<Task, Status>> failed;
  int done = 0;
  SupervisorEvents ev;
  ev.done = [&](const Task&, const Repetition&) { ++done; };
  ev.failed = [&](const Task& t, const Status& s) { failed.push_back({t, s}); };
  run_supervised(jobs, f.plans, {{0, 0}, {1, 0}}, p, ev, nullptr);
  CHECK(done == 1);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].second.signal == SIGALRM);
  CHECK(failed[0].second.message.find("did not return within 1 s") == 0);
  CHECK(failed[0].second.fault_offset.has_value());  // where it was spinning
}

TEST_CASE("repetitions carry their order and the point measured before them" * doctest::test_suite("supervisor")) {
  Fixture f;
  std::vector<MeasureJob> jobs = {f.job(f.good, "a"), f.job(f.good, "b")};
  std::vector<Repetition> reps;
  SupervisorEvents ev;
  ev.done = [&](const Task&, const Repetition& r) { reps.push_back(r); };
  run_supervised(jobs, f.plans, {{1, 0}, {0, 0}, {1, 1}}, quick(), ev, nullptr);
  REQUIRE(reps.size() == 3);
  CHECK(reps[0].previous == "");
  CHECK(reps[1].previous == "b");
  CHECK(reps[2].previous == "a");
  CHECK(reps[2].order == 2);
}

TEST_CASE("a stop ends the run after the current task, keeping what was done" * doctest::test_suite("supervisor")) {
  Fixture f;
  std::vector<MeasureJob> jobs;
  std::vector<Task> order;
  for (uint32_t i = 0; i < 50; ++i) {
    jobs.push_back(f.job(f.good, "p" + std::to_string(i)));
    order.push_back({i, 0});
  }
  volatile std::sig_atomic_t stop = 0;
  int done = 0;
  SupervisorEvents ev;
  ev.done = [&](const Task&, const Repetition&) {
    if (++done == 3) stop = 1;
  };
  const SupervisedRun r = run_supervised(jobs, f.plans, order, quick(), ev, &stop);
  CHECK(r.stopped);
  CHECK(done >= 3);
  CHECK(done < 50);  // ended early: the worker finishes its current task and takes no more
  CHECK(r.tasks_done == size_t(done));
}

TEST_CASE("with the sentinel on, readings are taken and a disturbed window is re-measured within the budget" * doctest::test_suite("supervisor")) {
  Fixture f;
  Protocol p = quick();
  p.repetitions = 1;
  p.sentinel.enabled = true;
  p.sentinel.every = 2;
  p.sentinel.threshold = -0.5;  // every reading after the first counts as disturbed
  p.sentinel.budget = 0.5;
  p.sentinel.mem_bytes = 1 << 20;
  std::vector<MeasureJob> jobs;
  std::vector<Task> order;
  for (uint32_t i = 0; i < 8; ++i) {
    jobs.push_back(f.job(f.good, "p" + std::to_string(i)));
    order.push_back({i, 0});
  }
  int readings = 0, requeued = 0, done = 0;
  SupervisorEvents ev;
  ev.done = [&](const Task&, const Repetition&) { ++done; };
  ev.sentinel = [&](const SentinelReading&, const std::vector<Task>& w, bool q) {
    ++readings;
    requeued += q ? int(w.size()) : 0;
  };
  const SupervisedRun r = run_supervised(jobs, f.plans, order, p, ev, nullptr);
  CHECK(requeued == 4);  // half of the 8 tasks: the budget
  CHECK(r.remeasured == 4);
  CHECK(done == 12);
  CHECK(readings >= 6);
}

TEST_CASE("a kernel that writes into the pipe to kex fails its point, and one that forges frames does not outlive its timeout" *
          doctest::test_suite("supervisor")) {
  const Watchdog dog(60);
  Fixture f;
  Protocol p = quick();
  p.task_timeout_s = 1;
  std::vector<MeasureJob> jobs = {f.job(f.good, "ok"), f.job(f.good, "junk"), f.job(f.good, "forger")};
  jobs[1].fn = junk_writer;
  jobs[1].code = nullptr;
  jobs[2].fn = frame_forger;
  jobs[2].code = nullptr;
  std::map<uint32_t, Status> failed;
  int done = 0;
  SupervisorEvents ev;
  ev.done = [&](const Task&, const Repetition&) { ++done; };
  ev.failed = [&](const Task& t, const Status& s) { failed[t.point] = s; };
  const auto t0 = std::chrono::steady_clock::now();
  run_supervised(jobs, f.plans, {{0, 0}, {1, 0}, {2, 0}}, p, ev, nullptr);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(done == 1);
  REQUIRE(failed.count(1));
  CHECK(failed[1].message == "wrote into the pipe to kex (a malformed frame): killed by kex while measuring");
  REQUIRE(failed.count(2));
  CHECK(failed[2].message == "did not return within 1 s (its alarm did not end it: killed by kex) while measuring");
}
