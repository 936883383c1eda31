// Assembling an assembly source for the object-code loader (issue 34): GNU as for a .s,
// gcc (the C preprocessor, then as) for a .S, started with an argument vector (no
// shell), into a temporary object that is removed after it is read.
#pragma once
#include <chrono>
#include <string>

namespace kex {

/// The relocatable object `source` assembles to: `as --64` (`preprocess` false) or
/// `gcc -c -x assembler-with-cpp` (true), run through posix_spawnp with stdin from
/// /dev/null, into a mkstemp file in $TMPDIR (or /tmp) that is removed before this
/// returns. Throws InputError "SOURCE: as --64 failed (exit status N): STDERR" with the
/// tool's messages escaped and capped to one line, or when the tool cannot be started.
/// The tool runs in a process group of its own: past `bound` (30 s; a test gives less)
/// the group is killed and "SOURCE: as --64 did not finish within 30 s: killed ..." thrown.
std::string assemble_object(const std::string& source, bool preprocess,
                            std::chrono::milliseconds bound = std::chrono::seconds(30));

}  // namespace kex
