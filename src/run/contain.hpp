// How kex holds a forked child that runs code from outside (README "How loaded code is
// held"): a process group of its own and, where this machine lets kex make one, a pids
// cgroup of its own with a small pids.max; SIGKILL when kex dies; no core file and no file
// written (RLIMIT_FSIZE 0); no descriptor of kex's but its pipe and the standard streams.
// The parent enforces every deadline itself and kills the whole group (and cgroup) when
// the child ends, overruns or is abandoned, so no descendant outlives the child's turn.
// What the child may call is the system-call filter's part (src/run/syscall_filter.hpp).
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// The directory under which kex can make pids cgroups (its own cgroup in the pids
/// hierarchy: v1's pids controller, or v2 where its cgroup delegates pids to children);
/// "" where it cannot (no controller, no permission). Found once.
const std::string& pids_cgroup_parent();

/// A pids cgroup made for one child under pids_cgroup_parent(), or nothing where none can
/// be made. Removed (after killing whatever is left in it) when destroyed.
class PidsCgroup {
 public:
  /// Makes "kex-PID-N" with pids.max = `max_tasks` (processes and threads together).
  explicit PidsCgroup(unsigned max_tasks);
  ~PidsCgroup();
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;
  /// Its directory ("" when none was made).
  const std::string& dir() const { return dir_; }
  /// In the child: moves this process into it (nothing when none was made).
  void join() const noexcept;
  /// SIGKILL to every process in it, until none is left (a bounded number of passes).
  void kill_all() const noexcept;

 private:
  std::string dir_;
  pid_t owner_ = 0;  ///< the process that made it: only it removes it (a forked child never does)
};

/// A time by which a child must have answered (none until set).
struct Deadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  /// Sets it `seconds` from now.
  void in(double seconds);
  void clear() { at = std::chrono::steady_clock::time_point::max(); }
  bool passed() const { return std::chrono::steady_clock::now() >= at; }
  bool is_set() const { return at != std::chrono::steady_clock::time_point::max(); }
};

/// Seconds the parent waits past a child's own timeout (its alarm, which also says where
/// the kernel was) before it kills the child itself.
inline constexpr double kDeadlineGrace = 2.0;

/// A forked child that runs code from outside, with its pipe. In the child (in_child()),
/// the constructor has already put it in its group and cgroup, set PR_SET_PDEATHSIG,
/// RLIMIT_CORE and RLIMIT_FSIZE to 0 and closed every other descriptor; it must end with
/// _exit. In the parent the destructor kills the group and cgroup and reaps the child.
class ContainedChild {
 public:
  /// Forks (fork_with_pipe: throws as it does); `what` names the child in errors,
  /// `max_tasks` is its cgroup's pids.max. `keep_open`: kex's descriptors the child keeps
  /// besides its pipe and the standard streams (the caller's: its run's shared objects'
  /// copies, SharedObjects::descriptors, which the child dlopens); every other is closed.
  ContainedChild(const std::string& what, unsigned max_tasks, std::vector<int> keep_open = {});
  ~ContainedChild();
  ContainedChild(const ContainedChild&) = delete;
  ContainedChild& operator=(const ContainedChild&) = delete;

  bool in_child() const { return pid_ == 0; }
  pid_t pid() const { return pid_; }
  /// The pipe's end: the write end in the child, the read end in the parent.
  int fd() const { return fd_; }
  /// Whether the child has ended (seen without reaping it: its group id stays its own).
  bool ended() const;
  /// SIGKILL to the child, its process group and every process of its cgroup.
  void kill_all() const;
  /// Kills what is left of its group and cgroup, closes the pipe and reaps the child
  /// (once): its wait status.
  int reap();

  /// Reads the pipe until it closes, giving each chunk to `take`; `tick` runs every
  /// 100 ms and after each chunk and returns false to stop reading (the caller then
  /// kills). When the child has ended but a descendant holds the pipe open, the group is
  /// killed and what is left is read for at most a second.
  void follow(const std::function<void(std::string_view)>& take, const std::function<bool()>& tick);

 private:
  PidsCgroup cgroup_;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace kex
