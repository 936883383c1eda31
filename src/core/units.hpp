// Byte sizes as users write them ("4096", "4KiB", "64MiB", "1GiB", "4K") and as kex prints them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kex {

/// The x86-64 base page: the seed programs' region, the aliasing period, the unit of mappings.
inline constexpr uint32_t kPageBytes = 4096;

/// Parses a non-negative byte count: digits with an optional binary unit B, K/KiB, M/MiB,
/// G/GiB, T/TiB (case-insensitive, spaces allowed around). "KB"/"MB"/"GB" are refused
/// as ambiguous. nullopt when malformed or > 2^62.
std::optional<uint64_t> parse_bytes(std::string_view text);

/// "256 B", "4 KiB", "1.5 MiB", "64 MiB": the largest binary unit giving a number >= 1.
std::string format_bytes(uint64_t bytes);

/// Short form for names and plot labels: "256", "4K", "64M" (exact multiples only, else bytes).
std::string short_bytes(uint64_t bytes);

}  // namespace kex
