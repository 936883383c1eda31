// Reading a whole input file (a config, a workload) the one safe way: a regular file
// only (not /dev/zero, a FIFO or a directory) and at most a given size, so that a wrong
// path ends in one line instead of a read that never ends or exhausts memory.
#pragma once
#include <cstddef>
#include <string>

namespace kex {

/// The bytes of the regular file `path`, at most `max_bytes` of them; `what` names the
/// kind of file asked for ("config", "workload file"). Throws InputError "PATH: cannot
/// read WHAT (ERRNO TEXT)" when it cannot be opened or read, "PATH: not a regular file
/// (a WHAT is needed)" for a device, FIFO or directory, and "PATH: longer than N MiB: a
/// WHAT is at most that" (N = max_bytes in MiB) for a bigger file or one that grows past
/// the cap while it is read.
std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& what);

/// Opens `path` and checks it as read_regular_file does, before anything is read (a FIFO
/// does not block the open): the descriptor (O_CLOEXEC), for the caller to read and close.
/// Throws the same InputErrors for a file that cannot be opened, is not a regular file, or
/// is longer than `max_bytes`.
int open_regular_file(const std::string& path, size_t max_bytes, const std::string& what);

}  // namespace kex
