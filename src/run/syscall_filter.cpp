#include "src/run/syscall_filter.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

namespace kex {

namespace {

/// Which calls of a system call a rule refuses.
enum class When {
  always,
  new_process,    ///< clone without CLONE_THREAD (a fork); a thread is allowed
  other_process,  ///< its first argument is not this process's id (kill, tgkill, ...)
  not_self,       ///< its first argument is not 0, the calling thread (sched_setaffinity)
  writing_open1,  ///< open: flags (argument 1) that write, create, truncate or append
  writing_open2,  ///< openat: the same in argument 2
  no_such_call,   ///< ENOSYS instead of SIGSYS: glibc's pthread_create falls back to clone
  option_is,      ///< its first argument is `value` (prctl's option)
  request_is,     ///< its second argument's low 32 bits are `value` (ioctl's request, fcntl's command: the kernel reads 32)
  sets_async,     ///< fcntl F_SETFL with O_ASYNC in its third argument
  sets_limit,     ///< prlimit64 with a new limit (argument 2 not null); reading one is allowed
  flag_in_arg3,   ///< `value` set in its fourth argument (mmap's flags)
};

struct Rule {
  const char* call;
  When when;
  uint64_t value = 0;  ///< option_is, request_is
};

/// Refused in both filters: making processes or programs, signalling or inspecting
/// another process, leaving the process group, changing files by path or descriptor,
/// network endpoints, io_uring (its requests would open files without a system call),
/// and what changes the machine itself.
constexpr Rule kAlways[] = {
    {"fork", When::always}, {"vfork", When::always}, {"execve", When::always}, {"execveat", When::always},
    {"kill", When::other_process}, {"tgkill", When::other_process}, {"tkill", When::always},
    {"rt_sigqueueinfo", When::other_process}, {"rt_tgsigqueueinfo", When::other_process},
    {"pidfd_open", When::always}, {"pidfd_send_signal", When::always}, {"pidfd_getfd", When::always},
    {"ptrace", When::always}, {"process_vm_readv", When::always}, {"process_vm_writev", When::always},
    {"setsid", When::always}, {"setpgid", When::always}, {"unshare", When::always}, {"setns", When::always},
    {"unlink", When::always}, {"unlinkat", When::always}, {"rename", When::always}, {"renameat", When::always},
    {"renameat2", When::always}, {"mkdir", When::always}, {"mkdirat", When::always}, {"rmdir", When::always},
    {"link", When::always}, {"linkat", When::always}, {"symlink", When::always}, {"symlinkat", When::always},
    {"mknod", When::always}, {"mknodat", When::always}, {"truncate", When::always}, {"ftruncate", When::always},
    {"fallocate", When::always}, {"chmod", When::always}, {"fchmod", When::always}, {"fchmodat", When::always},
    {"chown", When::always}, {"fchown", When::always}, {"lchown", When::always}, {"fchownat", When::always},
    {"utime", When::always}, {"utimes", When::always}, {"utimensat", When::always}, {"futimesat", When::always},
    {"setxattr", When::always}, {"lsetxattr", When::always}, {"fsetxattr", When::always},
    {"removexattr", When::always}, {"lremovexattr", When::always}, {"fremovexattr", When::always},
    {"name_to_handle_at", When::always}, {"open_by_handle_at", When::always}, {"creat", When::always},
    {"openat2", When::always}, {"socket", When::always}, {"socketpair", When::always},
    {"io_uring_setup", When::always}, {"io_uring_enter", When::always}, {"io_uring_register", When::always},
    {"mount", When::always}, {"umount2", When::always}, {"pivot_root", When::always}, {"chroot", When::always},
    {"swapon", When::always}, {"swapoff", When::always}, {"reboot", When::always}, {"kexec_load", When::always},
    {"kexec_file_load", When::always}, {"init_module", When::always}, {"finit_module", When::always},
    {"delete_module", When::always}, {"iopl", When::always}, {"ioperm", When::always}, {"bpf", When::always},
    {"acct", When::always}, {"settimeofday", When::always}, {"clock_settime", When::always},
    {"adjtimex", When::always}, {"clock_adjtime", When::always}, {"sethostname", When::always},
    {"setdomainname", When::always}, {"keyctl", When::always}, {"add_key", When::always},
    {"request_key", When::always}, {"quotactl", When::always}, {"syslog", When::always},
    // Outliving kex (PR_SET_PDEATHSIG cleared), raising its limits back, typing into the
    // user's terminal (TIOCSTI, TIOCLINUX), hanging it up, and other processes' IPC.
    {"prctl", When::option_is, PR_SET_PDEATHSIG}, {"setrlimit", When::always}, {"prlimit64", When::sets_limit},
    {"ioctl", When::request_is, TIOCSTI}, {"ioctl", When::request_is, TIOCLINUX}, {"vhangup", When::always},
    {"msgget", When::always}, {"msgsnd", When::always}, {"msgrcv", When::always}, {"msgctl", When::always},
    {"semget", When::always}, {"semop", When::always}, {"semtimedop", When::always}, {"semctl", When::always},
    {"shmget", When::always}, {"shmat", When::always}, {"shmctl", When::always}, {"shmdt", When::always},
    {"ipc", When::always}, {"mq_open", When::always}, {"mq_unlink", When::always}, {"mq_timedsend", When::always},
    {"mq_timedreceive", When::always}, {"mq_notify", When::always}, {"mq_getsetattr", When::always},
    // The mount API, watching the file systems, and taking CPUs from everyone else.
    {"open_tree", When::always}, {"move_mount", When::always}, {"fsopen", When::always}, {"fsconfig", When::always},
    {"fsmount", When::always}, {"fspick", When::always}, {"mount_setattr", When::always},
    {"fanotify_init", When::always}, {"sched_setscheduler", When::always}, {"sched_setparam", When::always},
    {"sched_setattr", When::always}, {"setpriority", When::always}, {"ioprio_set", When::always},
    {"mlock", When::always}, {"mlock2", When::always}, {"mlockall", When::always},  // memory no one can page out
    {"sched_setaffinity", When::not_self},  // kex and other processes keep their CPUs (kex pins its own)
    // A descriptor that signals its owner: with an owner (F_SETOWN, F_SETOWN_EX, FIOSETOWN,
    // SIOCSPGRP) and O_ASYNC, input on it sends kex any signal F_SETSIG names, SIGSTOP or
    // SIGKILL among them, past the kill rule above (fcntl(2)). Perf events signal their
    // owner the same way, and the worker opens its own before the filter.
    {"fcntl", When::request_is, F_SETOWN}, {"fcntl", When::request_is, F_SETOWN_EX},
    {"fcntl", When::request_is, F_SETSIG}, {"fcntl", When::sets_async},
    {"fcntl64", When::request_is, F_SETOWN}, {"fcntl64", When::request_is, F_SETOWN_EX},
    {"fcntl64", When::request_is, F_SETSIG}, {"fcntl64", When::sets_async},
    {"ioctl", When::request_is, FIOSETOWN}, {"ioctl", When::request_is, SIOCSPGRP},
    {"perf_event_open", When::always},
    // Another user or group id (or the capabilities) clears PR_SET_PDEATHSIG (prctl(2)): as
    // root, code that changed one outlived a SIGKILL of kex.
    {"setuid", When::always}, {"setgid", When::always}, {"setreuid", When::always}, {"setregid", When::always},
    {"setresuid", When::always}, {"setresgid", When::always}, {"setfsuid", When::always}, {"setfsgid", When::always},
    {"setgroups", When::always}, {"capset", When::always},
    {"setuid32", When::always}, {"setgid32", When::always}, {"setreuid32", When::always},
    {"setregid32", When::always}, {"setresuid32", When::always}, {"setresgid32", When::always},
    {"setfsuid32", When::always}, {"setfsgid32", When::always}, {"setgroups32", When::always},
    // i386's own names for calls refused above under their x86-64 names (an int 0x80 entry).
    {"truncate64", When::always}, {"ftruncate64", When::always}, {"chown32", When::always},
    {"lchown32", When::always}, {"fchown32", When::always}, {"utimensat_time64", When::always},
    {"umount", When::always}, {"stime", When::always}, {"clock_settime64", When::always},
    {"clock_adjtime64", When::always}, {"nice", When::always},
    // Memory locked through mmap's flags, as mlock would (a second hostile pass).
    {"mmap", When::flag_in_arg3, MAP_LOCKED}, {"mmap2", When::flag_in_arg3, MAP_LOCKED},
    // Newer calls that change files by path, by their names where this libseccomp knows them
    // (every call from kFirstUnlisted on is refused by number besides: see unlisted_program).
    {"fchmodat2", When::always}, {"setxattrat", When::always}, {"removexattrat", When::always},
    {"file_setattr", When::always}, {"open_tree_attr", When::always}, {"lsm_set_self_attr", When::always},
};

/// The first system call number refused whatever its name (cachestat, Linux 6.5): glibc
/// 2.36 makes none from here on, and libseccomp skips names it does not know, so a newer
/// kernel's calls (fchmodat2, setxattrat, file_setattr: files changed by path) went through
/// a name-by-name list (a second hostile pass, on Linux 6.18 with libseccomp 2.5.4).
constexpr uint32_t kFirstUnlisted = 451;

/// The loading filter's own: threads (a constructor may start one), files opened to read.
constexpr Rule kLoading[] = {
    {"clone", When::new_process}, {"clone3", When::no_such_call},
    {"open", When::writing_open1}, {"openat", When::writing_open2},
};

/// The kernels filter's own: no thread, no file opened at all.
constexpr Rule kKernels[] = {
    {"clone", When::always}, {"clone3", When::always}, {"open", When::always}, {"openat", When::always},
};

/// The flag values of an open that writes: each a (mask, value) pair one rule tests.
constexpr std::pair<uint64_t, uint64_t> kWritingFlags[] = {
    {O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR}, {O_ACCMODE, O_ACCMODE}, {O_CREAT, O_CREAT},
    {O_TRUNC, O_TRUNC},    {O_APPEND, O_APPEND}, {__O_TMPFILE, __O_TMPFILE},
};

/// The ioctl requests code may make, all of them reads: a terminal's state (isatty's and
/// tcgetattr's TCGETS and TCGETS2, TIOCGWINSZ, TIOCGPGRP), the bytes waiting (FIONREAD), and
/// close-on-exec (FIOCLEX, FIONCLEX). Any other request (a terminal's modes, its process
/// group or controlling terminal, a file's flags, a freeze) ends the child.
constexpr uint32_t kIoctlAllowed[] = {
    TCGETS, _IOC(_IOC_READ, 'T', 0x2A, 44) /* TCGETS2: struct termios2 is 44 bytes on x86 */,
    TIOCGWINSZ, TIOCGPGRP, FIONREAD, FIOCLEX, FIONCLEX};

/// A classic BPF program of its own for ioctl: libseccomp tests one value per argument in a
/// rule, and a list of allowed requests needs "none of these". For ioctl on x86-64 (16; 514
/// through x32, its bit cleared) and i386 (54), a request (the low 32 bits of argument 1:
/// the kernel reads 32) not in kIoctlAllowed traps; every other call is allowed (the
/// libseccomp filter beside it decides those).
std::vector<sock_filter> ioctl_program() {
  constexpr uint32_t kX32Bit = 0x40000000;
  constexpr uint32_t kArch = offsetof(seccomp_data, arch), kNr = offsetof(seccomp_data, nr);
  constexpr uint32_t kRequest = offsetof(seccomp_data, args) + sizeof(uint64_t);  // args[1], its low half (little-endian)
  const size_t n = std::size(kIoctlAllowed);
  const size_t check = 9, allow = check + 1 + n + 1;  // the trap between them
  // The jump from instruction `at` to `to`.
  const auto off = [](size_t at, size_t to) { return uint8_t(to - at - 1); };
  std::vector<sock_filter> p = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArch),                                // 0
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, off(1, 6)),     // 1
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),                                  // 2
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~kX32Bit),                            // 3
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16, off(4, check), 0),                // 4
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 514, off(5, check), off(5, allow)),   // 5
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, off(6, allow)),   // 6
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),                                  // 7
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 54, 0, off(8, allow)),                // 8
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kRequest),                             // 9: check
  };
  for (size_t k = 0; k < n; ++k)
    p.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kIoctlAllowed[k], off(check + 1 + k, allow), 0));
  p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));   // trap
  p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));  // allow
  return p;
}

