// `kex crossovers --validate`: which sizes check a suggested tunable, whether the
// measured change helps, and the report. The measuring is src/run/libc_validate.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/model/paired.hpp"
#include "src/results/crossover.hpp"
#include "src/run/libc_validate.hpp"

namespace kex {

/// Sizes a validation measures inside an undecided crossover (between `below` and `from`).
constexpr int kInterior = 3;

/// Rounds a size needs for a verdict (faster, slower): fewer give no 95% interval.
constexpr uint32_t kMinVerdictRounds = uint32_t(kMinIntervalCount);

/// The child job that checks `t`: memcpy (memset for the rep stosb threshold) at every
/// size whose path the tunable may change: a quarter and half of the last size where the
/// crossover did not hold and that size, kInterior sizes spaced geometrically inside the
/// crossover (no size there was decided, and glibc takes the new path there), its first
/// size, and its last (or the next grid size: twice the first); multiples of 64 bytes,
/// `budget_ms` each.
LibcJob validation_job(const Tunable& t, double budget_ms);

/// Refuses, before any child runs, a job a libc child cannot measure: InputError naming
/// --validate, the tunable, the largest size and the limit it passes (kMaxLibcChildSize,
/// or the address-space limit, ulimit -v, that its two buffers of that size exceed).
void check_validation_job(const LibcJob& job, const Tunable& t);

/// What the rounds say of a tunable.
enum class Gain {
  helps,               ///< faster by more than the margin at some size, measurably slower at none
  no_measurable_gain,  ///< every size decided, none faster by more than the margin
  undecided,           ///< no size decided faster or slower, and some had too few rounds to decide
  hurts,               ///< measurably slower (by more than the margin) at some size
};

/// Judges `v` at `margin`: a size is faster when its tuned/default interval lies below
/// 1 / (1 + margin), slower when it lies above 1 + margin.
Gain judge(const Validation& v, double margin);

/// A second value for a tunable `v` measured slower somewhere, when one value can keep
/// the sizes that were faster and give the slower ones back to glibc's default path:
/// glibc takes the path above the value, so the sizes a value changes lie on one side of
/// it (all at or below it when it raised glibc's threshold, all above when it lowered
/// it). Raised: the new value lies between the largest faster size and the smallest
/// slower one, which must be above it; lowered: between the largest slower size and the
/// smallest faster one (the geometric mean, then glibc's minimum for the non-temporal
/// threshold). nullopt when no size was faster, the faster and slower sizes interleave,
/// the change sizes lie on both sides, `t` is itself a refinement, or nothing moves.
std::optional<Tunable> refined_tunable(const Tunable& t, const Validation& v, double margin);

/// The lines before the tunables' blocks: how the children were run and what the figures are.
std::string format_validation_header(const ValidateOptions& opts, double budget_ms, double margin);

/// One tunable's block: the children's GLIBC_TUNABLES, per size the ratio tuned/default
/// with its 95% interval over rounds, and the verdict ("helps", "no measurable gain",
/// "slower", or "not enough rounds to decide" with the rounds a verdict needs).
std::string format_validation(const Tunable& t, const Validation& v, double margin);

/// The closing line: "validated: GLIBC_TUNABLES=..." with the tunables that help, or
/// "validated: none of the suggestions helped measurably; no advice". `gains` in the order of `tunables`.
std::string format_validated_advice(const std::vector<Tunable>& tunables, const std::vector<Gain>& gains);

}  // namespace kex
