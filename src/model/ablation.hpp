// The neighbours of a generated kernel for `kex explain`: the specs that differ from it
// in one coordinate (store kind, prefetch, unroll, scratch, direction, alignment, edges,
// register class, string element, a clear's fill byte), each labelled with the coordinate and the
// change. Racing a kernel against them says which of its choices its speed comes from
// (docs/commands.md "kex explain").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/model/spec.hpp"

namespace kex {

/// One neighbour: `spec` is the kernel with `coordinate` changed from `from` to `to`
/// (values as point names spell them: "nt", "nta@256", "128", "avx").
struct Neighbour {
  KernelSpec spec;
  std::string coordinate;  ///< "store", "prefetch", "prefetch distance", "prefetch instruction", "unroll", ...
  std::string from, to;
  /// Why it is never run ("" when it can be): validate()'s reason, or the CPU features
  /// it needs that this CPU lacks (set by the caller, see mark_unrunnable).
  std::string refused;
};

/// The one-coordinate neighbours of `k`, in a fixed order, each once and none equal to
/// `k`. Coordinates that do not apply to the class are left out (a `string` kernel has
/// only its element size, movsb <-> movsq, its direction and a clear's fill byte; the fill
/// neighbour is its own group, raced in the kernel's rounds by RunOptions::pair_fills). A
/// neighbour validate() refuses stays in the list with the reason in `refused`. Halving
/// an unroll below the registers its scratch count needs also lowers scratch to what
/// fits (as the name's default does: fit_scratch), and `to` says so ("32 (scratch 2)");
/// so does a narrower class with fewer registers ("gpr (scratch 8)").
/// Not a check of `k` itself: the caller validates it.
std::vector<Neighbour> neighbours(const KernelSpec& k);

/// Fills `refused` of every neighbour that validate() allows but that needs CPU features
/// `missing(spec_needs(spec))` names ("" = none missing): "this CPU lacks avx512f".
void mark_unrunnable(std::vector<Neighbour>& ns, std::string (*missing)(FeatureSet));

/// The next narrower register class of `c` (avx512 -> avx -> sse -> gpr; mmx and x87 ->
/// gpr); nullopt for gpr and string.
std::optional<RegClass> narrower_class(RegClass c);

}  // namespace kex