/// A classic BPF program refusing every call numbered kFirstUnlisted or above, whatever its
/// name: on x86-64 (the x32 bit cleared) up to 511, where x32's own entry points begin (the
/// libseccomp filter names those), and on i386 all of them. Every other call is allowed.
std::vector<sock_filter> unlisted_program() {
  constexpr uint32_t kX32Bit = 0x40000000;
  constexpr uint32_t kArch = offsetof(seccomp_data, arch), kNr = offsetof(seccomp_data, nr);
  return {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArch),                            // 0
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),         // 1: i386 at 7
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),                              // 2
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~kX32Bit),                        // 3
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 512, 6, 0),                       // 4: x32's own: allow (11)
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kFirstUnlisted, 4, 5),            // 5: trap (10) or allow (11)
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                         // 6 (not reached)
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 3),           // 7
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),                              // 8
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kFirstUnlisted, 0, 1),            // 9
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),                          // 10
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                         // 11
  };
}

/// Installs program `p` (`what` names it in an error) on every thread (after seccomp_load,
/// which has set no_new_privs).
std::string install_program(std::vector<sock_filter> p, const char* what) {
  const sock_fprog prog{uint16_t(p.size()), p.data()};
  const long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (rc < 0) return std::string(what) + ": " + std::strerror(errno);
  if (rc > 0) return std::string(what) + ": thread " + std::to_string(rc) + " could not take it";
  return "";
}

