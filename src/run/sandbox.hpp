// Untrusted code runs in forked children: verification of every kernel, the
// segment probes and (with a supervisor) measurement. A child that dies is a
// result, not an abort: the outcome names the signal, the instruction that
// faulted and the address it touched (docs/STYLE.md rule 3).
#pragma once
#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/run/syscall_filter.hpp"

namespace kex {

class SharedObjects;

/// What became of one job.
struct SandboxOutcome {
  bool finished = false;        ///< the job returned (its message is in `message`)
  std::string message;          ///< the job's answer ("" = fine), or why it did not finish
  int signal = 0;               ///< the signal that ended it (SIGALRM for a timeout, SIGSYS for a refused call)
  int si_code = 0;              ///< its si_code when the fault was reported (SI_KERNEL: #GP)
  uint64_t fault_ip = 0;        ///< instruction pointer at the fault (0 when unknown)
  uint64_t fault_addr = 0;      ///< si_addr of the fault (SIGSYS: the refused call, refused_call())
  bool timed_out = false;
};

/// Runs job(0) .. job(count-1) in forked children, in order, as many per child as
/// survive: after a child dies the next job runs in a new one. Each child is contained
/// (src/run/contain.hpp: its own process group and pids cgroup, killed whole when it
/// ends) and installs `filter` (src/run/syscall_filter.hpp) after opening the shared
/// objects: `loading` for jobs that open objects themselves. Each job may take
/// `timeout_s` seconds (SIGALRM ends it; one that keeps running kDeadlineGrace seconds
/// more is killed from here). A refused system call ends the child with SIGSYS, reported
/// as "made a system call a copy routine has no use for: NAME". `stop` (may be null) is
/// polled between jobs: once set, the jobs not started are returned unfinished with message
/// "interrupted". A fault is reported even when the job faults with fs not
/// holding glibc's thread pointer (the handler uses no TLS). `objects` (may be null): the
/// run's shared objects, opened in each child before its jobs (their stubs' slots filled;
/// their descriptors kept open in the children). `keep_open`: more of kex's descriptors
/// the children keep (an object's copy a job opens itself); every other is closed.
/// Throws when fork or pipe fail: InputError at a process limit (ulimit -n, -u),
/// std::runtime_error otherwise.
std::vector<SandboxOutcome> run_sandboxed(size_t count, const std::function<std::string(size_t)>& job,
                                          unsigned timeout_s, const volatile std::sig_atomic_t* stop = nullptr,
                                          CallFilter filter = CallFilter::kernels, SharedObjects* objects = nullptr,
                                          std::vector<int> keep_open = {});

/// In a contained child that runs kernels (the sandbox's, the measuring worker): the
/// `loading` filter, the run's shared objects `objects` opened under it
/// (SharedObjects::open_all; none when null), then the `kernels` filter when `filter` is
/// kernels; no filter where call_filter_available() says there is none. "" or why a filter
/// could not be installed.
std::string open_objects_filtered(CallFilter filter, SharedObjects* objects);

/// In a child: `handler` for the signals a kernel's fault, timeout or refused system call
/// raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGALRM, SIGSYS), once each (SA_RESETHAND: the default
/// action is back when it runs, so re-raising the signal ends the child).
void catch_faults(void (*handler)(int, siginfo_t*, void*));

/// "killed by SIGSEGV at code+0x3a (address 0x7f...)": a one-line description of a
/// death. `code`/`code_size` locate the kernel so the instruction is given relative
/// to its first byte; outside it (or unknown) the absolute address is given.
std::string describe_death(const SandboxOutcome& o, const void* code, size_t code_size);

/// The fault's instruction relative to `code`, when it lies inside [code, code + size).
std::optional<int64_t> fault_offset(const SandboxOutcome& o, const void* code, size_t code_size);

}  // namespace kex
