// What code from outside may ask of the kernel (README "Your own implementation", "How
// loaded code is held"): a seccomp filter (Debian's libseccomp) that the children running
// kernels install after their own setup. A copy routine needs no process, program, signal
// to another process, file or network endpoint; a call for one raises SIGSYS, whose
// handler reports the call's number, and the child dies by it.
#pragma once
#include <cstdint>
#include <string>

namespace kex {

/// What a contained child may still do once its filter is installed.
enum class CallFilter {
  /// Opening shared objects (dlopen, their constructors): files may be opened for reading.
  loading,
  /// Running kernels: no file may be opened. Installed over `loading` (filters stack).
  kernels,
};

/// Whether this process can install seccomp filters, checked once: false when the kernel
/// has no seccomp filter mode, or the environment sets KEX_NO_SECCOMP=1 (to test the other
/// limits alone). The first call that finds none says so once on stderr: the process group,
/// the file-size limit, the pids cgroup and the timeouts still hold.
bool call_filter_available();

/// In a contained child: installs `f` on every thread of this process (seccomp with
/// TSYNC), for x86-64 and the i386 and x32 entry points alike, with a second filter that
/// allows only the ioctl requests that read a terminal's state. Returns "" or why it could not.
std::string install_call_filter(CallFilter f);

/// A refused call as SIGSYS reports it (si_arch, si_syscall), packed into 64 bits.
inline uint64_t refused_call(uint32_t arch, int nr) { return (uint64_t(arch) << 32) | uint32_t(nr); }

/// "made a system call a copy routine has no use for: fork" for a refused_call() value
/// (the i386 entry's calls say so: "fork (i386)").
std::string refused_call_text(uint64_t call);

}  // namespace kex
