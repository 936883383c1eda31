// kex tune and libc: the glibc tunables a tune's dispatch suggests (the crossovers' rule,
// suggested(PathWins), over the sizes the dispatch sends to each path) and their
// validation, measured as `kex crossovers --validate` measures (src/run/libc_validate.hpp).
#pragma once
#include <string>
#include <vector>

#include "src/model/tune.hpp"
#include "src/run/libc_validate.hpp"

namespace kex {

/// The tunables `t`'s dispatch suggests, from its verdicts (the sizes raced, ascending,
/// each with the kernel the dispatch gives it): for copies x86_non_temporal_threshold
/// where the sizes from some size up to the largest go to non-temporal loops (memcpy's:
/// glibc 2.36's memset has no non-temporal path); for copies
/// x86_rep_movsb_threshold, for clears x86_rep_stosb_threshold, at the widest run of
/// sizes that go to rep (rep_movsb / rep_stosb, or a forward string loop of bytes).
/// Empty when the dispatch takes neither path.
std::vector<Tunable> tune_suggestions(const TuneRecord& t);

/// How a tune validates: rounds, sampling time, the margin a change must pass.
struct TuneValidateOptions {
  ValidateOptions run;       ///< rounds, CPU, seed, stop flag of the children
  double budget_ms = 20;     ///< sampling time per size and child
  double margin = 0.02;      ///< a change counts beyond this fraction
  double seconds = 0;        ///< the time left for all of them (> 0)
  std::string skip;          ///< not "": measure none, this is why ("--no-validate", "stopped")
};

/// Measures each of `tunables` in turn: libc in child processes without and with it, in
/// paired rounds, at the sizes around its switch (validation_job). The time left is
/// shared among the tunables not yet measured (each gets 3 rounds at least). A stop
/// ends it after the current child; a child that fails ends it too (its message in
/// not_measured: the race is kept). Tunables not measured have 0 rounds.
TuneValidation validate_suggestions(const std::vector<Tunable>& tunables, const TuneValidateOptions& opts);

}  // namespace kex
