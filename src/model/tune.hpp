// `kex tune`'s answer: a race per size between candidate kernels, measured in paired
// rounds (src/model/paired.hpp), and the size-dispatch table it hands over. The race
// history says which candidate left when and on what evidence, so a reader can check
// every decision. Pure data and decisions here; the race is run by src/run/tune.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/dispatch.hpp"
#include "src/model/paired.hpp"
#include "src/model/spec.hpp"
#include "src/model/tunables.hpp"

namespace kex {

/// Where the dispatch changes kernel: the last measured size `from` still covers and
/// the first it does not (the threshold lies in (low, high]), and the row boundary
/// the table uses (their geometric mean).
struct DispatchSwitch {
  std::string from, to;
  uint64_t low = 0, high = 0;
  uint64_t boundary = 0;
};

/// What one size's race says: its members by rank (fastest first, as answer_groups
/// ranks them) and the ones tied with the leader.
struct TuneVerdict {
  uint64_t size = 0;
  std::vector<std::string> ranked;  ///< kernels, fastest first
  std::vector<std::string> ties;    ///< the leader's tie set (the leader first)
  size_t rounds = 0;                ///< rounds of the size's group
  std::string dispatched;           ///< the dispatch table's kernel at this size
  PairedRatio vs_leader;            ///< its time / the leader's (1: it is the leader)
  PairedRatio vs_libc, vs_rep;      ///< its time / memcpy's (memset's) and rep movsb's (stosb's); rounds 0: none
  std::string glibc;                ///< glibc's fastest variant at this size (kex tune --glibc); "" none raced
  PairedRatio vs_glibc;             ///< its time / that variant's; rounds 0: none
};

/// The dispatch that switches kernel as rarely as the tie sets allow: from the
/// smallest size, the tied kernel that stays tied over the most following sizes
/// (ties of length broken by rank at the first size; a kernel without alignment
/// preconditions before any `aligned` spec, so a misaligned caller is not sent to libc
/// where an equally fast kernel takes any address), then the same from where it stops. `sizes` ascending, each with a non-empty tie set. The switches go to `switches`.
DispatchTable choose_dispatch(const std::vector<TuneVerdict>& sizes, std::vector<DispatchSwitch>* switches);

/// A candidate that left a size's race: slower than the leader beyond the margin.
struct RaceDrop {
  uint64_t size = 0;
  std::string kernel, leader;
  std::string why;        ///< "": slower than the leader (vs_leader); else why it was not measured
  uint32_t stage = 0;
  PairedRatio vs_leader;  ///< its time / the leader's over the rounds they share
};

/// One stage of the race: every size still racing measured up to `rounds` rounds.
struct RaceStage {
  uint32_t stage = 0;
  uint32_t rounds = 0;       ///< rounds each group has after the stage
  size_t sizes = 0;          ///< sizes racing in it
  size_t candidates = 0;     ///< points measured in it (every size's members)
  double seconds = 0;        ///< wall time of the stage
  bool refine = false;       ///< a stage of sizes added between two that dispatch differently
  bool compose = false;      ///< a stream's composition step: its choice and neighbours raced afresh
};

/// A tunable the dispatch suggests and what libc measured with it (rounds 0: not measured).
struct TunableCheck {
  Tunable tunable;
  Validation measured;
};

/// The end of a tune: the glibc tunables its dispatch suggests (where it switches to
/// rep movsb / rep stosb, or to non-temporal stores up to the largest size), each
/// measured with libc in child processes with and without it in paired rounds.
struct TuneValidation {
  uint32_t rounds = 0;        ///< rounds asked per tunable (fewer run when the budget or a stop ended it)
  double budget_ms = 0;       ///< sampling time per size and child
  double margin = 0;          ///< a change counts when the interval lies beyond this fraction
  double seconds = 0;         ///< wall time of the validation
  std::string not_measured;   ///< why a suggestion was not measured ("--no-validate", "stopped", ...); "": each was
  std::vector<TunableCheck> checks;  ///< in the order suggested; empty: nothing suggested
};

/// One stream of a mix (kex tune --stream A,B,...): how the mix's choice does on it alone,
/// in the same paired rounds as the race.
struct StreamVerdict {
  std::string stream;               ///< its points' stream name
  double weight = 0;                ///< its share of the mix's time per call (the weights sum to 1)
  double ns_per_call = 0;           ///< the mix's choice here: median over rounds of its time per call
  std::string leader;               ///< the fastest kernel still racing on this stream alone
  PairedRatio vs_leader;            ///< the choice's time / the leader's (1: it leads here too)
  PairedRatio vs_libc, vs_rep;      ///< its time / memcpy's (memset's) and rep movsb's (stosb's) here
  std::string glibc;                ///< glibc's fastest variant here (kex tune --glibc); "" none raced
  PairedRatio vs_glibc;             ///< its time / that variant's; rounds 0: none
};

/// The `tune` section of a results file.
struct TuneRecord {
  Op op = Op::copy;
  /// A tune of one stream (kex tune --stream): the distribution as given and its footprint
  /// ("L2" or bytes); each verdict's size is then the stream's pass, in bytes. "": by size.
  /// A mix of several streams names them joined by ',' (the verdict is then the mix's).
  std::string stream, footprint;
  std::vector<StreamVerdict> streams;   ///< a mix's streams in the order given; empty for one stream or sizes
  double budget_s = 0, used_s = 0;
  double margin = 0;                    ///< a candidate leaves when slower than the leader by more
  std::vector<std::string> kept;        ///< candidates never dropped (libc and rep: the reference)
  std::vector<RaceStage> stages;
  std::vector<RaceDrop> drops;
  std::vector<TuneVerdict> verdicts;    ///< per size raced, ascending
  DispatchTable dispatch;
  std::vector<DispatchSwitch> switches;
  std::optional<TuneValidation> validation;  ///< absent in the files of a kex before it
};

/// The size's verdict from its group's answer (`run`: the document the answer ranks).
TuneVerdict verdict_of(const GroupAnswer& g, const RunDoc& run);

/// The members of a group shown slower than its leader by more than `margin` (their
/// ratio's interval lies above 1 + margin), except the names in `kept`.
std::vector<RaceDrop> race_drops(const GroupAnswer& g, const RunDoc& run, double margin,
                                 const std::vector<std::string>& kept, uint32_t stage);

}  // namespace kex
