// llvm-mca's prediction for a generated kernel's main loop (docs/methodology.md "A model
// of the core"): the loop as `kex show --format s` marks it, handed to llvm-mca in a
// temporary file (argument vector, no shell; output capped), with -mcpu from the CPU's
// family and model (mca_cpu, src/model/mca.hpp). llvm-mca is optional: without it the
// prediction says so, and nothing fails.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/mca.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// The llvm-mca kex runs: $KEX_LLVM_MCA when set, else the first `llvm-mca` on PATH.
struct McaTool {
  std::string path;     ///< "" when not found
  int llvm_major = 0;   ///< from `llvm-mca --version`
  std::string missing;  ///< one line when path is "": "llvm-mca not found on PATH (Debian package llvm)"
};

/// Probes once per process.
const McaTool& mca_tool();

/// llvm-mca's figures for one kernel's main loop, or why there are none.
struct McaPrediction {
  std::string mcpu;              ///< the model used; "" when none
  std::string note;              ///< the nearest model named, or a caveat ("" when none)
  std::string why;               ///< "" when predicted; else one line (no llvm-mca, no loop, its error)
  McaSummary summary;            ///< when predicted
  uint64_t bytes_per_iteration = 0;  ///< bytes the loop moves per iteration (the spec's unroll)
};

/// The GNU as source of `s` with its main loop marked (what `kex show --format s` prints
/// for the code); "" when `s` has no marked loop (the string class: its `rep` is the loop).
std::string marked_loop_source(const KernelSpec& s);

/// Runs llvm-mca (-iterations=100) on `s`'s main loop for the CPU `vendor`/`family`/`model`.
/// Never throws for a missing or failing llvm-mca: `why` says it.
McaPrediction predict_loop(const KernelSpec& s, const std::string& vendor, int family, int model);

/// llvm-mca's figures for code kex did not write (`code`: a function up to its first ret,
/// as the caller cut it), the whole of it one block: its instructions' throughput as if
/// every path ran once, not a loop iteration (bytes_per_iteration stays 0). `symbol`
/// names the block ([A-Za-z0-9_]). Never throws for a missing or failing llvm-mca.
McaPrediction predict_code(const std::vector<uint8_t>& code, const std::string& symbol, const std::string& vendor,
                           int family, int model);

}  // namespace kex
