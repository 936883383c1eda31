// A size dispatch table: which kernel serves which sizes of one operation. `kex emit
// --dispatch` writes a kex_memcpy/kex_memset from one (docs/commands.md "kex emit"); a
// tuner hands its winners over in the same form.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// One row: sizes n <= max_bytes (and above the previous row's bound) go to `kernel`,
/// a kernel name (spec name, preset id or baseline name, not checked here).
struct DispatchEntry {
  uint64_t max_bytes = 0;  ///< inclusive upper bound in bytes; kDispatchRest on the last row
  std::string kernel;
  bool operator==(const DispatchEntry&) const = default;
};

/// The bound of the last row: every larger size.
inline constexpr uint64_t kDispatchRest = std::numeric_limits<uint64_t>::max();

/// The largest bound of any other row (2^60 bytes, 1 EiB), in --dispatch and in a tune
/// file's dispatch alike.
inline constexpr uint64_t kMaxDispatchBound = uint64_t(1) << 60;

/// Rows in ascending order of max_bytes (strictly), the last one with kDispatchRest.
/// A table of one row sends every size to one kernel.
struct DispatchTable {
  std::vector<DispatchEntry> entries;
  bool operator==(const DispatchTable&) const = default;
  /// The kernel for a call of `bytes` ("" when the table is empty).
  const std::string& kernel_for(uint64_t bytes) const;
};

/// Parses "SIZE:NAME,SIZE:NAME,...,NAME": SIZE in bytes or binary units (256, 4K,
/// 64KiB; parse_bytes), NAME a kernel name (it may hold ':' and '/'; not ','); the
/// bounds ascending and at most kMaxDispatchBound, the last item a name without bound. Throws InputError naming
/// `where` (e.g. "--dispatch"), the item and what is allowed.
DispatchTable parse_dispatch(std::string_view text, const std::string& where);

/// The text parse_dispatch reads back (bounds in bytes): "256:rep_movsb,memcpy".
std::string dispatch_text(const DispatchTable& t);

}  // namespace kex
