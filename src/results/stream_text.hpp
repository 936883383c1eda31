// The streams' table (docs/DESIGN.md "Streams"): per stream group, every competitor ranked
// by its time per call on the stream, with its ratio to the fastest and to libc in the
// same rounds, the stream's facts and the timed loop's own cost per call.
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/paired.hpp"

namespace kex {

/// Whether group `g` is a stream's (its points draw their calls from a distribution).
bool is_stream_group(const GroupAnswer& g);

/// The record of the stream `at` names in `run`'s context (null when the file has none).
const StreamRecord* stream_of(const RunDoc& run, const Coords& at);

/// "copy on Memcpy_Fleet (footprint 512 KiB, ...)": a block per stream group of `answers`,
/// a row per member, fastest first: rank, kernel (escaped), ns per call with its interval,
/// time over the fastest's [interval] ("tie" within the tie set), time over libc's, GB/s;
/// then the loop's own cost per call. "" when no group is a stream's.
std::string stream_table(const RunDoc& run, const std::vector<GroupAnswer>& answers);

/// What the fixed sizes measured beside a stream predict of each member of its group (the
/// times at those sizes weighed by the share of the stream's calls each stands for,
/// StreamRecord::fixed_weights), per member in the group's order: the predicted ns per call,
/// 0 where a member lacks a fixed size.
std::vector<double> fixed_size_prediction(const RunDoc& run, const GroupAnswer& g);

/// The variant ifunc picked for `op`'s libc function in the run ("" when unknown).
std::string pick_of(const RunDoc& run, Op op);

/// The fixed-size point of kernel `kernel` at `size` and `threads` with every other
/// coordinate at its default (warm, the default layout, one call), or null.
const Result* fixed_point(const RunDoc& run, const std::string& kernel, uint64_t size, uint32_t threads);

/// One line per stream group for the answer (names as the file has them: the caller escapes): the fastest, its time per call, and libc,
/// ifunc's pick and glibc's fastest variant against it with their intervals.
std::vector<std::string> stream_answer_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers);

}  // namespace kex
