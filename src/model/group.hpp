// Groups: the points a user compares. Two points are in one group when they do the
// same operation (op, and for clears the fill byte) at the same size under the same
// conditions (layout, cache state, call pattern, data), under kex's own harness: the
// generated kernels, the presets and the libc and `rep` baselines alike. A group is
// measured together in paired rounds and answered with a winner, its ties and a margin.
#pragma once
#include <compare>
#include <cstdint>
#include <optional>
#include <string>

#include "src/model/point.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// What a group's points share: everything but the kernel.
struct GroupKey {
  Op op = Op::copy;
  uint8_t fill = 0;  ///< clears: the byte written (0 for copies)
  Coords at;         ///< every coordinate, size included (harness kex, pass 1)
  bool operator==(const GroupKey&) const = default;
  auto operator<=>(const GroupKey&) const = default;
};

/// The group of a point measured by kex's own harness; nullopt for a seed harness's
/// points (each is its program's single pass, compared with nothing).
std::optional<GroupKey> group_of(Op op, uint8_t fill, const Coords& at);

/// "copy 4096", "clear 65536 dist:64 cold fill:0xaa": the op, the size in bytes, the
/// non-default coordinates as point names spell them, and a fill other than 0.
std::string group_label(const GroupKey& g);

}  // namespace kex
