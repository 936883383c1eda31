#include <doctest/doctest.h>

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "src/core/error.hpp"
#include "src/run/counters.hpp"

using namespace kex;

namespace {
double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
void spin_ms(double ms) {
  const double end = now_ns() + ms * 1e6;
  while (now_ns() < end) {
  }
}
const Counter& counter_named(const CounterSet& cs, const std::string& name) {
  for (const auto& c : cs.counters())
    if (c.name == name) return c;
  FAIL("no counter " << name);
  return cs.counters().front();
}
}  // namespace

TEST_CASE("libpfm4 resolves cycles and instructions without needing a PMU" * doctest::test_suite("counters")) {
  const EventEncoding cyc = resolve_event("cycles");
  REQUIRE_MESSAGE(cyc.ok, cyc.error);
  CHECK(cyc.type == PERF_TYPE_HARDWARE);
  CHECK(cyc.config == PERF_COUNT_HW_CPU_CYCLES);
  CHECK(cyc.hardware);
  CHECK(cyc.fstr.find("PERF_COUNT_HW_CPU_CYCLES") != std::string::npos);
  const EventEncoding ins = resolve_event("instructions");
  REQUIRE(ins.ok);
  CHECK(ins.type == PERF_TYPE_HARDWARE);
  CHECK(ins.config == PERF_COUNT_HW_INSTRUCTIONS);
  const EventEncoding tc = resolve_event("task-clock");
  REQUIRE(tc.ok);
  CHECK(tc.type == PERF_TYPE_SOFTWARE);
  CHECK(tc.config == PERF_COUNT_SW_TASK_CLOCK);
  CHECK_FALSE(tc.hardware);
  const EventEncoding bad = resolve_event("no_such_event_kex");
  CHECK_FALSE(bad.ok);
  CHECK(bad.error == "event not found");
}

TEST_CASE("kex counter names are unique and each resolves or says why" * doctest::test_suite("counters")) {
  std::set<std::string> names;
  std::vector<std::string> all;
  for (const auto& a : counter_aliases()) {
    CHECK(names.insert(std::string(a.name)).second);
    CHECK(!a.candidates.empty());
    CHECK(!a.description.empty());
    all.emplace_back(a.name);
  }
  CHECK(names.count("cycles"));
  CHECK(names.count("llc-misses"));
  const CounterSet cs = open_counters(all);  // never throws for kex names
  REQUIRE(cs.counters().size() == all.size());
  for (const auto& c : cs.counters()) {
    CAPTURE(c.name);
    if (c.event.empty()) CHECK(c.reason.rfind("no libpfm4 event for this CPU (tried: ", 0) == 0);
    else CHECK((c.ok || !c.reason.empty()));
  }
  // The generic ones resolve everywhere.
  CHECK(counter_named(cs, "cycles").event == "perf::PERF_COUNT_HW_CPU_CYCLES");  // no ":u=1:k=0..." modifiers
  CHECK(counter_named(cs, "instructions").event.find("PERF_COUNT_HW_INSTRUCTIONS") != std::string::npos);
  CHECK(counter_named(cs, "l1d-misses").event.find("PERF_COUNT_HW_CACHE_L1D:READ:MISS") != std::string::npos);
}

