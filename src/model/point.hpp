// A point of a sweep: one kernel at one set of coordinates (size, layout, cache,
// call pattern, data, harness), and its canonical name. Every coordinate is an axis
// of the config and part of the point's identity (docs/DESIGN.md "The parameter space").
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

enum class CacheMode { warm, cold };
std::string_view to_string(CacheMode);
std::optional<CacheMode> parse_cache_mode(std::string_view);
/// Every cache mode in enum order (enum_words gives "warm", "cold").
inline constexpr std::array kCacheModes{CacheMode::warm, CacheMode::cold};

/// Who times the point: kex's own adaptive protocol, or a seed program's single
/// pass (docs/seed-kernels.md §1: Arjan van de Ven's fast.c v1.6, Mark Hahn's athlon.c,
/// Benjamin LaHaise's xmm64.c: fast.c's passes on a page-aligned buffer, its own banner;
/// Satoshi Asami's mem_cp: 4 MB of copies per size timed with gettimeofday, §7).
enum class Harness { kex, fastc, hahn, xmm64, mem_cp };
std::string_view to_string(Harness);
/// "kex" | "fastc" | "hahn" | "xmm64" | "mem_cp" (also "fast.c", "athlon.c", "xmm64.c",
/// "mem_cp.c"); nullopt otherwise.
std::optional<Harness> parse_harness(std::string_view);
/// Every harness in enum order, for word lists (enum_words: to_string's names, no aliases).
inline constexpr std::array kHarnesses{Harness::kex, Harness::fastc, Harness::hahn, Harness::xmm64, Harness::mem_cp};

/// Where src and dst lie. Offsets are bytes past a 2 MiB-aligned start; with a
/// distance, dst = src + distance in one mapping (dst_offset is then unused and 0).
struct Layout {
  uint64_t src_offset = 0;
  uint64_t dst_offset = 0;
  std::optional<int64_t> distance;  ///< dst - src; may be negative and may overlap the source
  bool huge_pages = true;           ///< madvise(MADV_HUGEPAGE) on the buffers
  bool operator==(const Layout&) const = default;
  auto operator<=>(const Layout&) const = default;
};

/// A stream's calls per pass by default: enough that the branch predictor cannot learn the
/// pass and time it as if every size were known. On the Zen 5 VM glibc's memcpy took 2.9 ns a
/// call on Memcpy_Fleet when 4,096 calls repeated, 9.6 ns at 16,384, 12.0 at 65,536 and 12.4 at
/// 262,144 (rep movsb 4.9, 5.0, 5.3, 6.2: no branches to learn); the 24-byte records of 65,536
/// calls take 1.5 MiB, loaded in order.
inline constexpr uint32_t kDefaultStreamCalls = 65536;

/// Every coordinate of a point except the kernel. Defaults are the values a
/// canonical name leaves out.
struct Coords {
  uint64_t size = 0;                ///< bytes copied or cleared per operation
  Layout layout;
  CacheMode cache = CacheMode::warm;
  uint64_t chunk = 0;               ///< 0: one call over the extent; else consecutive calls of chunk bytes
  std::optional<uint8_t> prefill;   ///< destination written with this byte (by stores) before each sample
  bool consume = false;             ///< the destination is read back after each call, inside the timing
  uint32_t threads = 1;             ///< workers doing the operation at once, each on its own CPU and buffers
  Harness harness = Harness::kex;
  uint32_t pass = 1;                ///< seed tables: the nth run of the same kernel in one table
  /// A stream of calls instead of one size repeated (docs/DESIGN.md "A stream is an axis"):
  /// the distribution its sizes are drawn from ("" = none), the bytes of each region its
  /// offsets walk (src's and dst's), its seed and its calls per pass (src/model/stream.hpp).
  /// An operation is then one pass, and `size` the bytes of the pass.
  std::string stream;
  uint64_t footprint = 0;
  uint64_t stream_seed = 1;
  uint32_t stream_calls = kDefaultStreamCalls;
  bool operator==(const Coords&) const = default;
  auto operator<=>(const Coords&) const = default;
};

/// One point: the kernel's key (a spec name, a preset id or a baseline name) and its coordinates.
struct Point {
  std::string kernel;
  Coords at;
  bool operator==(const Point&) const = default;
};

/// Canonical name: the kernel key, the size in bytes, then every coordinate that
/// differs from its default, in this order (the token table, src/model/point_tokens.hpp):
///   stream:NAME  footprint:N  seed:N  calls:N  src:N  dst:N  dist:N (signed)  nohuge
///   chunk:N  prefill:0xNN  consume  cold  threads:N  harness:fastc|hahn|xmm64  pass:N
/// e.g. "copy/avx512/unroll:256/scratch:4/t/fwd/4096/dist:1048591/cold". The
/// kernel part never has a token of digits alone, so the size token ends it.
std::string point_name(const Point& p);

/// Inverse of point_name: parse_point_name(point_name(p)) == p. Throws
/// std::invalid_argument naming the bad token and what is allowed (no size token,
/// an unknown or repeated coordinate, a number out of range, tokens out of order).
Point parse_point_name(std::string_view name);

/// Bytes one timed operation moves over all its workers: size × threads (each worker
/// copies or clears `size` bytes of its own buffers). Bandwidth is computed from these.
inline uint64_t moved_bytes(const Coords& c) { return c.size * c.threads; }

/// The calls of a stream's pass a point may ask for: 1..kMaxStreamCalls.
constexpr uint32_t kMaxStreamCalls = 1u << 20;

/// The bytes src's and dst's regions must each hold for a point: its size, or a stream's footprint.
inline uint64_t region_bytes(const Coords& c) { return c.stream.empty() ? c.size : c.footprint; }

/// Calls one timed operation makes: a stream's pass (stream_calls, at least 1), else 1.
/// A point's time per call is its operation's time over this.
inline uint32_t calls_per_operation(const Coords& c) { return c.stream.empty() ? 1u : std::max<uint32_t>(c.stream_calls, 1); }

/// The largest `threads` a point may ask for (a config's or a name's).
constexpr uint32_t kMaxThreads = 1024;

}  // namespace kex
