#include "src/run/sandbox.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
#include "src/run/contain.hpp"
#include "src/run/shared_objects.hpp"

namespace kex {

namespace {

/// Messages from a child: a header, then `len` bytes of text.
struct Header {
  uint32_t kind;   ///< 0: job finished; 1: the job faulted (fields below)
  uint32_t job;
  uint32_t len;
  int32_t signal;
  int32_t si_code;
  uint32_t pad;
  uint64_t ip, addr;  ///< addr: for SIGSYS, the refused call (refused_call)
};

/// Processes and threads a verifying child may have (its pids cgroup's pids.max): itself.
constexpr unsigned kSandboxTasks = 4;

/// The longest message a child writes (a job's answer: a verdict, or the bytes kex show
/// reads of a shared object's function) is far below this.
constexpr uint32_t kMaxMessage = uint32_t(64) << 20;

int g_fd = -1;
uint32_t g_job = 0;

/// A system call made directly, without glibc: its wrappers read thread-local
/// storage through fs (errno, the single-thread check before a cancellation point),
/// and a job may fault while fs holds something else (the segment probes,
/// docs/methodology.md §3.1). Returns the kernel's raw result (-errno on failure).
long raw_syscall3(long nr, long a, long b, long c) {
  long ret;
  asm volatile("syscall" : "=a"(ret) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return ret;
}

/// In the child: report the fault and die by it. Touches no thread-local storage
/// and calls nothing in glibc, so it works whatever fs holds. SA_RESETHAND has put
/// back the default action; the signal sent here stays blocked until the handler
/// returns, then ends the child.
extern "C" void on_fault(int sig, siginfo_t* si, void* uc) {
  Header h{1, g_job, 0, sig, si->si_code, 0, 0, reinterpret_cast<uint64_t>(si->si_addr)};
  if (sig == SIGALRM) h.addr = 0;
  if (sig == SIGSYS) h.addr = refused_call(si->si_arch, si->si_syscall);
  h.ip = static_cast<uint64_t>(static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_RIP]);
  if (g_fd >= 0) raw_syscall3(SYS_write, g_fd, reinterpret_cast<long>(&h), sizeof h);
  raw_syscall3(SYS_kill, raw_syscall3(SYS_getpid, 0, 0, 0), sig, 0);
}

/// One forked child and what it reported before it ended.
struct SandboxChild {
  std::unique_ptr<ContainedChild> proc;
  size_t first_open = 0;        ///< the first of its jobs not reported finished
  std::optional<Header> fault;  ///< the last fault it reported
  bool stopped = false;         ///< `stop` was seen: the child was killed, the job in flight abandoned
  bool overran = false;         ///< kex killed it past its job's deadline (its alarm did not end it)
  bool garbled = false;         ///< kex killed it: a message it does not write came down its pipe
  int status = 0;               ///< its wait status
};

/// In the child: runs job(first) .. job(count-1), each under an alarm of `timeout_s`
/// seconds, writing a Header and the job's message to `fd` after each; exits 0 when
/// done or stopped, 3 when the pipe fails. A fault goes through on_fault. A filter that
/// cannot be installed fails the first job with the reason.
[[noreturn]] void child_main(int fd, size_t first, size_t count, const std::function<std::string(size_t)>& job,
                             unsigned timeout_s, const volatile std::sig_atomic_t* stop, CallFilter filter,
                             SharedObjects* objects) {
  g_fd = fd;
  g_job = static_cast<uint32_t>(first);  // a constructor that faults is blamed on the first job
  catch_faults(on_fault);
  if (const std::string why = open_objects_filtered(filter, objects); !why.empty()) {
    const std::string msg = "cannot install the system-call filter: " + why;
    Header h{0, static_cast<uint32_t>(first), static_cast<uint32_t>(msg.size()), 0, 0, 0, 0, 0};
    write_all(fd, &h, sizeof h);
    write_all(fd, msg.data(), msg.size());
    _exit(0);
  }
  // `stop` is the child's copy: the parent kills the child when it sees a stop.
  for (size_t i = first; i < count; ++i) {
    if (stop && *stop) break;
    g_job = static_cast<uint32_t>(i);
    alarm(timeout_s);
    std::string msg;
    try {
      msg = job(i);
    } catch (const std::exception& e) {  // never unwound into kex's own code, in this child
      msg = std::string("the verifying process failed: ") + e.what();
    }
    alarm(0);
    Header h{0, static_cast<uint32_t>(i), static_cast<uint32_t>(msg.size()), 0, 0, 0, 0, 0};
    if (!write_all(fd, &h, sizeof h) || !write_all(fd, msg.data(), msg.size())) _exit(3);
  }
  _exit(0);
}

/// Forks a contained child that runs the jobs from `first` on (child_main), keeping the
/// descriptors `keep` open; returns it with its pipe's read end. Throws (fork_with_pipe)
/// when pipe or fork fail.
SandboxChild start_child(size_t first, size_t count, const std::function<std::string(size_t)>& job,
                         unsigned timeout_s, const volatile std::sig_atomic_t* stop, CallFilter filter,
                         SharedObjects* objects, const std::vector<int>& keep) {
  call_filter_available();  // says once, in kex's process, when there is no filter
  auto proc = std::make_unique<ContainedChild>("a verifying process", kSandboxTasks, keep);
  if (proc->in_child()) child_main(proc->fd(), first, count, job, timeout_s, stop, filter, objects);
  SandboxChild c;
  c.proc = std::move(proc);
  c.first_open = first;
  return c;
}

/// Takes the whole messages at the front of `buf`: a finished job's message goes
/// into out[job] (first_open moves past it), a fault report into c.fault. A message the
/// child does not write (another kind, not the job in flight, longer than kMaxMessage:
/// code wrote into the pipe) sets c.garbled; the child is then killed and its job blamed.
void take_messages(std::string& buf, SandboxChild& c, std::vector<SandboxOutcome>& out) {
  while (!c.garbled && buf.size() >= sizeof(Header)) {
    Header h;
    std::memcpy(&h, buf.data(), sizeof h);
    if (h.kind == 1) {
      c.fault = h;
      buf.erase(0, sizeof h);
      continue;
    }
    // The child reports its jobs in order, each message well below the cap.
    if (h.kind != 0 || h.job != c.first_open || h.job >= out.size() || h.len > kMaxMessage) {
      c.garbled = true;
      break;
    }
    if (buf.size() < sizeof h + h.len) break;
    out[h.job].finished = true;
    out[h.job].message = buf.substr(sizeof h, h.len);
    c.first_open = h.job + 1;
    buf.erase(0, sizeof h + h.len);
  }
}

/// Reads the child's reports until its pipe closes (or it ended and its group was
/// killed), then reaps it (c.status). A stop kills it at once (c.stopped): the job in
/// flight is abandoned, not blamed. A job still running kDeadlineGrace seconds past its
/// timeout (its alarm blocked or ignored) is killed here (c.overran).
void follow_child(SandboxChild& c, std::vector<SandboxOutcome>& out, unsigned timeout_s,
                  const volatile std::sig_atomic_t* stop) {
  std::string buf;
  Deadline deadline;
  deadline.in(timeout_s + kDeadlineGrace);
  const auto take = [&](std::string_view chunk) {
    const size_t before = c.first_open;
    buf.append(chunk);
    take_messages(buf, c, out);
    if (c.first_open != before) deadline.in(timeout_s + kDeadlineGrace);  // the next job has started
  };
  const auto tick = [&] {
    if (stop && *stop) c.stopped = true;  // answer within a second: the job in flight is abandoned
    else if (deadline.passed()) c.overran = true;
    return !c.stopped && !c.overran && !c.garbled;
  };
  c.proc->follow(take, tick);
  c.status = c.proc->reap();
}

/// The outcome of the job a child died in: its signal (the fault it reported, when it
/// was this job's: ip, address, si_code), a timeout after `timeout_s` seconds, or the
/// child's exit status.
SandboxOutcome death_of(const SandboxChild& c, size_t job, unsigned timeout_s) {
  SandboxOutcome o;
  if (WIFSIGNALED(c.status)) o.signal = WTERMSIG(c.status);
  if (c.fault && c.fault->job == job) {
    o.signal = c.fault->signal;
    o.si_code = c.fault->si_code;
    o.fault_ip = c.fault->ip;
    o.fault_addr = c.fault->addr;
  }
  o.timed_out = o.signal == SIGALRM || c.overran;
  const std::string late = "did not return within " + std::to_string(timeout_s) + " s";
  if (c.garbled) o.message = "wrote into the pipe to kex (a message kex does not write): killed by kex";
  else if (c.overran) o.message = late + " (its alarm did not end it: killed by kex)";
  else if (o.timed_out) o.message = late;
  else if (o.signal == SIGSYS && c.fault && c.fault->job == job) o.message = refused_call_text(o.fault_addr);
  else if (o.signal) o.message = std::string("killed by SIG") + sigabbrev_np(o.signal);
  else o.message = "the sandbox child exited with status " + std::to_string(WEXITSTATUS(c.status));
  return o;
}

}  // namespace

std::string open_objects_filtered(CallFilter filter, SharedObjects* objects) {
  const bool filtered = call_filter_available();
  if (filtered)
    if (std::string why = install_call_filter(CallFilter::loading); !why.empty()) return why;
  if (objects) objects->open_all();  // the user's shared objects open here, never in kex's process
  if (filtered && filter == CallFilter::kernels) return install_call_filter(CallFilter::kernels);
  return "";
}

void catch_faults(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGALRM, SIGSYS}) sigaction(s, &sa, nullptr);
}

