// Splitting a name or option text at a separator.
#pragma once
#include <string_view>
#include <vector>

namespace kex {

/// The pieces of `text` between `sep`s, empty ones kept ("a//b/" gives a, "", b, ""),
/// as views into `text`.
inline std::vector<std::string_view> split_view(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos <= text.size();) {
    size_t e = text.find(sep, pos);
    if (e == std::string_view::npos) e = text.size();
    out.push_back(text.substr(pos, e - pos));
    pos = e + 1;
  }
  return out;
}

}  // namespace kex
