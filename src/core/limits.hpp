// The process limits a run meets (ulimit -n, -v, -u, -f): an operation that fails
// because of one is the user's to fix, so it is an InputError (one line, exit 2)
// naming the limit and its value, not an internal error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "src/core/error.hpp"

namespace kex {

/// The open files every kex command may need at once: the standard streams, the
/// journal, the output and its temporary, the pipes to its verifying and measuring
/// processes, and gnuplot with its fonts (7 measured for a run with figures; twice that).
inline constexpr size_t kMinOpenFiles = 16;

/// Where `err` (an errno) is a process or system limit: "; the open-file limit
/// (ulimit -n) is 5", "; the address-space limit (ulimit -v) is 1 GiB", "; the
/// process limit (ulimit -u) is 40", "; the file-size limit (ulimit -f) is 4 KiB",
/// "; the system's open-file table is full". "" for any other errno, and for ENOMEM
/// or EAGAIN without a finite limit.
std::string limit_note(int err);

/// "ENOENT (No such file or directory)": an errno's name and its text.
std::string errno_text(int err);

/// True for the errnos that mean a limit or a resource ran out (EMFILE, ENFILE,
/// ENOMEM, EAGAIN, EFBIG, ENOSPC, EDQUOT): the environment's, not kex's, fault.
bool is_limit_error(int err);

/// Throws for a failed system call: InputError("WHAT: REASON" + limit_note) when
/// is_limit_error(err), std::runtime_error("WHAT: REASON") otherwise (a bug: exit 1).
[[noreturn]] void throw_os_error(const std::string& what, int err);

/// Bytes this process may still allocate: the smaller of what the address-space limit
/// (ulimit -v) leaves above its current size and the system's MemAvailable (UINT64_MAX
/// when neither is known).
uint64_t memory_left_bytes();

/// The error for `path` when reading it ran out of memory (std::bad_alloc): "PATH: out of
/// memory reading it; the address-space limit (ulimit -v) is 390.6 MiB", or "...; the
/// machine's memory ran out" without a finite limit.
InputError out_of_memory_reading(const std::string& path);

/// The open-file limit (soft) is below kMinOpenFiles: InputError naming it (a
/// command would fail half-way, e.g. with its verifying process or gnuplot).
void check_open_file_limit();

}  // namespace kex
