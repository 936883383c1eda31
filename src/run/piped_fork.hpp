// A forked child with a pipe back to kex: what ContainedChild (contain.hpp) holds and
// kex tune's libc children (libc_validate.cpp) exec from.
#pragma once
#include <sys/types.h>

#include <string>

namespace kex {

/// One end of a pipe to a forked child: in the child, pid 0 and the write end; in
/// the parent, the child's pid and the read end (the other end closed on each side).
struct PipedFork {
  pid_t pid = 0;
  int fd = -1;
};

/// Opens a pipe, flushes stdio and forks (every contained child: the sandbox's, the
/// supervisor's workers; the libc children). Throws (throw_os_error) "cannot start WHAT:
/// pipe" or ": fork" when one fails: InputError at a process limit (ulimit -n, -u),
/// std::runtime_error otherwise.
PipedFork fork_with_pipe(const std::string& what);

}  // namespace kex
