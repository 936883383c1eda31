#include "src/run/sandbox.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
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
  uint64_t ip, addr;
};

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
  h.ip = static_cast<uint64_t>(static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_RIP]);
  if (g_fd >= 0) raw_syscall3(SYS_write, g_fd, reinterpret_cast<long>(&h), sizeof h);
  raw_syscall3(SYS_kill, raw_syscall3(SYS_getpid, 0, 0, 0), sig, 0);
}

/// One forked child and what it reported before it ended.
struct SandboxChild {
  pid_t pid = -1;
  int fd = -1;                  ///< the read end of its pipe
  size_t first_open = 0;        ///< the first of its jobs not reported finished
  std::optional<Header> fault;  ///< the last fault it reported
  bool stopped = false;         ///< `stop` was seen: the child was killed, the job in flight abandoned
  int status = 0;               ///< its wait status
};

/// In the child: runs job(first) .. job(count-1), each under an alarm of `timeout_s`
/// seconds, writing a Header and the job's message to `fd` after each; exits 0 when
/// done or stopped, 3 when the pipe fails. A fault goes through on_fault.
[[noreturn]] void child_main(int fd, size_t first, size_t count, const std::function<std::string(size_t)>& job,
                             unsigned timeout_s, const volatile std::sig_atomic_t* stop) {
  g_fd = fd;
  catch_faults(on_fault);
  open_shared_objects();  // the user's shared objects open here, never in kex's process
  // SIGINT/SIGTERM keep the parent's handlers: `stop` (the child's copy) is set and
  // no further job starts; the parent also kills the child when it sees the stop.
  for (size_t i = first; i < count; ++i) {
    if (stop && *stop) break;
    g_job = static_cast<uint32_t>(i);
    alarm(timeout_s);
    const std::string msg = job(i);
    alarm(0);
    Header h{0, static_cast<uint32_t>(i), static_cast<uint32_t>(msg.size()), 0, 0, 0, 0, 0};
    if (!write_all(fd, &h, sizeof h) || !write_all(fd, msg.data(), msg.size())) _exit(3);
  }
  _exit(0);
}

/// Forks a child that runs the jobs from `first` on (child_main); returns it with its
/// pipe's read end. Throws (fork_with_pipe) when pipe or fork fail.
SandboxChild start_child(size_t first, size_t count, const std::function<std::string(size_t)>& job,
                         unsigned timeout_s, const volatile std::sig_atomic_t* stop) {
  const PipedFork f = fork_with_pipe("a verifying process");
  if (f.pid == 0) child_main(f.fd, first, count, job, timeout_s, stop);
  SandboxChild c;
  c.pid = f.pid;
  c.fd = f.fd;
  c.first_open = first;
  return c;
}

/// Takes the whole messages at the front of `buf`: a finished job's message goes
/// into out[job] (first_open moves past it), a fault report into c.fault.
void take_messages(std::string& buf, SandboxChild& c, std::vector<SandboxOutcome>& out) {
  while (buf.size() >= sizeof(Header)) {
    Header h;
    std::memcpy(&h, buf.data(), sizeof h);
    if (h.kind == 1) {
      c.fault = h;
      buf.erase(0, sizeof h);
      continue;
    }
    if (buf.size() < sizeof h + h.len) break;
    if (h.job < out.size()) {
      out[h.job].finished = true;
      out[h.job].message = buf.substr(sizeof h, h.len);
      c.first_open = h.job + 1;
    }
    buf.erase(0, sizeof h + h.len);
  }
}

/// Reads the child's reports (polling every 100 ms) until its pipe closes, then
/// reaps it (c.status). A stop kills it at once (c.stopped): the job in flight is
/// abandoned, not blamed.
void follow_child(SandboxChild& c, std::vector<SandboxOutcome>& out, const volatile std::sig_atomic_t* stop) {
  std::string buf;
  for (;;) {
    pollfd pfd{c.fd, POLLIN, 0};
    const int pr = poll(&pfd, 1, 100);
    if (pr < 0 && errno != EINTR) break;
    if (stop && *stop) {
      // Answer within a second: the job in flight is abandoned, not blamed.
      kill(c.pid, SIGKILL);
      c.stopped = true;
      break;
    }
    if (pr <= 0) continue;
    char chunk[4096];
    const ssize_t k = read(c.fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    buf.append(chunk, static_cast<size_t>(k));
    take_messages(buf, c, out);
  }
  close(c.fd);
  while (waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
  }
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
  o.timed_out = o.signal == SIGALRM;
  if (o.timed_out) o.message = "did not return within " + std::to_string(timeout_s) + " s";
  else if (o.signal) o.message = std::string("killed by SIG") + sigabbrev_np(o.signal);
  else o.message = "the sandbox child exited with status " + std::to_string(WEXITSTATUS(c.status));
  return o;
}

}  // namespace

void catch_faults(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGALRM}) sigaction(s, &sa, nullptr);
}

PipedFork fork_with_pipe(const std::string& what) {
  int fds[2];
  if (pipe(fds) != 0) throw_os_error("cannot start " + what + ": pipe", errno);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    throw_os_error("cannot start " + what + ": fork", err);
  }
  close(fds[pid == 0 ? 0 : 1]);
  return {pid, fds[pid == 0 ? 1 : 0]};
}

std::vector<SandboxOutcome> run_sandboxed(size_t count, const std::function<std::string(size_t)>& job,
                                          unsigned timeout_s, const volatile std::sig_atomic_t* stop) {
  std::vector<SandboxOutcome> out(count);
  size_t next = 0;
  while (next < count) {
    if (stop && *stop) break;
    SandboxChild c = start_child(next, count, job, timeout_s, stop);
    follow_child(c, out, stop);
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