std::vector<SandboxOutcome> run_sandboxed(size_t count, const std::function<std::string(size_t)>& job,
                                          unsigned timeout_s, const volatile std::sig_atomic_t* stop,
                                          CallFilter filter, SharedObjects* objects, std::vector<int> keep_open) {
  if (objects)
    for (int fd : objects->descriptors()) keep_open.push_back(fd);
  std::vector<SandboxOutcome> out(count);
  size_t next = 0;
  while (next < count) {
    if (stop && *stop) break;
    SandboxChild c = start_child(next, count, job, timeout_s, stop, filter, objects, keep_open);
    follow_child(c, out, timeout_s, stop);
    if (c.stopped) {
      next = c.first_open;
      break;
    }
    if (c.first_open >= count) break;
    if (stop && *stop && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0) {
      next = c.first_open;  // the child saw the stop and started nothing more
      break;
    }
    out[c.first_open] = death_of(c, c.first_open, timeout_s);
    next = c.first_open + 1;
  }
  for (size_t i = next; i < count; ++i)
    if (!out[i].finished && out[i].message.empty() && !out[i].signal) out[i].message = "interrupted";
  return out;
}

std::optional<int64_t> fault_offset(const SandboxOutcome& o, const void* code, size_t code_size) {
  const auto start = reinterpret_cast<uint64_t>(code);
  if (!code || !o.fault_ip || o.fault_ip < start || o.fault_ip >= start + code_size) return std::nullopt;
  return static_cast<int64_t>(o.fault_ip - start);
}

std::string describe_death(const SandboxOutcome& o, const void* code, size_t code_size) {
  if (o.finished) return o.message;
  if (o.timed_out || !o.signal) return o.message;
  std::string s = o.message;
  char buf[96];
  if (auto off = fault_offset(o, code, code_size)) {
    std::snprintf(buf, sizeof buf, " at code+0x%llx", static_cast<unsigned long long>(*off));
    s += buf;
  } else if (o.fault_ip) {
    std::snprintf(buf, sizeof buf, " at 0x%llx (outside the kernel)", static_cast<unsigned long long>(o.fault_ip));
    s += buf;
  }
  if (o.signal == SIGSEGV || o.signal == SIGBUS) {
    std::snprintf(buf, sizeof buf, " touching 0x%llx", static_cast<unsigned long long>(o.fault_addr));
    s += buf;
  }
  return s;
}

}  // namespace kex
