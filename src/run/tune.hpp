// `kex tune`: a race per size between the candidate kernels of a config, measured in
// paired rounds by run_sweep. Every size starts with all candidates and a few rounds;
// after each stage the candidates shown slower than the size's leader leave, and the
// rest get more rounds, until one is left, the rounds reach their cap or the budget is
// spent. Sizes where the dispatch changes kernel are then refined: the size between
// them races the two sides' contenders, so a threshold is known within a factor of
// `refine_ratio`, not one grid step. libc and rep are never dropped (the reference).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/tune.hpp"
#include "src/run/journal_tune.hpp"
#include "src/run/sweep.hpp"

namespace kex {

/// What to race and how long: what its journal records (the base: op, sizes, margin,
/// rounds, glibc), and the rest.
struct TuneRequest : TuneJournalRequest {
  Config space;                  ///< candidates: its grids' specs of `op` this CPU runs; its axes but sizes: one value each
  /// Streams (distributions' names or paths, `kex list streams`) raced instead of sizes:
  /// the calls of the space's stream axes (its one footprint, seed and calls a pass); the
  /// dispatch is then one row, the fastest kernel on the stream, or with several streams
  /// on their mix (the weighted time per call, src/model/stream_mix.hpp). Empty: race the sizes.
  std::vector<std::string> streams;
  double budget_s = 600;         ///< wall time of the whole tune, verification included
  double reserve_s = 0;          ///< of it, kept for what follows the race (kex tune's libc validation)
  double refine_ratio = 1.19;    ///< refine a switch until its sizes are this close (2^(1/4))
  bool allow_large = false;      ///< race even when the first stage alone is estimated far above the budget
  /// A resumed journal of this tune (its request checked by the caller): its stages are
  /// replayed from its repetitions (nothing measured again), then the race goes on.
  /// The stages and repetitions of a race go to RunOptions::journal as they end.
  const JournalState* replay = nullptr;
};

/// What a tune was estimated to take before it raced, in seconds of wall time.
struct TuneEstimate {
  size_t points = 0, tasks = 0;  ///< of the first stage: every size's candidates and reference; x its rounds
  double prepare_s = 0;          ///< the first stage's JIT and verification of every point
  double measure_s = 0;          ///< the first stage's paired rounds, as kex run --list estimates them
  double total_s = 0;            ///< the whole tune: the first stage or the race's budget, plus the validation's
  double first_s() const { return prepare_s + measure_s; }
};

/// What every stage races beside the candidates and never drops: libc's function and
/// `rep`, and with `glibc` the usable variants of glibc's memcpy (memset) on this machine,
/// so that the dispatch is compared with the best of them at every size.
std::vector<std::string> tune_references(Op op, bool glibc);

/// About how many bytes kex tune's results file takes at least: the first stage's
/// repetitions (every candidate and reference at every size) at about 1.5 KB each as
/// written, plus 1 MiB for the rest; what its output path must have room for before racing.
uint64_t tune_output_bytes(const TuneRequest& req);

/// A finished tune: every point measured (a normal results document: all stages'
/// rounds of each point) and the race's record.
struct TuneRun {
  RunDoc doc;
  TuneRecord tune;
  TuneEstimate estimate;     ///< made before the race (the first stage's, the whole tune's)
  bool interrupted = false;  ///< stopped by a signal: the record covers the stages done
  bool abandoned = false;    ///< a second stop: nothing should be written (as kex run)
};

/// The candidates of `space` for `op`: its specs this CPU runs, each once, in config order;
/// the spec whose code is the `rep` reference's (forward `rep movsb`/`rep stosb`, unroll 1)
/// is left out: the reference races for it (two names of one code split a tune's answers).
std::vector<KernelSpec> tune_candidates(const Config& space, Op op);

/// Runs the race. `opt` gives the protocol (paired rounds; its repetitions are set per
/// stage), the worker CPU, the stop flag and progress; `say` hears one line per stage.
/// A first stop ends the race after the current measurement (interrupted); a second
/// one at once (abandoned too).
/// InputError when the space has no candidate for `op` on this CPU, an axis other than
/// sizes with several values, or (without `allow_large`) a first stage estimated above
/// 1.5x the race's budget (its rounds as kex run --list estimates them, plus building and
/// verifying every point): every size and candidate is verified and measured
/// `first_rounds` times whatever the budget. `say` hears the estimate before the race.
TuneRun run_tune(const TuneRequest& req, RunOptions opt, const std::function<void(const std::string&)>& say);

}  // namespace kex