/// Adds `r` to `ctx`; 0 or a negative errno. A call this libseccomp does not know is skipped.
int add_rule(scmp_filter_ctx ctx, const Rule& r) {
  const int nr = seccomp_syscall_resolve_name(r.call);
  if (nr == __NR_SCMP_ERROR) return 0;
  const uint32_t trap = SCMP_ACT_TRAP;
  switch (r.when) {
    case When::always: return seccomp_rule_add(ctx, trap, nr, 0);
    case When::no_such_call: return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
    case When::new_process: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    case When::other_process: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A0(SCMP_CMP_NE, uint64_t(getpid())));
    case When::not_self: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A0(SCMP_CMP_NE, 0));
    case When::option_is: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A0(SCMP_CMP_EQ, r.value));
    case When::request_is: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, r.value));
    case When::sets_async:
      return seccomp_rule_add(ctx, trap, nr, 2, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, F_SETFL),
                              SCMP_A2(SCMP_CMP_MASKED_EQ, O_ASYNC, O_ASYNC));
    case When::sets_limit: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A2(SCMP_CMP_NE, 0));
    case When::flag_in_arg3: return seccomp_rule_add(ctx, trap, nr, 1, SCMP_A3(SCMP_CMP_MASKED_EQ, r.value, r.value));
    case When::writing_open1:
    case When::writing_open2:
      for (const auto& [mask, value] : kWritingFlags) {
        const scmp_arg_cmp cmp = r.when == When::writing_open1 ? SCMP_A1(SCMP_CMP_MASKED_EQ, mask, value)
                                                               : SCMP_A2(SCMP_CMP_MASKED_EQ, mask, value);
        if (const int rc = seccomp_rule_add(ctx, trap, nr, 1, cmp); rc < 0) return rc;
      }
      return 0;
  }
  return -EINVAL;
}

