// KernelSpec: one point of kex's parameter space (docs/DESIGN.md "The parameter space")
// and its canonical name, e.g. "copy/sse/unroll:128/scratch:4/pf:nta@256/nt/fwd".
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/cpu_features.hpp"

namespace kex {

/// Kernel ABI (SysV): dst in rdi, src in rsi (ignored by clears), byte count in rdx.
/// A read stores one 8-byte result at dst[0..8) whatever the byte count: read_fold(src, bytes).
using KernelFn = void (*)(void* dst, const void* src, size_t bytes);

/// copy: dst = src; clear: dst = fill; read: loads src only and stores read_fold at dst.
enum class Op { copy, clear, read };

/// What each op does, for writers and plans: one row per Op, in enum order.
struct OpInfo {
  Op op;
  const char* name;   ///< the word in names, configs and results
  const char* libc;   ///< its libc baseline ("memcpy", "memset"), or "" when none
  const char* rep;    ///< its rep-string baseline ("rep movsb", "rep stosb"), or ""
  const char* done;   ///< what happened to each byte counted ("copied", "cleared", "read")
  bool reads_src;     ///< the kernel takes a source buffer
};
const OpInfo& op_info(Op op);
/// "copy, clear, read": the ops in table order, `sep` between them (for messages).
std::string op_names(std::string_view sep = ", ");
/// The ops the C library has a call for (memcpy, memset): what --op of kex tune and the
/// libc child take.
inline constexpr std::array kLibcOps{Op::copy, Op::clear};
/// The op of kLibcOps named `s` ("copy", "clear"); nullopt for any other text, "read" too.
std::optional<Op> parse_libc_op(std::string_view s);

/// The bytes a read kernel stores at dst: 8, whatever its byte count.
inline constexpr uint64_t kReadResultBytes = 8;

/// The result a read kernel stores at dst[0..8): the XOR of all n source bytes in the
/// low byte of a little-endian 64-bit zero (0 when n is 0). Every byte counts once
/// whatever its position, so a loop may load the bytes in any order and width.
uint64_t read_fold(const uint8_t* src, uint64_t n);
/// The register classes; `string` stays last (generators/classes.cpp checks its table against it).
enum class RegClass { gpr, mmx, x87, sse, avx, avx512, string };
/// The values of RegClass: the classes' table (reg_classes()) and the emitters' have a row each.
inline constexpr size_t kRegClassCount = 7;
static_assert(kRegClassCount == size_t(RegClass::string) + 1, "kRegClassCount: one per RegClass value");
enum class Prefetch { none, nta, t0, t1, t2, w, load };
enum class Store { temporal, nontemporal };
enum class Direction { forward, backward };
enum class Align { aligned, unaligned };
/// How a kernel moves the bytes its loops leave at the buffer's edges: `bytes`, one
/// byte at a time (the tail below the class width, the head that aligns dst);
/// `overlap`, one unaligned class-width move that overlaps bytes already moved (as
/// glibc's memcpy/memset do), and single bytes only below one width in all.
enum class Edges { bytes, overlap };
/// How a kernel moves a call of fewer bytes than one class width in all (the small-size
/// strategies of docs/DESIGN.md "Streams and the call path"), name token `small:WORD`:
/// - `bytes` (the default): as its edges do, single bytes;
/// - `overlap`: two moves of the largest power of two at most n that overlap in the middle
///   (1; 2..3; 4..7; 8..15 with GPRs; 16..31 with xmm, 32..63 with ymm registers; a clear:
///   GPR stores of its fill), both loaded before either is stored, as glibc's and musl's
///   memcpy do; the size classes found by a compare chain from the top;
/// - `mask`: one AVX-512BW masked load and store of the low n bytes (a k-mask of n ones,
///   `vmovdqu8` with masking; masked-out bytes never fault), no branch per size; needs
///   avx512bw and avx512vl;
/// - `rep`: `rep movsb` / `rep stosb` of n bytes (not memmove-safe, as the loops are not);
/// - `table`: overlap's moves, the size class found by one indirect jump (bsr of n picks a
///   block of fixed length) instead of a compare chain.
/// Reads and the string class take `bytes` only.
enum class Small { bytes, overlap, mask, rep, table };
/// The values of Small, the name table's rows (src/model/spec.cpp).
inline constexpr size_t kSmallCount = 5;
static_assert(kSmallCount == size_t(Small::table) + 1, "kSmallCount: one per Small value");

/// Block prefetch (AMD "Using Block Prefetch", Manfred Spraul's no_prefetch): before
/// copying each block of `bytes`, touch one dword per 64-byte line in `order`.
struct BlockPrefetch {
  uint32_t bytes = 0;                        ///< 0 = off; else a multiple of 64 and of unroll
  Direction order = Direction::backward;     ///< order of the touch pass within the block
  bool operator==(const BlockPrefetch&) const = default;
};

/// The largest `rep:N` threshold: 1 GiB.
inline constexpr uint32_t kMaxRepAbove = uint32_t(1) << 30;

/// The prefetch distance's range: -kMaxPfDistance..kMaxPfDistance bytes (1 MiB either way).
inline constexpr int32_t kMaxPfDistance = 1 << 20;
/// The prefetch interval's range: a multiple of 8 bytes in kMinPfEvery..kMaxPfEvery.
inline constexpr uint32_t kMinPfEvery = 8;
inline constexpr uint32_t kMaxPfEvery = 8192;

/// Every axis of a generated copy or clear loop. Defaults give a valid spec for
/// the class; `validate()` says whether a spec can be emitted. A read keeps a second
/// register beside each of its `scratch` ones (an accumulator), so it takes at most half
/// of the class's max_scratch; it has no store kind, no overlap edges and no block prefetch.
struct KernelSpec {
  Op op = Op::copy;
  RegClass regs = RegClass::sse;
  uint32_t unroll = 64;        ///< bytes per loop iteration; for `string`, the element size 1|2|4|8
  uint32_t scratch = 4;        ///< registers loaded before they are stored (x87: stack slots)
  Prefetch prefetch = Prefetch::none;
  int32_t pf_distance = 0;     ///< bytes ahead of the current src (copy) or dst (clear); may be negative
  uint32_t pf_every = 64;      ///< one prefetch per this many bytes of each iteration (kMinPfEvery..kMaxPfEvery)
  Store store = Store::temporal;
  Direction direction = Direction::forward;
  Align align = Align::unaligned;
  Edges edges = Edges::bytes;
  Small small = Small::bytes;
  /// Calls of this many bytes or more go to `rep movsb` / `rep stosb` instead of the loop
  /// (name token `rep:N`; 0: none): with a small strategy, one routine that dispatches the
  /// small, middle and large sizes, as glibc's erms variants do above their threshold.
  uint32_t rep_above = 0;
  BlockPrefetch block;
  uint8_t fill = 0;            ///< clear only: the byte written

