// Plans of the outside code a config or `--load` names (issue 34): lib/NAME, a shared
// object's symbol called through a slot filled in the processes that run kernels
// (src/run/shared_objects.hpp); asm/NAME, an object's symbol whose bytes kex places in
// its own code arena (src/run/object_code.hpp). The run layer's only entry to loading.
#pragma once
#include <cstdint>
#include <string>

#include "src/model/load_spec.hpp"
#include "src/model/plan.hpp"

namespace kex {

/// The plan of `l` (key lib/NAME or asm/NAME, with /fill:0xNN for a clear writing
/// `fill`): facts source, function, symbol, label, path and the file's SHA-256 (and for
/// asm the pieces loaded). The file is read once per path and symbol in this process;
/// a shared object is opened only in a forked child (probe_shared_object). InputError,
/// one line at `where`: a file that cannot be read, an object or symbol that cannot be
/// opened (dlerror's text escaped), what the object loader refuses, or a NAME given again
/// for other code.
KernelPlan load_plan(const LoadSpec& l, uint8_t fill, const std::string& where);

}  // namespace kex
