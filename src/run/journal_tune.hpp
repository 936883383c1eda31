// What a `kex tune` journal adds to a run's journal (journal.hpp): the tune's request in
// the header (beside its space, the header's one config) and a line at the end of each
// stage. The repetitions are the run journal's own lines, by point name: every stage
// journals the rounds it measured. A resume replays the stages a journal records (their
// rounds, sizes and times; the repetitions each point had at each stage's end), so the
// race takes the decisions it took, then measures on from where it was killed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "src/model/json_fields.hpp"
#include "src/model/paired.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// What a tune was asked that its journal header records (the space is the header's
/// configs[0], the seed its protocol's): the base of TuneRequest (src/run/tune.hpp), so the
/// header takes it whole and a resume's command line must ask for the same.
struct TuneJournalRequest {
  Op op = Op::copy;              ///< copy or clear (kLibcOps)
  std::vector<uint64_t> sizes;   ///< the sizes the race starts on, ascending; empty with a stream
  double margin = kTieResolution;  ///< --margin: a candidate leaves when shown slower than the leader by more
  uint32_t first_rounds = 5;     ///< rounds of the first stage (3 at least: a paired ratio needs them)
  uint32_t max_rounds = 40;      ///< rounds a size gets at most
  bool glibc = false;            ///< glibc's usable variants of the op race too, kept like the reference
  /// --stream-weights: with several streams, one per stream, as given (any scale); empty: equal.
  std::vector<double> weights;
  bool operator==(const TuneJournalRequest&) const = default;
};

/// The field table of the request (journal_header.cpp runs it in both directions).
template <class IO, class R>
void map_tune_request(IO& io, R& r) {
  io.choice("op", r.op, parse_libc_op, [](Op v) { return to_string(v); }, "copy, clear");
  io.wholes("sizes", r.sizes, 100000, uint64_t(1), UINT64_MAX);
  io.real("margin", r.margin, 0, 1);
  io.whole("first_rounds", r.first_rounds, 1u, 100000u);
  io.whole("max_rounds", r.max_rounds, 1u, 100000u);
  io.flag("glibc", r.glibc);
  if (io.has("weights", !r.weights.empty())) io.reals("weights", r.weights, 64, 0, 1e300);
}

/// A stage the tune finished, as its journal line records it.
struct TuneStageMark {
  uint32_t stage = 0, rounds = 0;
  std::vector<uint64_t> sizes;   ///< the sizes it raced (0: a stream's race)
  bool refine = false;           ///< a stage that refined a switch
  bool compose = false;          ///< a stream's composition step (not replayed: a resume composes anew)
  double seconds = 0;            ///< its wall time
  double used_s = 0;             ///< the tune's time used when it ended
  /// When read: the repetitions each point had in the journal at this line.
  std::map<std::string, size_t> reps_before;
};

nlohmann::json to_json(const TuneStageMark& m);
/// Reads a mark written by to_json: InputError naming `where` and the JSON path for a
/// missing, unknown, mistyped or out-of-range field (stages and rounds 1..100000, at
/// most 100000 sizes, times 0..a year).
TuneStageMark tune_stage_from(const nlohmann::json& j, const std::string& where);

}  // namespace kex
