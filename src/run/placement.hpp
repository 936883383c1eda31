// Where the workers of a multi-threaded point run (`kex run --placement`): spread over
// cores (then SMT siblings), compact (siblings first), or a CPU list given by the user.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/protocol.hpp"

namespace kex {

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