using FilterCtx = std::unique_ptr<void, void (*)(scmp_filter_ctx)>;

/// The filter's context with every rule of `f`; null (and `why`) when one cannot be added.
FilterCtx build_filter(CallFilter f, std::string& why) {
  FilterCtx ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) {
    why = "seccomp_init failed";
    return ctx;
  }
  // The i386 (int 0x80) and x32 entry points get the same rules: a routine cannot go round them.
  for (uint32_t arch : {uint32_t(SCMP_ARCH_X86), uint32_t(SCMP_ARCH_X32)}) {
    const int rc = seccomp_arch_add(ctx.get(), arch);
    if (rc < 0 && rc != -EEXIST) {
      why = std::string("seccomp_arch_add: ") + std::strerror(-rc);
      return FilterCtx(nullptr, seccomp_release);
    }
  }
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1);
  std::vector<Rule> rules(std::begin(kAlways), std::end(kAlways));
  if (f == CallFilter::loading) rules.insert(rules.end(), std::begin(kLoading), std::end(kLoading));
  else rules.insert(rules.end(), std::begin(kKernels), std::end(kKernels));
  for (const Rule& r : rules)
    if (const int rc = add_rule(ctx.get(), r); rc < 0) {
      why = std::string("a rule for ") + r.call + ": " + std::strerror(-rc);
      return FilterCtx(nullptr, seccomp_release);
    }
  return ctx;
}

