// Running another program (a compiler, llvm-mca, gnuplot, a test program kex built): one
// argument vector, no shell, its output captured up to a cap, a time limit that kills its
// whole process group, and how it ended. Nothing a user typed is ever read as a command.
#pragma once
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kex {

/// Which of the program's streams go into the captured output; the other goes to
/// /dev/null (stderr_only) or stays kex's (stdout_only: its errors reach the user).
enum class Capture { both, stdout_only, stderr_only };

/// What to run and how: the argument vector, the rest set field by field.
struct ProcessSpec {
  ProcessSpec() = default;
  explicit ProcessSpec(std::vector<std::string> args) : argv(std::move(args)) {}

  /// argv[0] is a path (with a '/') or a name looked up on PATH; every entry is passed
  /// as it is, never through a shell.
  std::vector<std::string> argv;
  std::string dir;  ///< its working directory ("" keeps kex's)
  /// Environment changes: NAME and a value to set, or no value to remove NAME.
  std::vector<std::pair<std::string, std::optional<std::string>>> env;
  Capture capture = Capture::both;
  size_t output_cap = size_t(1) << 20;  ///< bytes of output kept; the rest is read and dropped
  std::chrono::milliseconds timeout{0};  ///< 0: none; past it the process group is killed
  /// Its own process group (killed whole at the timeout or a stop, so a compiler's
  /// children go too); false leaves it in kex's (a Ctrl-C at the terminal reaches it).
  bool own_group = true;
  int cpu = -1;  ///< >= 0: the only CPU it may run on (a failure to pin it is a start failure)
  /// Checked while it runs: when it is nonzero the program (its group) is killed.
  const volatile std::sig_atomic_t* stop = nullptr;
};

/// How a program ended and what it wrote.
struct ProcessEnd {
  bool started = false;   ///< false: it could not be executed (start_errno says why)
  int start_errno = 0;    ///< exec's errno (ENOENT: no such program), or chdir's or the pinning's
  enum class Step { exec, dir, cpu } start_step = Step::exec;  ///< what failed when it was not started
  int status = 0;         ///< the wait status when it ended by itself
  bool timed_out = false; ///< killed at ProcessSpec::timeout
  bool stopped = false;   ///< killed because *ProcessSpec::stop became nonzero
  std::string output;     ///< what it wrote (Capture), at most output_cap bytes
  bool truncated = false; ///< it wrote more than output_cap bytes
  std::chrono::milliseconds limit{0};  ///< the time limit it ran under (ProcessSpec::timeout)

  /// It ran and exited with status 0.
  bool ok() const;
  /// How it ended in words: "exit status 1", "killed by SIGSEGV", "did not finish within
  /// 60 s: killed", "stopped", "cannot be started (ENOENT (No such file or directory))",
  /// "cannot be started in its folder (...)", "cannot be pinned to its CPU (...)".
  std::string how() const;
};

/// Runs `spec` and waits for it. The child gets stdin from /dev/null, no core file, no
/// blocked signal (ignored ones stay ignored, as exec keeps them), and SIGKILL when kex dies. Throws
/// (throw_os_error) only when the pipe or fork fails; every way the program itself fails is
/// in the ProcessEnd.
ProcessEnd run_process(const ProcessSpec& spec);

/// A time limit as "60 s", "1.5 s" or, below a second, "200 ms".
std::string duration_text(std::chrono::milliseconds d);

/// While one exists, SIGINT, SIGTERM and SIGHUP only set flag() (give it to
/// ProcessSpec::stop): the running program is killed and the caller cleans up. Destroyed,
/// it puts the old handlers back and raises a noted signal again, so that kex then stops as
/// it would have.
class StopSignalsNoted {
 public:
  StopSignalsNoted();
  ~StopSignalsNoted();
  StopSignalsNoted(const StopSignalsNoted&) = delete;
  StopSignalsNoted& operator=(const StopSignalsNoted&) = delete;
  /// The signal noted, 0 until one came.
  const volatile std::sig_atomic_t* flag() const;

 private:
  struct sigaction old_[3];
};

}  // namespace kex