TEST_CASE("hardware counters degrade to one note without a PMU, software counters still count" * doctest::test_suite("counters")) {
  const PmuStatus& pmu = pmu_status();
  CounterSet cs = open_counters({"cycles", "instructions", "task-clock", "context-switches"});
  REQUIRE(cs.counters().size() == 4);
  if (!pmu.available) {
    // The path this VM takes (docs/methodology.md §2.4: perf_event_open gives ENOENT).
    MESSAGE("no PMU here: " << pmu.message);
    if (pmu.error == ENOENT)
      CHECK(pmu.message == "no PMU: hardware counters unavailable (ENOENT); cycles are imul-chain estimates");
    CHECK(cs.note() == pmu.message);
    CHECK_FALSE(counter_named(cs, "cycles").ok);
    CHECK(counter_named(cs, "cycles").reason == "no PMU (" + pmu.error_name + ")");
    CHECK_FALSE(counter_named(cs, "instructions").ok);
  } else {
    CHECK(pmu.message.empty());
    CHECK(cs.note().empty());
    CHECK(counter_named(cs, "cycles").ok);
  }
  REQUIRE(counter_named(cs, "task-clock").ok);
  CHECK(cs.any_ok());
  cs.start();
  const double t0 = thread_cpu_ns();
  spin_ms(20);
  const double ran = thread_cpu_ns() - t0;  // time this thread ran (a shared machine preempts it)
  cs.stop();
  const auto v = cs.read();
  REQUIRE(v.size() == 4);
  CHECK(v[0].name == "cycles");
  CHECK(v[0].ok == pmu.available);
  if (!pmu.available) CHECK(v[0].value == 0);
  else CHECK(v[0].value > 1e6);  // 20 ms of spinning is > 1e6 core cycles on any CPU
  // task-clock counts the ns this thread ran, as CLOCK_THREAD_CPUTIME_ID does.
  CHECK(v[2].ok);
  CHECK(v[2].running == doctest::Approx(1.0));
  // Within 20%, or 2 ms where preemption left the thread little time to run (the
  // start/stop calls around the window are then a large share of it).
  CHECK(v[2].value > 0.8 * ran);
  CHECK(v[2].value < ran + std::max(0.2 * ran, 2e6));
  CHECK(v[3].ok);
  // Stopped counters stay put; start() resets them.
  spin_ms(5);
  CHECK(cs.read()[2].raw == v[2].raw);
  cs.start();
  cs.stop();
  CHECK(cs.read()[2].raw < v[2].raw / 10);
}

TEST_CASE("a counted region gives the count it should: one page fault per fresh 4 KiB page" * doctest::test_suite("counters")) {
  constexpr size_t kPages = 64;
  void* p = mmap(nullptr, kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  madvise(p, kPages * 4096, MADV_NOHUGEPAGE);
  CounterSet cs = open_counters({"page-faults"});
  REQUIRE(counter_named(cs, "page-faults").ok);
  cs.start();
  for (size_t i = 0; i < kPages; ++i) static_cast<volatile char*>(p)[i * 4096] = 1;
  cs.stop();
  const CounterValue v = cs.read()[0];
  munmap(p, kPages * 4096);
  CHECK(v.ok);
  CHECK(v.value >= kPages);
  CHECK(v.value < 2 * kPages);
  CHECK(per_byte(v, kPages * 4096) == doctest::Approx(v.value / (kPages * 4096.0)));
  // Beside task-clock, over repeated regions (grouped together, the kernel lost most
  // page faults; disabling and re-enabling a group lost its members' counts).
  CounterSet mixed = open_counters({"task-clock", "page-faults", "context-switches"});
  for (int rep = 0; rep < 3; ++rep) {
    void* q = mmap(nullptr, kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(q != MAP_FAILED);
    madvise(q, kPages * 4096, MADV_NOHUGEPAGE);
    mixed.start();
    for (size_t i = 0; i < kPages; ++i) static_cast<volatile char*>(q)[i * 4096] = 1;
    mixed.stop();
    munmap(q, kPages * 4096);
    const auto vals = mixed.read();
    CAPTURE(rep);
    CHECK(vals[0].value > 0);
    CHECK(vals[1].value >= kPages);
    CHECK(vals[1].value < 2 * kPages);
  }
  CHECK(per_byte(v, 0) == 0);
  CHECK(per_byte(CounterValue{}, 4096) == 0);
}

TEST_CASE("unknown counter names are an input error naming the event and where to find valid ones" * doctest::test_suite("counters")) {
  try {
    open_counters({"cycles", "bogus-event"});
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.rfind("--counters: unknown counter \"bogus-event\"", 0) == 0);
    CHECK(m.find("event not found") != std::string::npos);
    CHECK(m.find("l2-misses") != std::string::npos);
    CHECK(m.find("kex info") != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(open_counters({""}), InputError);
  try {
    open_counters({"nope"}, "config.json:/counters/0");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("config.json:/counters/0: ", 0) == 0);
  }
  // A libpfm4 name (not a kex one) is accepted as is.
  const CounterSet cs = open_counters({"perf::PERF_COUNT_SW_CONTEXT_SWITCHES"});
  CHECK(cs.counters()[0].ok);
  CHECK(cs.note().empty());
}

TEST_CASE("libpfm4 lists its generic table among the active PMU tables" * doctest::test_suite("counters")) {
  const auto pmus = pfm_pmu_names();
  CHECK(std::find(pmus.begin(), pmus.end(), "perf") != pmus.end());
}
