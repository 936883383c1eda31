// Assembling an assembly source for the object-code loader (issue 34): GNU as for a .s,
// gcc (the C preprocessor, then as) for a .S, started with an argument vector (no
// shell), into a temporary object that is removed after it is read.
#pragma once
#include <string>

namespace kex {

/// The relocatable object `source` assembles to: `as --64` (`preprocess` false) or
/// `gcc -c -x assembler-with-cpp` (true), run through posix_spawnp with stdin from
/// /dev/null, into a mkstemp file in $TMPDIR (or /tmp) that is removed before this
/// returns. Throws InputError "SOURCE: as --64 failed (exit status N): STDERR" with the
/// tool's messages escaped and capped to one line, or when the tool cannot be started.
std::string assemble_object(const std::string& source, bool preprocess);

}  // namespace kex
