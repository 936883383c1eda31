// Where the workers of a multi-threaded point run (`kex run --placement`): spread over
// cores (then SMT siblings), compact (siblings first), or a CPU list given by the user.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

enum class PlacementMode { spread, compact, list };

/// What the user asked for: a mode, and for `list` the CPUs in worker order.
struct PlacementRequest {
  PlacementMode mode = PlacementMode::spread;
  std::vector<int> cpus;  ///< list: worker k on cpus[k]
  bool operator==(const PlacementRequest&) const = default;
};

/// "spread", "compact" or "list".
const char* to_string(PlacementMode);

/// Parses --placement: "spread", "compact" or a CPU list ("0,2-3", in worker order as
/// written; each CPU once). InputError naming `where`, the value and what is allowed.
PlacementRequest parse_placement(const std::string& text, const std::string& where);

/// The request as --placement spells it: "spread", "compact", or the CPUs in worker
/// order ("3,1,2"): parse_placement(placement_text(r)) == r.
std::string placement_text(const PlacementRequest& r);

/// Orders `cpus` (with their places) for `mode` starting at `first` (the measuring
/// thread's CPU, which must be among them): spread takes one CPU per core, alternating
/// last-level-cache domains, before any SMT sibling; compact fills a core, then its
/// domain, then the next. Pure: tests give synthetic machines.
std::vector<ThreadPlace> order_places(PlacementMode mode, const std::vector<ThreadPlace>& cpus, int first);

/// The places of `threads` workers: worker 0 on `first` (the run's measuring CPU; for a
/// list, the list's first CPU, which the caller pins to), the others as the request says
/// over `allowed` (the affinity mask as the process started). InputError when more
/// threads are asked for than the mask (or the list) allows, naming the mask; or when a
/// listed CPU is not in the mask.
std::vector<ThreadPlace> place_threads(const PlacementRequest& request, uint32_t threads, int first,
                                       const std::vector<int>& allowed);

}  // namespace kex
