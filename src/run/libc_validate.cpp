#include "src/run/libc_validate.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>

#include "src/core/fd_io.hpp"
#include "src/run/machine.hpp"
#include "src/run/piped_fork.hpp"

namespace kex {

namespace {

/// In the forked child: stdout to the pipe, pinned, GLIBC_TUNABLES set or unset, then exec.
[[noreturn]] void exec_child(const PipedFork& f, const std::vector<std::string>& args, const std::string& exe,
                             const std::string* tunables, int cpu) {
  if (dup2(f.fd, STDOUT_FILENO) < 0) _exit(126);
  close(f.fd);
  if (cpu >= 0 && !pin_thread_to(cpu)) _exit(125);  // the affinity mask survives exec
  if (tunables) setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
  std::vector<char*> argv{const_cast<char*>("kex")};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(exe.c_str(), argv.data());
  _exit(127);
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return std::string("was killed by ") + strsignal(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status)) +
         (WEXITSTATUS(status) == 127 ? " (cannot execute it)" : WEXITSTATUS(status) == 125 ? " (cannot pin it)" : "");
}

LibcReport run_child(const LibcJob& job, const std::string& exe, const std::string* tunables, int cpu) {
  const std::vector<std::string> args = libc_child_args(job);
  const PipedFork f = fork_with_pipe("libc child");
  if (f.pid == 0) exec_child(f, args, exe, tunables, cpu);
  std::string text;
  const bool read_ok = read_all(f.fd, text);
  const int read_errno = errno;
  close(f.fd);
  int status = 0;
  while (waitpid(f.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!read_ok) throw std::runtime_error(std::string("libc child: reading its output: ") + std::strerror(read_errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("libc child " + exe + " " + how_it_ended(status));
  return parse_libc_report(text, job);
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
