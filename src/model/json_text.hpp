// JSON text as every reader of kex's files parses it: a config, a results file, a journal
// line. nlohmann/json alone would accept two texts kex never writes and read them as
// something else: it stops at a NUL byte (whatever follows is ignored) and keeps the last
// of two equal keys in one object (the first is silently lost).
#pragma once
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace kex {

/// `text` parsed as JSON (with `comments`, // and /* */ comments allowed). Throws
/// InputError naming `where` for a NUL byte ("<where>: a NUL byte at byte N: not JSON"),
/// a key twice in one object ("<where>: key "K" appears twice in one object (JSON keeps
/// only the last)") and nesting deeper than `max_depth` ("<where>: nested deeper than
/// MAX levels: <depth_note>"). Malformed JSON is left to the caller, as the
/// nlohmann::json::parse_error it throws (its byte offset is into `text`).
nlohmann::json parse_json_text(std::string_view text, const std::string& where, int max_depth,
                               std::string_view depth_note, bool comments = false);

/// The JSON library kex reads and writes with, as the results' context.build.libraries
/// name it: its name and version ("nlohmann_json", "3.11.2").
std::pair<std::string, std::string> json_library();

}  // namespace kex
