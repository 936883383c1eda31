// What parse_config's parts share (src/model/config*.cpp): the axes reader and its
// checks, over the field tables of config_fields.hpp. Internal to the model layer.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "src/model/json_fields.hpp"

namespace kex::config_detail {

using nlohmann::json;

/// The coordinate axes the record `in` reads (a config's top level or a grid: keys sizes,
/// layout, cache, chunk, prefill, consume, threads) over `base`, each value listed once
/// (sizes ascending). InputError at a bad value.
Axes read_axes(FieldReader& in, const Axes& base);

/// Checks one set of axes the record `in` gave: a distance places dst itself (no
/// dst_offset with it), and the buffers fit in memory. InputError naming the key.
void check_axes(const FieldReader& in, const Axes& a);

/// Refuses, as a caller's bug, axes kex made that no reader gives back: a value listed
/// twice, or sizes out of order (std::logic_error naming `at`).
void check_listed_once(const Axes& a, const std::string& at);

}  // namespace kex::config_detail
