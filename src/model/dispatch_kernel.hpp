// A dispatch kernel: size ranges, each served by one of kex's own kernels, generated as one
// routine with one entry (issue 51's "a dispatch is a kernel"). Its name is
// "dispatch:" and the table as `kex emit --dispatch` reads it (src/model/dispatch.hpp):
// dispatch:64:copy/avx512/unroll:256/small:mask,rep_movsb.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/dispatch.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// The prefix of every dispatch kernel's name.
inline constexpr std::string_view kDispatchPrefix = "dispatch:";

/// The most rows a dispatch kernel may have (each is a compare and a member's code).
inline constexpr size_t kMaxDispatchRows = 16;

/// A dispatch kernel: the table (member names canonical) and each row's spec, in row order.
struct DispatchKernel {
  DispatchTable table;
  std::vector<KernelSpec> members;  ///< members[i] serves table.entries[i]'s sizes
  Op op = Op::copy;
  bool operator==(const DispatchKernel&) const = default;
};

/// Whether `name` starts with "dispatch:" (then it names a dispatch kernel or nothing).
bool is_dispatch_name(std::string_view name);

/// Parses "dispatch:TABLE". Every member is a kex spec name or rep_movsb/rep_stosb (as
/// specs), valid (validate), of one op (copy or clear, a clear's fill 0), without rep:N
/// (the rows are the dispatch); 2..kMaxDispatchRows rows. Errors: std::invalid_argument,
/// one line naming the item and what is allowed (no preset, outside code or dispatch).
DispatchKernel parse_dispatch_kernel(std::string_view name);

/// The canonical name: "dispatch:" + dispatch_text with each member's canonical name
/// (rep-string members as rep_movsb, rep_stosb).
std::string dispatch_kernel_name(const DispatchKernel& d);

/// The table `t` stands for: a one-row table naming a dispatch kernel is that dispatch's
/// rows (what `kex emit --dispatch` writes as its own compare chain); any other as is.
/// Throws std::invalid_argument for a one-row table naming a bad dispatch.
DispatchTable flat_dispatch(const DispatchTable& t);

/// The sizes at the rows' edges a verifier must try: each bound, bound + 1 and bound - 1
/// (the last row has none).
std::vector<uint64_t> dispatch_edges(const DispatchTable& t);

}  // namespace kex
