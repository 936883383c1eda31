// The streams of a run, drawn before anything is built or timed (docs/DESIGN.md "A stream
// is an axis"): each config's stream requests (Axes::streams x footprints) resolved on this
// machine — the distribution loaded (shipped, or a user's file), the footprint in bytes,
// the calls drawn — into stream points' coordinates and the calls the worker times.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/distribution.hpp"
#include "src/model/stream.hpp"
#include "src/run/machine.hpp"

namespace kex {

/// One stream as the run drew it.
struct DrawnStream {
  Distribution distribution;
  DistributionFacts facts;
  Stream stream;
  std::string path;       ///< the file it was read from ("" for a shipped one)
  Footprint footprint;    ///< as asked (a level or bytes)
  /// The fixed sizes measured beside it and the share of its calls each stands for
  /// (StreamRecord::fixed_weights, fixed_size_weights).
  std::vector<std::pair<uint64_t, double>> fixed_weights;
};

/// The fixed sizes a stream's prediction is measured at: its most frequent sizes (the six
/// most drawn, 0 left out) and every power of 4 from 4 up to its largest call (the few large
/// calls carry most of the bytes), all at most `cap`.
std::vector<uint64_t> prediction_sizes(const Stream& s, uint64_t cap);

/// The share of `s`'s calls nearest each of `sizes` (ascending) in log2(size + 1).
std::vector<std::pair<uint64_t, double>> fixed_size_weights(const Stream& s, const std::vector<uint64_t>& sizes);

/// The drawn streams by their points' coordinates (stream, footprint, seed, calls).
class StreamSet {
 public:
  /// The stream of a point at `at`; null for a point without one.
  std::shared_ptr<const DrawnStream> find(const Coords& at) const;
  /// Adds `s` as the stream of points at `at` (once per coordinates).
  void add(const Coords& at, std::shared_ptr<const DrawnStream> s);
  bool empty() const { return by_key_.empty(); }
  /// Every stream, in coordinate order.
  std::vector<std::pair<Coords, std::shared_ptr<const DrawnStream>>> all() const;

 private:
  using Key = std::tuple<std::string, uint64_t, uint64_t, uint32_t>;
  static Key key_of(const Coords& at);
  std::map<Key, std::pair<Coords, std::shared_ptr<const DrawnStream>>> by_key_;
};

/// The bytes of each region (src's, dst's) of `f` here: fleetbench's share of the level split
/// between a copy's two regions, 3/8 of the L1d for L1, a quarter of the L2 for L2 and of the
/// LLC for LLC (together 3/4 of the L1d, half of the L2 or LLC: clear of the level below, and of
/// conflict misses in its own), else the bytes given. InputError naming `where` when the
/// level's size is unknown.
uint64_t footprint_bytes(const Footprint& f, const CacheSizes& caches, const std::string& where);

/// The largest distribution file a stream reads (16 MiB, as a workload file).
inline constexpr size_t kMaxStreamFileBytes = size_t(16) << 20;

/// Loads the distribution `source`: a shipped name (configs/streams/), else a file's path
/// (read_regular_file: a regular file of at most kMaxStreamFileBytes), named by its file
/// name without folder and ".csv". InputError naming `where`: no such name or file, a file
/// that is not a distribution, a file name that cannot name a stream.
Distribution load_distribution(const std::string& source, const std::string& where);

/// What results record of stream `s` drawn at `at` (context.streams).
StreamRecord stream_record(const Coords& at, const DrawnStream& s);

/// Draws every stream `configs` ask for (the top level's and each grid's) on a machine with
/// `caches`, sets each Axes::stream_coords, and returns the streams. InputError (one line
/// naming the config and key) for a source load_distribution refuses, a footprint of
/// fewer than 64 bytes or of an unknown cache size, and two files of one name.
StreamSet resolve_streams(std::vector<Config>& configs, const CacheSizes& caches);

}  // namespace kex
