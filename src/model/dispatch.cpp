#include "src/model/dispatch.hpp"

#include <algorithm>
#include <optional>

#include "src/core/error.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// Whether `size` (the text before an item's ':', `bound` as parse_bytes read it) is a
/// byte count above kMaxDispatchBound: digits and a unit parse_bytes knows, too large.
bool size_too_large(std::string_view size, std::optional<uint64_t> bound) {
  if (bound) return *bound > kMaxDispatchBound;
  const size_t digits = size.find_first_not_of("0123456789");
  return digits != 0 && parse_bytes("1" + std::string(size.substr(std::min(digits, size.size()))));
}

/// One item "SIZE:NAME" or (last) "NAME": a bound when the text before the first ':'
/// is a byte count, else the whole item is the name.
DispatchEntry parse_item(std::string_view item, bool last, const std::string& where) {
  const std::string quoted = "'" + std::string(item) + "'";
  if (item.empty()) throw InputError(where, "an empty item; allowed: SIZE:NAME,...,NAME");
  const size_t colon = item.find(':');
  const auto bound = colon == std::string_view::npos ? std::nullopt : parse_bytes(item.substr(0, colon));
  if (colon != std::string_view::npos && size_too_large(item.substr(0, colon), bound))
    throw InputError(where, quoted + ": the bound is above the largest, " + std::to_string(kMaxDispatchBound) +
                                " bytes (2^60)");
  if (bound && !last) {
    if (colon + 1 == item.size()) throw InputError(where, quoted + ": no kernel name after the size");
    return {*bound, std::string(item.substr(colon + 1))};
  }
  if (bound) throw InputError(where, quoted + ": the last item is the kernel for every larger size: NAME without SIZE:");
  if (!last)
    throw InputError(where, quoted + ": expected SIZE:NAME (SIZE in bytes or 4K, 64KiB, ...); only the last item "
                                     "is a NAME alone");
  return {kDispatchRest, std::string(item)};
}

}  // namespace

DispatchTable parse_dispatch(std::string_view text, const std::string& where) {
  DispatchTable t;
  std::vector<std::string_view> items;
  for (size_t pos = 0;;) {
    const size_t comma = text.find(',', pos);
    items.push_back(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    DispatchEntry e = parse_item(items[i], i + 1 == items.size(), where);
    if (!t.entries.empty() && e.max_bytes <= t.entries.back().max_bytes)
      throw InputError(where, "'" + std::string(items[i]) + "': the bound " + std::to_string(e.max_bytes) +
                                  " is not above the previous one (" + std::to_string(t.entries.back().max_bytes) +
                                  "); bounds must ascend");
    t.entries.push_back(std::move(e));
  }
  return t;
}

const std::string& DispatchTable::kernel_for(uint64_t bytes) const {
  static const std::string none;
  for (const DispatchEntry& e : entries)
    if (bytes <= e.max_bytes) return e.kernel;
  return none;
}

std::string dispatch_text(const DispatchTable& t) {
  std::string s;
  for (const auto& e : t.entries) {
    if (!s.empty()) s += ',';
    if (e.max_bytes != kDispatchRest) s += std::to_string(e.max_bytes) + ":";
    s += e.kernel;
  }
  return s;
}

}  // namespace kex
