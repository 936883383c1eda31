// Planning a sweep: every config's kernel plans made once, this shard's points, and
// the figures --list and the limits read (tasks, time, buffers, threads).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "src/core/affinity.hpp"
#include "src/core/error.hpp"
#include "src/run/machine.hpp"
#include "src/run/plans.hpp"
#include "src/run/sweep_detail.hpp"
#include "src/run/machine.hpp"
#include "src/run/topology.hpp"

namespace kex::sweep_detail {

bool overlaps(const Coords& at) {
  if (!at.layout.distance) return false;
  const int64_t d = *at.layout.distance;
  return static_cast<uint64_t>(d < 0 ? -d : d) < at.size;
}

std::string overlap_skip(const KernelPlan& k, const Coords& at) { return overlaps(at) ? overlap_refusal(k) : ""; }

std::pair<std::vector<BufferPlan>, std::map<bool, size_t>> buffer_plans(const SweepPlan& sp, uint32_t above) {
  std::map<bool, std::vector<std::pair<Layout, uint64_t>>> layouts;
  uint32_t max_align = 1;
  for (const auto& s : sp.slots) {
    if (s.at.threads <= above) continue;
    add_layout(layouts[s.at.layout.huge_pages], s.at.layout, region_bytes(s.at));
    max_align = std::max(max_align, sp.plans[s.config].plans[s.plan].alignment);
  }
  std::vector<BufferPlan> plans;
  std::map<bool, size_t> index;
  for (const auto& [huge, v] : layouts) {
    index[huge] = plans.size();
    plans.emplace_back(v, max_align, huge);
  }
  return {plans, index};
}

namespace {

/// This shard's points of every config, in config order, into sp.slots and sp.names;
/// counting stops past `max_slots` (sp.complete is then false).
void expand_points(SweepPlan& sp, size_t max_slots) {
  size_t global = 0;
  for (size_t ci = 0; ci < sp.configs.size() && sp.complete; ++ci) {
    const ConfigPlans& cp = sp.plans[ci];
    sp.complete = visit_points(sp.configs[ci], cp, [&](const PlannedPoint& p) {
      if (global++ % sp.shard_count == sp.shard_index)
        sp.slots.push_back({ci, p.plan, p.at, point_name({cp.plans[p.plan].key, p.at})});
      return sp.slots.size() <= max_slots;
    });
  }
  for (const PlannedSlot& s : sp.slots) sp.names.push_back(s.name);
}

/// The most workers a point this CPU runs asks for, and the first such point's name
/// ({1, ""} when every point runs one thread).
std::pair<uint32_t, std::string> most_threaded(const SweepPlan& sp) {
  std::pair<uint32_t, std::string> most{1, ""};
  for (const PlannedSlot& s : sp.slots)
    if (sp.plans[s.config].plans[s.plan].skip.empty() && s.at.threads > most.first) most = {s.at.threads, s.name};
  return most;
}

/// What --list's estimate assumes a call moves: bytes per second, typical and slow (a
/// DRAM-sized copy under another tenant's traffic), and how much longer a busy machine
/// takes (measured: a default run took 22 s quiet and 98 s with two compilers running).
constexpr double kTypicalGBps = 30e9, kSlowGBps = 5e9, kBusyFactor = 4.5;

/// About how long one member of a round takes at `gbps`: its samples of sample_us, at most
/// member_us, or one call when a call takes longer; the settling calls before each turn.
double round_member_seconds(const RoundPolicy& r, const Coords& at, double gbps) {
  const double call = std::max(double(at.size) / gbps, 50e-9);
  const double sample = std::max(r.sample_us * 1e-6, call);
  const double samples = std::clamp(r.member_us * 1e-6 / sample, 1.0, double(std::max(r.samples, 1u)));
  const double turns = std::ceil(samples / std::max(r.block, 1u));
  const double settle = call > 1e-3 ? 0 : turns * std::max(r.settle_us * 1e-6, call);
  return samples * sample + settle;
}

/// Each point's skip reason on this CPU, and the measuring time of those that run:
/// typical (estimate_s) and at worst (worst_s), and the tasks.
void estimate_time(SweepPlan& p, const Protocol& pr) {
  for (const PlannedSlot& s : p.slots) {
    const KernelPlan& kp = p.plans[s.config].plans[s.plan];
    p.skips.push_back(kp.skip.empty() ? overlap_skip(kp, s.at) : kp.skip);
    if (!p.skips.back().empty()) {
      ++p.skipped;
      continue;
    }
    if (pr.paired) {
      p.estimate_s += pr.repetitions * round_member_seconds(pr.round, s.at, kTypicalGBps);
      p.worst_s += pr.repetitions * round_member_seconds(pr.round, s.at, kSlowGBps) * kBusyFactor;
      continue;
    }
    const Policy& pol = p.configs[s.config].policy;
    const double cap = pol.max_time_per_point, warm = 0.002 + pol.min_samples * pol.sample_us * 1e-6;
    p.estimate_s += pr.repetitions * (warm + std::max(cap / 2, pol.min_time_per_point));
    p.worst_s += pr.repetitions * (warm + cap) * kBusyFactor;
  }
  p.tasks = (p.slots.size() - p.skipped) * pr.repetitions;
}

}  // namespace

}  // namespace kex::sweep_detail

namespace kex {

using sweep_detail::buffer_plans;

std::vector<ConfigPlans> plan_configs(const std::vector<Config>& configs, LoadedCode& loaded) {
  std::vector<ConfigPlans> plans;
  for (const Config& c : configs) plans.push_back(config_plans(c, loaded));
  return plans;
}

SweepPlan plan_sweep(const std::vector<Config>& configs, std::vector<ConfigPlans> plans, const RunOptions& opt,
                     size_t max_points) {
  if (plans.size() != configs.size())
    throw std::invalid_argument("plan_sweep: " + std::to_string(plans.size()) + " configs' plans for " +
                                std::to_string(configs.size()) + " configs");
  SweepPlan p;
  p.configs = configs;
  p.plans = std::move(plans);
  p.loaded = opt.loaded;
  p.shard_index = opt.shard_index;
  p.shard_count = opt.shard_count;
  p.streams = resolve_streams(p.configs, machine().caches);
  sweep_detail::expand_points(p, max_points);
  sweep_detail::estimate_time(p, opt.protocol);
  std::tie(p.most_threads, p.most_threads_point) = sweep_detail::most_threaded(p);
  uint32_t most = 1;
  for (const auto& s : p.slots) most = std::max(most, s.at.threads);
  for (uint32_t k = 0; k < most; ++k)  // the measuring thread's buffers, then each helper's
    for (const auto& b : buffer_plans(p, k).first) p.buffer_bytes += b.bytes();
  return p;
}

SweepPlan plan_sweep(const std::vector<Config>& configs, const RunOptions& opt, size_t max_points) {
  return plan_sweep(configs, plan_configs(configs, *opt.loaded), opt, max_points);
}

std::vector<ThreadPlace> plan_places(const SweepPlan& plan, const Protocol& protocol) {
  if (plan.most_threads <= 1) return {};
  int cpu = protocol.cpu >= 0 ? protocol.cpu : default_pin_cpu();
  if (protocol.placement.mode == PlacementMode::list && !protocol.placement.cpus.empty())
    cpu = protocol.placement.cpus.front();
  try {
    return place_threads(protocol.placement, plan.most_threads, cpu, startup_cpus());
  } catch (const InputError& e) {
    throw InputError(plan.most_threads_point, e.what());
  }
}

}  // namespace kex
