#include "src/run/team.hpp"

#include <immintrin.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>

#include "src/run/machine.hpp"

namespace kex {

struct Team::Shared {
  std::atomic<uint64_t> generation{0};  ///< bumped for each job (and for the stop)
  std::atomic<uint32_t> done{0};        ///< helpers finished with the current job
  std::atomic<uint32_t> ready{0};       ///< helpers started (pinned, or failed_pin set)
  std::atomic<bool> failed_pin{false};
  uint32_t active = 0;                  ///< workers of the current job
  const std::function<void(uint32_t)>* job = nullptr;
  bool quit = false;
  std::vector<std::exception_ptr> errors;
};

namespace {

/// Spins (with pause) until pred() or about `ticks` TSC ticks have passed; true when pred() held.
template <class P>
bool spin_until(P pred, uint64_t ticks) {
  const uint64_t t0 = __rdtsc();
  while (!pred()) {
    _mm_pause();
    if (__rdtsc() - t0 > ticks) return pred();
  }
  return true;
}

/// About one millisecond of TSC ticks (the helpers' spin before they sleep).
uint64_t spin_ticks() { return uint64_t(machine().tsc_hz * 1e-3); }

}  // namespace

Team::Team(const std::vector<int>& cpus) : cpus_(cpus), s_(std::make_unique<Shared>()) {
  if (cpus_.empty()) cpus_.push_back(sched_getcpu());
  s_->errors.resize(cpus_.size());
  for (uint32_t k = 1; k < cpus_.size(); ++k) threads_.emplace_back([this, k] { helper(k); });
  const uint32_t helpers = uint32_t(threads_.size());
  for (uint32_t r; (r = s_->ready.load()) < helpers;) s_->ready.wait(r);
  if (s_->failed_pin.load()) {
    stop();  // the destructor does not run for a constructor that throws
    throw std::runtime_error("cannot pin a worker thread to its CPU (sched_setaffinity)");
  }
}

Team::~Team() { stop(); }

void Team::stop() {
  if (threads_.empty()) return;
  s_->quit = true;
  s_->generation.fetch_add(1, std::memory_order_release);
  s_->generation.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void Team::helper(uint32_t k) {
  Shared& s = *s_;
  if (!pin_thread_to(cpus_[k])) s.failed_pin = true;
  s.ready.fetch_add(1);
  s.ready.notify_all();
  uint64_t seen = 0;
  const uint64_t spin = spin_ticks();
  for (;;) {
    // Spin a little (the next sample follows at once), then sleep on the generation.
    if (!spin_until([&] { return s.generation.load(std::memory_order_acquire) != seen; }, spin))
      s.generation.wait(seen, std::memory_order_acquire);
    seen = s.generation.load(std::memory_order_acquire);
    if (s.quit) return;
    if (k < s.active) {
      try {
        (*s.job)(k);
      } catch (...) {
        s.errors[k] = std::current_exception();
      }
    }
    s.done.fetch_add(1, std::memory_order_acq_rel);
  }
}

void Team::run(uint32_t n, const std::function<void(uint32_t)>& job) {
  Shared& s = *s_;
  n = std::clamp<uint32_t>(n, 1, size());
  s.job = &job;
  s.active = n;
  s.done.store(0, std::memory_order_relaxed);
  s.generation.fetch_add(1, std::memory_order_acq_rel);
  s.generation.notify_all();
  std::exception_ptr mine;
  try {
    job(0);
  } catch (...) {
    mine = std::current_exception();
  }
  // Every helper answers each generation (the idle ones at once), so the next job
  // cannot start while one is still reading this one.
  const uint32_t helpers = uint32_t(threads_.size());
  while (s.done.load(std::memory_order_acquire) < helpers) _mm_pause();
  if (mine) std::rethrow_exception(mine);
  for (std::exception_ptr& e : s.errors)
    if (e) std::rethrow_exception(std::exchange(e, nullptr));
}

uint64_t TeamSample::wall() const {
  if (start.empty()) return 0;
  return *std::max_element(end.begin(), end.end()) - *std::min_element(start.begin(), start.end());
}

uint64_t TeamSample::start_spread() const {
  if (start.empty()) return 0;
  return *std::max_element(start.begin(), start.end()) - *std::min_element(start.begin(), start.end());
}

TeamSample team_sample(Team& team, uint32_t n, const std::function<void(uint32_t)>& prepare,
                       const std::function<void(uint32_t)>& body) {
  TeamSample t;
  t.arrive.assign(n, 0);
  t.start.assign(n, 0);
  t.end.assign(n, 0);
  std::atomic<uint32_t> arrived{0};
  team.run(n, [&](uint32_t k) {
    prepare(k);
    t.arrive[k] = tsc_fenced();
    arrived.fetch_add(1, std::memory_order_acq_rel);
    while (arrived.load(std::memory_order_acquire) < n) _mm_pause();
    t.start[k] = tsc_fenced();
    body(k);
    t.end[k] = tsc_fenced();
  });
  return t;
}

}  // namespace kex
