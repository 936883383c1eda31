// Files built into the binary (configs/*.json and the schemas), generated at build
// time by src/core/embed.cmake so `kex run` works from any directory.
#pragma once
#include <string_view>

namespace kex {

/// Text of a config or schema built into the binary (e.g. "default.json"), or nullptr.
const char* embedded_file(std::string_view name);

}  // namespace kex
