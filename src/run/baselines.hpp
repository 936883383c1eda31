// The baselines every run measures unless turned off: libc memcpy/memset, rep movsb/stosb.
#pragma once
#include <optional>
#include <string>

#include "generators/emit.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// A baseline is either a libc call (fn set) or a generated rep-string spec.
struct Baseline {
  std::string name;                ///< memcpy | memset | rep_movsb | rep_stosb
  Op op;
  KernelFn libc = nullptr;         ///< memcpy/memset wrappers with the kernel ABI
  std::optional<KernelSpec> spec;  ///< rep_movsb/rep_stosb
};

/// nullopt for an unknown name.
std::optional<Baseline> find_baseline(const std::string& name);

}  // namespace kex
