// The names nearest a name that matched none (an archive member typed wrong): by edit
// distance, for a one-line error that suggests what was meant.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two
/// neighbouring bytes, one each (the optimal string alignment distance).
size_t edit_distance(std::string_view a, std::string_view b);

/// At most `most` of `names` nearest `word`, nearest first (then by name): a name's
/// distance is its edit distance, or one more than its stem's (the part before the last
/// '.'), so "memcpy" finds "memcpy.lo". Only names within a quarter of the word's length
/// (at least 1, at most 3 edits) are near; none is an empty list.
std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& names, size_t most = 3);

}  // namespace kex
