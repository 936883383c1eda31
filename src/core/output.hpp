// Standard output that is checked: a command whose output is lost (a full disk
// behind `>file`, /dev/full, a closed stdout) fails with one line and status 2
// instead of exiting 0 (docs/DESIGN.md "Command line": nothing is lost silently).
#pragma once
#include <string>
#include <string_view>

namespace kex {

/// Writes `text` to stdout and flushes it. Throws InputError
/// "stdout: write failed (<reason>)" when any of it (or earlier buffered output)
/// could not be written.
void write_stdout(std::string_view text);

/// For main(), once at start: file descriptors 0, 1 and 2 that are closed are
/// opened on /dev/null (1 read-only, so that writes to a closed stdout still fail
/// with EBADF), so that no file kex opens later becomes its stdout or stderr.
void guard_standard_fds();

/// For main(), once at the end: flushes and closes stdout. Returns "" when
/// everything written to it arrived, else the error line
/// "stdout: write failed (<reason>)".
std::string close_stdout();

}  // namespace kex