  bool operator==(const KernelSpec&) const = default;
};

/// One register class: the only list of classes. Parsing, validation, defaults,
/// `kex list`, the CPU gate and the schema test iterate over reg_classes(); the
/// emitter of each class is the row of the same enum in generators/classes.cpp.
struct RegClassInfo {
  RegClass cls;
  const char* name;          ///< the word in configs, on the CLI and in names
  uint32_t width;            ///< bytes per register move (string: 1, the unroll is the element size)
  uint32_t max_scratch;      ///< registers usable for data
  bool has_nt;               ///< has a non-temporal store
  uint32_t default_unroll;   ///< bytes per iteration when a name leaves unroll out
  uint32_t default_scratch;  ///< registers in flight when a name leaves scratch out
  FeatureSet needs;          ///< CPU features any kernel of the class needs
  FeatureSet nt_needs;       ///< extra features of its non-temporal store
  const char* instructions;  ///< what it emits, for `kex list`
};

/// One prefetch kind (DESIGN.md parameter space): its name and the CPU features it needs.
struct PrefetchInfo {
  Prefetch kind;
  const char* name;
  FeatureSet needs;
};
const std::vector<PrefetchInfo>& prefetch_kinds();

/// "gpr, mmx, x87, sse, avx, avx512, string": the allowed class names, for messages
/// (`sep` between them: " | " as kex list and the README's name diagram write them).
std::string reg_class_names(std::string_view sep = ", ");

/// "none|nta|t0|t1|t2|w|load": the prefetch kinds in table order, `sep` between them.
std::string prefetch_names(std::string_view sep = "|");

/// "bytes, overlap, mask, rep, table": the small-size strategies in enum order, `sep` between them.
std::string small_names(std::string_view sep = ", ");

const RegClassInfo& reg_class_info(RegClass c);
const std::vector<RegClassInfo>& reg_classes();

// Enum <-> text, using the names of the canonical form ("copy", "sse", "nta", ...).
std::string_view to_string(Op);
std::string_view to_string(RegClass);
std::string_view to_string(Prefetch);
std::string_view to_string(Store);
std::string_view to_string(Direction);
std::string_view to_string(Align);
std::string_view to_string(Edges);
std::string_view to_string(Small);
std::optional<Op> parse_op(std::string_view);
std::optional<RegClass> parse_reg_class(std::string_view);
std::optional<Prefetch> parse_prefetch(std::string_view);
std::optional<Store> parse_store(std::string_view);
std::optional<Direction> parse_direction(std::string_view);
std::optional<Align> parse_align(std::string_view);
std::optional<Edges> parse_edges(std::string_view);
std::optional<Small> parse_small(std::string_view);

/// A spec with every unset axis at the class default (RegClassInfo default_unroll, default_scratch).
KernelSpec default_spec(Op op, RegClass regs);

/// rep movsb (copy) or rep stosb (clear) as kex generates the rep_movsb/rep_stosb baselines:
/// the string class at unroll 1 (one byte an element).
KernelSpec rep_string_spec(Op op);

/// The default scratch count of the class, shrunk to the registers one iteration
/// of s.unroll uses (so copy/sse/unroll:16 gets scratch 1).
uint32_t fit_scratch(const KernelSpec& s);

/// Canonical name: op/regs, then every axis that differs from default_spec(op, regs),
/// in a fixed order. parse_spec_name(spec_name(s)) == s for every valid s.
std::string spec_name(const KernelSpec&);

/// Parses a canonical (or any-order) name; an axis left out takes its class default
/// (scratch: fit_scratch). Errors: std::invalid_argument whose what() names the bad
/// token as typed and what is allowed (range, repeated axis, missing distance).
KernelSpec parse_spec_name(std::string_view name);

/// Why `s` cannot be generated (empty string when it can). Checks the axes
/// against each other and the class table; not the CPU (see cpu_supports).
std::string validate(const KernelSpec& s);

/// Required alignment of dst and src for a spec (1 when any address works).
uint32_t required_alignment(const KernelSpec& s);

/// The CPU features a spec needs (class, non-temporal store, prefetch kind).
FeatureSet spec_needs(const KernelSpec& s);

}  // namespace kex
