#include "src/model/group.hpp"

namespace kex {

std::optional<GroupKey> group_of(Op op, uint8_t fill, const Coords& at) {
  if (at.harness != Harness::kex) return std::nullopt;
  GroupKey g;
  g.op = op;
  g.fill = op == Op::clear ? fill : 0;
  g.at = at;
  g.at.pass = 1;
  return g;
}

std::string group_label(const GroupKey& g) {
  // The point name of a kernel "k" at these coordinates: "k/SIZE[/tokens]".
  const std::string n = point_name({"k", g.at});
  std::string s = std::string(to_string(g.op)) + " " + n.substr(2);
  if (g.fill) {
    static const char* hex = "0123456789abcdef";
    s += std::string(" fill:0x") + hex[g.fill >> 4] + hex[g.fill & 15];
  }
  for (char& c : s)
    if (c == '/') c = ' ';
  return s;
}

}  // namespace kex