/// Whether the kernel has seccomp's filter mode: PR_SET_SECCOMP with a null program fails
/// with EFAULT where it does, EINVAL where it does not.
bool kernel_filters() {
  errno = 0;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, nullptr, 0, 0) != 0 && errno == EFAULT;
}

}  // namespace

bool call_filter_available() {
  static const bool available = [] {
    const char* off = std::getenv("KEX_NO_SECCOMP");
    const bool asked_off = off && std::strcmp(off, "1") == 0;
    const bool ok = !asked_off && kernel_filters();
    if (!ok)
      std::fprintf(stderr,
                   "kex: %s: code runs in its processes without a system-call filter; their process group, "
                   "file-size limit, pids cgroup (where one can be made) and timeouts still hold\n",
                   asked_off ? "KEX_NO_SECCOMP=1" : "this kernel has no seccomp filters");
    return ok;
  }();
  return available;
}

std::string install_call_filter(CallFilter f) {
  std::string why;
  const FilterCtx ctx = build_filter(f, why);
  if (!ctx) return why;
  if (const int rc = seccomp_load(ctx.get()); rc < 0) return std::string("seccomp_load: ") + std::strerror(-rc);
  if (std::string e = install_program(ioctl_program(), "the ioctl filter"); !e.empty()) return e;
  return install_program(unlisted_program(), "the filter of newer calls");
}

std::string refused_call_text(uint64_t call) {
  uint32_t arch = uint32_t(call >> 32);
  const int nr = int(uint32_t(call));
  constexpr int kX32Bit = 0x40000000;  // the x32 entry: x86-64's audit arch, this bit in the number
  const bool x32 = arch == AUDIT_ARCH_X86_64 && (nr & kX32Bit);
  if (x32) arch = SCMP_ARCH_X32;
  std::unique_ptr<char, void (*)(void*)> name(seccomp_syscall_resolve_num_arch(arch, nr), std::free);
  if (!name && x32) name.reset(seccomp_syscall_resolve_num_arch(arch, nr & ~kX32Bit));
  std::string s = name ? name.get() : "system call " + std::to_string(nr);
  if (arch == AUDIT_ARCH_I386) s += " (i386)";
  if (x32) s += " (x32)";
  return "made a system call a copy routine has no use for: " + s;
}

}  // namespace kex
