// `kex compare` of two files with explain sections: per kernel and group both explained,
// which effects each run calls (src/model/explain.hpp's call_of at each run's resolution)
// and which call the other run contradicts.
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

/// How two runs' calls of one effect relate.
enum class CallAgreement {
  both,          ///< both call it, the same way
  contradicted,  ///< one calls the kernel faster, the other the neighbour
  a_only,        ///< A calls it; B does not (no effect, unresolved or not measured)
  b_only,
  neither,       ///< neither calls it
};

/// One neighbour's effect in both runs.
struct EffectPair {
  std::string kernel, group;  ///< the explain point both runs have
  std::string change;         ///< "store t -> nt"
  std::string call_a, call_b; ///< each run's verdict as effect_text words: "t is faster", "no effect", ...
  double ratio_a = 0, ratio_b = 0;
  CallAgreement agreement = CallAgreement::neither;
};

/// The effects of the points (kernel and group) both sections hold, matched by neighbour
/// name, in A's order. Empty when either run has no explain section.
std::vector<EffectPair> compare_effects(const RunDoc& a, const RunDoc& b);

/// The pairs as text: a heading per point, a line per effect either run calls ("store t ->
/// nt: A t is faster (4.03x), B t is faster (3.98x): both"), then "explain: N effects called
/// by both, M contradicted, K by one run only". "" when there is nothing to compare. Names
/// from the files pass through terminal_text.
std::string format_effect_comparison(const std::vector<EffectPair>& pairs);

}  // namespace kex
