// The measuring protocol of a run, one type for every place that holds it: what a
// config asks for (ProtocolRequest), what the command line and a journal's header
// say (Protocol, through one field table: src/model/protocol_fields.hpp), and what
// the results record as context.protocol (ProtocolRecord, src/model/context.hpp).
// Why the protocol is what it is: docs/methodology.md §6.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

/// How a round measures each of its members (paired rounds: the members of a group
/// measured back to back in one short window, so that a comparison between them sees
/// one state of the machine; docs/methodology.md "Paired rounds").
struct RoundPolicy {
  uint32_t samples = 8;     ///< timed samples of each member per round (fewer, at least 1, for long operations)
  uint32_t block = 2;       ///< consecutive samples of a member per visit: the members take turns every block samples
  double sample_us = 50;    ///< target length of a sample: calls per sample from the fastest warm-up call
  double member_us = 1000;  ///< a member's samples in one round last about this long at most (then fewer samples)
  double settle_us = 10;    ///< untimed operations of a member before each visit (at least one, none when
                            ///< one operation takes over 1 ms: nothing of the last member's state is left)
  bool operator==(const RoundPolicy&) const = default;
};

/// How a run re-measures what the sentinel flags.
struct SentinelPolicy {
  bool enabled = true;
  uint32_t every = 8;          ///< a reading after every this many tasks
  double threshold = 0.15;     ///< relative slowdown that flags a window
  uint32_t window = 9;         ///< readings in the running baseline
  double budget = 0.25;        ///< re-measured tasks at most this fraction of the run's tasks
  uint64_t mem_bytes = 16 << 20;
  bool operator==(const SentinelPolicy&) const = default;
};

enum class PlacementMode { spread, compact, list };

/// Where the workers of a multi-threaded point run (`kex run --placement`): a mode,
/// and for `list` the CPUs in worker order.
struct PlacementRequest {
  PlacementMode mode = PlacementMode::spread;
  std::vector<int> cpus;  ///< list: worker k on cpus[k]
  bool operator==(const PlacementRequest&) const = default;
};

/// "spread", "compact" or "list".
const char* to_string(PlacementMode);
/// The mode to_string names; nullopt for any other text.
std::optional<PlacementMode> parse_placement_mode(std::string_view s);

/// Parses --placement: "spread", "compact" or a CPU list ("0,2-3", in worker order as
/// written; each CPU once). InputError naming `where`, the value and what is allowed.
PlacementRequest parse_placement(const std::string& text, const std::string& where);

/// The request as --placement spells it: "spread", "compact", or the CPUs in worker
/// order ("3,1,2"): parse_placement(placement_text(r)) == r.
std::string placement_text(const PlacementRequest& r);

/// The run-wide measuring protocol.
struct Protocol {
  uint32_t repetitions = 1;       ///< each point measured this many times (paired: rounds of its group)
  /// The points a user compares (a group: same op, fill, size and conditions, baselines
  /// included) measured together in short rounds, each round every member back to back;
  /// false: each repetition of a point alone, adaptively (the `separate` protocol).
  bool paired = true;
  RoundPolicy round;              ///< how a round measures each member
  /// Tasks each measuring worker does before a fresh one (new buffer mappings after a
  /// spacer of 0..15 huge pages) takes over: the run samples several physical layouts,
  /// which a process keeps for its whole life. 0: one worker for the whole run.
  uint32_t tasks_per_worker = 0;
  bool shuffle = true;            ///< repetitions (rounds) in a random order over the whole sweep
  uint64_t seed = 1;              ///< of the order
  SentinelPolicy sentinel;
  unsigned task_timeout_s = 60;   ///< a repetition taking longer kills the worker (the point fails)
  int cpu = -1;                   ///< the CPU the worker is pinned to
  /// Points with threads > 1: worker k's CPU (thread_cpus[0] == cpu), as many as the most
  /// threads a point asks for; empty when every point has one thread. Chosen by the run,
  /// not asked for: no file holds it.
  std::vector<int> thread_cpus;
  PlacementRequest placement;     ///< how thread_cpus are chosen
  uint64_t first_order = 0;       ///< order number of this session's first task (a resumed run goes on
                                  ///< after the journal's, so orders stay unique across sessions); no file holds it
  std::vector<std::string> counters;  ///< event counters per repetition (open_counters names); none: off
  bool operator==(const Protocol&) const = default;
};

/// What one config asks of the protocol: the knobs its "protocol" object (and its
/// top-level "repetitions") sets, checked when the config is read; the others are left
/// to the command line and the built-in defaults. The keys and ranges are those of the
/// journal header's protocol (one field table, src/model/protocol_fields.hpp).
class ProtocolRequest {
 public:
  /// Reads the request of config `j` (a JSON object) from `source`. InputError
  /// "<source>: /protocol/<key>: <value>: <what is allowed>" for an unknown, mistyped or
  /// out-of-range knob, and for "repetitions" given both at the top level and in "protocol".
  static ProtocolRequest read(const nlohmann::json& j, const std::string& source);
  /// Sets on `p` every knob this request sets, and no other.
  void apply(Protocol& p) const;
  /// Whether it sets the knob of that key ("seed", "counters": map_protocol's keys).
  /// std::logic_error for a key map_protocol does not have (a caller's typo, never input).
  bool sets(std::string_view key) const;
  /// The knobs it sets, as the config wrote them (an object).
  const nlohmann::json& knobs() const { return knobs_; }

 private:
  nlohmann::json knobs_ = nlohmann::json::object();
};

}  // namespace kex
