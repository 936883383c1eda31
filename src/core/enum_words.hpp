// The words of a closed set, from the set's own table: the values of an enum in a
// fixed order and its to_string. One place for the word lists the command line
// checks (one_of in src/cli/cli.hpp), its messages and its parsers, so a new value cannot leave
// a list stale.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// The word of every value in `all`, in its order, through the enum's to_string
/// (found by argument-dependent lookup next to the enum).
template <class E, size_t N>
std::vector<std::string> enum_words(const std::array<E, N>& all) {
  std::vector<std::string> out;
  out.reserve(N);
  for (E e : all) out.emplace_back(to_string(e));
  return out;
}

/// The value of `all` whose to_string is `word`; nullopt for any other word.
template <class E, size_t N>
std::optional<E> enum_from_word(const std::array<E, N>& all, std::string_view word) {
  for (E e : all)
    if (to_string(e) == word) return e;
  return std::nullopt;
}

/// "a, b, c": the words of `all` joined by `sep`, for a one-line error's "allowed: ...".
template <class E, size_t N>
std::string enum_word_list(const std::array<E, N>& all, std::string_view sep = ", ") {
  std::string out;
  for (E e : all) out += (out.empty() ? "" : std::string(sep)) + std::string(to_string(e));
  return out;
}

}  // namespace kex
