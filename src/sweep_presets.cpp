// Presets in kex-harness sweeps.
#include "cli.hpp"
#include "results_build.hpp"

namespace kex {

void append_preset_kernels(const Config& c, std::vector<KernelEntry>&) {
  if (!c.presets.empty()) throw UserError(c.source + ": /presets: presets are not built into this kex yet");
}

}  // namespace kex
