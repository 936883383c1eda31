// The ceilings record as text (src/model/ceilings_section.hpp): one row per cache level.
#pragma once
#include <string>

#include "src/model/context.hpp"

namespace kex {

/// "one core's ceilings (GB/s, bytes counted once; ...)", a row per level (size, read,
/// write, nt write, the fastest probe of each) and the L1d's bytes per core cycle; ""
/// when the run has none. Kernel names from the file pass through terminal_text.
std::string ceilings_text(const RunDoc& run);

}  // namespace kex
