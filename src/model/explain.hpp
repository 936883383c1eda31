// The effects of `kex explain`: from a run of kernels and their one-coordinate neighbours
// (src/model/ablation.hpp) measured in paired rounds, each neighbour's time ratio to the
// kernel with its 95% interval over rounds (paired_ratio, src/model/paired.hpp), and
// what the interval allows to call at the summary's tie resolution.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "src/model/ablation.hpp"
#include "src/model/context.hpp"
#include "src/model/explain_section.hpp"

namespace kex {

/// What an effect's interval shows at resolution `res` (a fraction, 0.01 = 1%).
enum class EffectCall {
  refused,     ///< never measured (`refused` says why)
  unmeasured,  ///< fewer than 3 shared rounds: nothing can be said
  kernel_faster,     ///< the neighbour is slower by more than res: low > 1 + res
  neighbour_faster,  ///< the neighbour is faster by more than res: high < 1 / (1 + res)
  none,        ///< the interval lies within [1 / (1 + res), 1 + res]: no effect at this resolution
  unresolved,  ///< none of these: the interval reaches past the tie zone on one side only, or both
};
EffectCall call_of(const ExplainEffect& e, double res);

/// One kernel and its neighbours, as `kex explain` raced them; or a competitor that is
/// not one of kex's specs (`outside`: rep_movsb, memcpy, glibc/SYMBOL, lib/NAME, asm/NAME,
/// a preset id), raced without neighbours: it has no coordinates to change.
struct ExplainTarget {
  KernelSpec kernel;                  ///< kex's spec (when `outside` is "")
  std::vector<Neighbour> neighbours;  ///< none for an outside competitor
  std::string outside;                ///< the outside competitor's name; "" for a spec
  Op op = Op::copy;                   ///< the op raced (the spec's, or the competitor's)
  /// The name results carry: `outside`, or the spec's name.
  std::string name() const { return outside.empty() ? spec_name(kernel) : outside; }
};

/// The line said of an outside competitor in place of effects: it has no coordinates,
/// and for rep_movsb / rep_stosb the spec that is the same code in kex's terms
/// ("copy/string/unroll:1 is rep movsb in kex's terms: kex explain copy/string/unroll:1
/// changes its coordinates"). Names as they are: the caller escapes them.
std::string no_coordinates_text(const std::string& kernel);

/// The section of `run`: for each target and each group its kernel was measured in (in
/// the order of the results), the effect of every neighbour in that group, the refused
/// ones with their reason and those whose point did not end measured with its status.
/// Effects are ordered: called ones (kernel or neighbour faster) by |log ratio|, largest
/// first, then unresolved ones (likewise), then "no effect", then the unmeasured and
/// refused ones.
ExplainSection explain_section(const RunDoc& run, const std::vector<ExplainTarget>& targets, double resolution,
                               uint32_t rounds);

/// One effect as a line, e.g. "store nt -> t: 1.38x the time [1.35-1.41]: nt is faster",
/// "prefetch nta@256 -> none: no effect (within ±1%)", "regs avx512 -> avx: not run: this
/// CPU lacks ...". Names and reasons as they are: the caller escapes them for its medium.
std::string effect_text(const ExplainEffect& e, double res);

}  // namespace kex
