#include "src/run/libc_validate.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>

#include "src/core/process.hpp"
#include "src/run/machine.hpp"

namespace kex {

namespace {

/// Runs the libc child (`exe`) for `job`: its stdout read, its stderr kex's, pinned to `cpu`
/// (-1: not), GLIBC_TUNABLES set to `tunables` or unset. It stays in kex's process group, so
/// a Ctrl-C reaches it too.
LibcReport run_child(const LibcJob& job, const std::string& exe, const std::string* tunables, int cpu) {
  ProcessSpec spec({exe});
  spec.env = {{"GLIBC_TUNABLES", tunables ? std::optional(*tunables) : std::nullopt}};
  spec.capture = Capture::stdout_only;
  for (const auto& a : libc_child_args(job)) spec.argv.push_back(a);
  spec.output_cap = size_t(16) << 20;
  spec.own_group = false;
  spec.cpu = cpu;
  const ProcessEnd end = run_process(spec);
  if (!end.ok()) throw std::runtime_error("libc child " + exe + ": " + end.how());
  if (end.truncated) throw std::runtime_error("libc child: more than 16 MiB of output");
  return parse_libc_report(end.output, job);
}

}  // namespace

Validation validate_tunables(const LibcJob& job, const std::string& tunables, const ValidateOptions& opts) {
  Validation v;
  v.tunables = tunables;
  v.cpu = opts.cpu >= 0 ? opts.cpu : default_pin_cpu();
  std::mt19937_64 rng(opts.seed);
  std::map<uint64_t, std::vector<std::pair<uint64_t, double>>> base, tuned;  // size -> (round, ticks)
  const auto t0 = std::chrono::steady_clock::now();
  auto stopped = [&] { return opts.stop && *opts.stop; };
  for (uint32_t round = 1; round <= opts.rounds && !stopped(); ++round) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (opts.seconds > 0 && round > 3 && spent * round / (round - 1) > opts.seconds) break;
    LibcJob shuffled = job;
    std::shuffle(shuffled.sizes.begin(), shuffled.sizes.end(), rng);
    const bool tuned_first = rng() & 1;
    std::vector<LibcReport> two;  // the round's children: in its order
    for (int k = 0; k < 2 && !stopped(); ++k) try {
        two.push_back(run_child(shuffled, opts.exe, (k == 0) == tuned_first ? &tunables : nullptr, v.cpu));
      } catch (const std::runtime_error&) {
        if (!stopped()) throw;  // else a Ctrl-C killed the child too: the finished rounds stand
      }
    if (two.size() < 2) break;
    for (int k = 0; k < 2; ++k) {
      const bool is_tuned = (k == 0) == tuned_first;
      std::string& saw = is_tuned ? v.tuned_saw : v.default_saw;
      if (round > 1 && two[k].tunables != saw)
        throw std::runtime_error("libc child: GLIBC_TUNABLES changed between rounds: '" + saw + "', then '" +
                                 two[k].tunables + "'");
      saw = two[k].tunables;
      for (const LibcTiming& t : two[k].timings) (is_tuned ? tuned : base)[t.size].emplace_back(round, t.ticks);
    }
    v.rounds = round;
  }
  if (v.rounds > 0 && (v.tuned_saw != tunables || !v.default_saw.empty()))
    throw std::runtime_error("libc child: the children saw GLIBC_TUNABLES '" + v.default_saw + "' and '" + v.tuned_saw +
                             "' where '' and '" + tunables + "' were set");
  for (uint64_t size : job.sizes) v.sizes.push_back({size, paired_ratio(tuned[size], base[size])});
  return v;
}

double validation_estimate_s(const LibcJob& job, uint32_t rounds) {
  constexpr double kChildStart = 0.2;  // exec and start-up: 0.15-0.22 s measured on a loaded 2-vCPU VM
  return rounds * 2 * (kChildStart + double(job.sizes.size()) * job.budget_ms * 1.2e-3);
}

}  // namespace kex
