// The reader parse_config's parts share (src/model/config*.cpp): a walk of the config
// JSON that names the file and JSON path in every error, and the axes and grid readers.
// Internal to the model layer.
#pragma once
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/units.hpp"
#include "src/model/config.hpp"
#include "src/model/json_fields.hpp"

namespace kex::config_detail {

using nlohmann::json;

/// Walks the config with the current JSON path, so every error names file and path.
struct Reader {
  const std::string& source;

  [[noreturn]] void fail(const std::string& path, const json& value, const std::string& allowed) const {
    throw InputError(source + ": " + (path.empty() ? "/" : path) + ": " + shown_value(value) + ": " + allowed);
  }

  void keys(const json& obj, const std::string& path, const std::set<std::string>& allowed) const {
    if (!obj.is_object()) fail(path, obj, "expected an object");
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw InputError(source + ": " + path + "/" + it.key() + ": unknown key (allowed: " + list + ")");
      }
  }

  uint64_t uint(const json& v, const std::string& path, uint64_t lo, uint64_t hi) const {
    if (!v.is_number_integer() || (v.is_number_integer() && v.get<int64_t>() < 0 && !v.is_number_unsigned()))
      fail(path, v, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    uint64_t x = v.get<uint64_t>();
    if (x < lo || x > hi) fail(path, v, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
  }

  int64_t sint(const json& v, const std::string& path, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) fail(path, v, "expected an integer");
    int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) fail(path, v, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
  }

  double number(const json& v, const std::string& path, double lo, double hi) const {
    if (!v.is_number()) fail(path, v, "expected a number");
    double x = v.get<double>();
    if (!(x >= lo && x <= hi)) {
      std::ostringstream o;
      o << "out of range (allowed " << lo << ".." << hi << ")";
      fail(path, v, o.str());
    }
    return x;
  }

  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, v, "expected true or false");
    return v.get<bool>();
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, v, "expected a string");
    return v.get<std::string>();
  }

  uint64_t bytes(const json& v, const std::string& path, uint64_t lo, uint64_t hi) const {
    uint64_t x;
    if (v.is_string()) {
      auto b = parse_bytes(v.get<std::string>());
      if (!b) fail(path, v, "expected a byte size such as 4096, \"4KiB\" or \"64MiB\" (binary units K/KiB, M/MiB, G/GiB)");
      x = *b;
    } else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
      x = v.get<uint64_t>();
    } else {
      fail(path, v, "expected a byte size such as 4096, \"4KiB\" or \"64MiB\" (binary units K/KiB, M/MiB, G/GiB)");
    }
    if (x < lo || x > hi)
      fail(path, v, "out of range (allowed " + format_bytes(lo) + " .. " + format_bytes(hi) + ")");
    return x;
  }

  /// A value or a list of values: calls f(element, element_path) for each.
  template <class F>
  void each(const json& v, const std::string& path, F f) const {
    if (v.is_array()) {
      if (v.empty()) fail(path, v, "an empty list gives no points");
      for (size_t i = 0; i < v.size(); ++i) f(v[i], path + "/" + std::to_string(i));
    } else {
      f(v, path);
    }
  }
};

/// The coordinate axes a config's top level or a grid gives (keys sizes, layout,
/// cache, chunk, prefill, consume, threads), applied over `base`. InputError at a bad value.
Axes read_axes(const Reader& r, const json& j, const std::string& path, Axes base);

/// Checks one set of axes: a distance places dst itself (no dst_offset with it),
/// and the buffers fit in memory.
void check_axes(const Reader& r, const json& j, const std::string& path, const Axes& a);

/// Expands one kernel grid object at `path` over the top level's axes `top` (every
/// list-valued axis is a cartesian product). InputError at a bad value or an invalid spec.
Grid read_grid(const Reader& r, const json& g, const std::string& path, const Axes& top);

}  // namespace kex::config_detail
