// CPU feature gating: a spec this CPU cannot run is skipped, never executed.
#include "generators/emit.hpp"

namespace kex {

std::string cpu_unsupported_reason(const KernelSpec& s) {
  const std::string missing = missing_features(spec_needs(s));
  return missing.empty() ? std::string() : "this CPU lacks " + missing;
}

}  // namespace kex
