// The forms of a config's values (src/model/json_fields.hpp: read(json, at) and write(v)):
// integers and byte sizes in a range, words of a closed set with their aliases, flags and
// texts, each naming "<file>: <JSON path>: <value>: <what is allowed>" in its error. The
// config's field tables (config_fields.hpp) use them for both directions. Model layer only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "src/model/spec.hpp"

namespace kex::config_forms {

/// Throws the config's InputError: "<at>: <value as shown>: <allowed>" (at: "<file>: <JSON path>").
[[noreturn]] void fail_at(const std::string& at, const nlohmann::json& x, const std::string& allowed);

/// An integer in lo..hi ("expected an integer in lo..hi", "out of range (allowed lo..hi)").
template <class T = uint64_t>
struct Whole {
  uint64_t lo, hi;
  T read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(T v) const { return v; }
};
uint64_t whole_at(const nlohmann::json& x, const std::string& at, uint64_t lo, uint64_t hi);
template <class T>
T Whole<T>::read(const nlohmann::json& x, const std::string& at) const {
  return static_cast<T>(whole_at(x, at, lo, hi));
}

/// A signed integer in lo..hi.
struct Signed {
  int64_t lo, hi;
  int64_t read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(int64_t v) const { return v; }
};

/// A number in lo..hi.
struct Real {
  double lo, hi;
  double read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(double v) const { return v; }
};

/// A byte count in lo..hi: an integer or a text such as "4KiB" (binary units).
struct ByteSize {
  uint64_t lo, hi;
  uint64_t read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(uint64_t v) const { return v; }
};

/// true or false.
struct Flag {
  bool read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(bool v) const { return v; }
};

/// Any string.
struct Text {
  std::string read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const std::string& v) const { return v; }
};

/// A word of a closed set: `parse` takes its names and aliases (nullopt: "allowed:
/// <allowed>"); written as to_string(v).
template <class E>
struct Word {
  std::optional<E> (*parse)(std::string_view);
  std::string allowed;
  E read(const nlohmann::json& x, const std::string& at) const {
    const std::optional<E> e = parse(Text{}.read(x, at));
    if (!e) fail_at(at, x, "allowed: " + allowed);
    return *e;
  }
  nlohmann::json write(E v) const { return std::string(to_string(v)); }
};

/// A store kind, "t", "nt" or its name; a direction, "fwd", "bwd" or its name.
std::optional<Store> store_alias(std::string_view t);
std::optional<Direction> dir_alias(std::string_view t);

/// A prefetch and its distance, as a grid's "prefetch" spells them: "none" or "KIND@D"
/// (D bytes ahead, -2^20..2^20, the grammar of kernel names).
struct PrefetchAt {
  Prefetch kind = Prefetch::none;
  int32_t distance = 0;
  bool operator==(const PrefetchAt&) const = default;
};
struct PrefetchForm {
  PrefetchAt read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const PrefetchAt& p) const;
};

/// A grid's "block": 0 (no block prefetch) or {"bytes": 64 B..1 MiB, "order": forward|backward}.
struct BlockForm {
  BlockPrefetch read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const BlockPrefetch& b) const;
};

/// A byte value 0..255 written before each sample (a "prefill" other than "none").
struct PrefillByte {
  uint8_t read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(uint8_t v) const { return v; }
};

/// A "threads" value: a count 1..kMaxThreads, or "all" (the affinity mask's CPUs, read
/// as their count).
struct Threads {
  uint32_t read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(uint32_t v) const { return v; }
};

/// A "streams" element: a shipped distribution's name (configs/streams/) or a file's path, a
/// string of 1..4096 bytes without control characters (what it names is read when the run
/// draws its streams, src/run/streams.hpp).
struct StreamSource {
  std::string read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const std::string& v) const { return v; }
};

/// A "footprint" element: "L1", "L2", "LLC" (a share of that cache level here) or a byte size 64..hi.
struct FootprintForm {
  uint64_t hi;
  Footprint read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const Footprint& f) const;
};

/// A "sizes" element: a byte size 1..hi, or a range {"from", "to" and one of "factor",
/// "step", "steps_per_octave"} read as its sizes (at most 10000); written as a size.
struct SizesForm {
  uint64_t hi;
  std::vector<uint64_t> read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(uint64_t v) const { return v; }
};

/// "baselines": true (every one of baseline_names()), false (none) or a list of names (each
/// one of baseline_names(), an implementation set such as glibc-copy, or glibc/SYMBOL: which
/// exist is known only when the plans are made, src/run/plans.hpp); written false or a list.
struct BaselinesForm {
  std::vector<std::string> read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const std::vector<std::string>& v) const;
};

/// "segments": true, false, or an object of the segment table's options (config_fields::map_segments).
struct SegmentsForm {
  SegmentsRequest read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const SegmentsRequest& s) const;
};

/// "kernels": a non-empty list of kernel grids, each expanded over the top level's axes
/// `top` (src/model/config_grid.cpp); written as one grid per spec, every spec key given.
struct KernelsForm {
  const Axes& top;
  std::vector<Grid> read(const nlohmann::json& x, const std::string& at) const;
  nlohmann::json write(const std::vector<Grid>& grids) const;
  /// The reader's checks on typed grids (FieldChecker): each spec valid, its keys and its
  /// grid's axes in range, sizes or streams given, the buffers within memory; each spec at
  /// "<at>/<index>" as write() lists it. InputError as for a file.
  void check(const std::vector<Grid>& grids, const std::string& at) const;
};

}  // namespace kex::config_forms
