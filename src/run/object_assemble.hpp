// Assembling an assembly source for the object-code loader (issue 34): GNU as for a .s,
// gcc (the C preprocessor, then as) for a .S, started with an argument vector (no
// shell), into a folder of its own in $TMPDIR that is removed on every way out.
#pragma once
#include <chrono>
#include <string>

namespace kex {

/// The relocatable object `source` assembles to: `as --64` (`preprocess` false) or
/// `gcc -c -x assembler-with-cpp` (true), forked and run with execvpe (SIGKILL when kex
/// dies) with stdin from /dev/null and stderr through a pipe, into a mkdtemp folder in $TMPDIR (or /tmp; also the
/// tool's TMPDIR, for gcc's temporaries) that is removed before this returns or throws.
/// The tool may write 64 MiB per file (RLIMIT_FSIZE, or less under ulimit -f) and no core.
/// Throws InputError "SOURCE: as --64 failed (exit status N): STDERR" with the tool's
/// messages escaped and capped to one line, "SOURCE: the object as --64 writes is larger
/// than 64 MiB, ...", or when the tool cannot be started. The tool runs in a process group
/// of its own: past `bound` (30 s; a test gives less) the group is killed and "SOURCE: as
/// --64 did not finish within 30 s: killed ..." thrown. SIGINT, SIGTERM or SIGHUP meanwhile
/// kill the group, remove the folder, then take their usual effect (see StopsNoted).
std::string assemble_object(const std::string& source, bool preprocess,
                            std::chrono::milliseconds bound = std::chrono::seconds(30));

}  // namespace kex
