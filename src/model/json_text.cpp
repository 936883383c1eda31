#include "src/model/json_text.hpp"

#include <cerrno>
#include <set>
#include <vector>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"

namespace kex {

namespace {

using Json = nlohmann::json;
using Event = Json::parse_event_t;

/// What one parsed JSON value may cost at most: its 16 bytes, twice over in a growing
/// array, the destructor's stack, a map node and key for an object member.
constexpr uint64_t kBytesPerJsonValue = 128;

[[noreturn]] void too_deep(const std::string& where, int max_depth, std::string_view depth_note) {
  throw InputError(where + ": nested deeper than " + std::to_string(max_depth) + " levels: " + std::string(depth_note));
}

/// Parses `text` again, remembering every key of every open object, to name the key
/// that appears twice (the first pass only found that one does).
[[noreturn]] void name_twice_key(std::string_view text, const std::string& where, bool comments) {
  std::vector<std::set<std::string>> open_keys;
  const Json::parser_callback_t check = [&](int, Event ev, Json& parsed) {
    if (ev == Event::object_start) {
      open_keys.emplace_back();
    } else if (ev == Event::object_end) {
      open_keys.pop_back();
    } else if (ev == Event::key && !open_keys.back().insert(parsed.get_ref<const std::string&>()).second) {
      throw InputError(where + ": key \"" + parsed.get_ref<const std::string&>() +
                       "\" appears twice in one object (JSON keeps only the last)");
    }
    return true;
  };
  [[maybe_unused]] const Json again = Json::parse(text.begin(), text.end(), check, true, comments);
  throw InputError(where + ": a key appears twice in one object (JSON keeps only the last)");
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& where, int max_depth,
                               std::string_view depth_note, bool comments) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw InputError(where + ": a NUL byte at byte " + std::to_string(nul) + ": not JSON");
  // An object that ends with fewer members than keys were read had a key twice: counting
  // is all the first pass does (a set of keys per object cost a third more time).
  std::vector<size_t> keys_read;
  bool twice = false;
  // Stop before memory runs out, not in it: nlohmann's destructor allocates (a stack as long
  // as the largest array), so a std::bad_alloc half-way through a parse ends in abort().
  const uint64_t budget = memory_left_bytes() / kBytesPerJsonValue;
  uint64_t values = 0;
  const Json::parser_callback_t check = [&](int depth, Event ev, Json& parsed) {
    if (depth > max_depth) too_deep(where, max_depth, depth_note);
    if (ev != Event::key && ev != Event::object_end && ev != Event::array_end && ++values > budget)
      throw InputError(where + ": too large to read in the memory left to this process (more than " +
                       std::to_string(budget) + " JSON values" +
                       (limit_note(ENOMEM).empty() ? std::string("; MemAvailable is low") : limit_note(ENOMEM)) + ")");
    if (ev == Event::object_start) {
      keys_read.push_back(0);
    } else if (ev == Event::key) {
      ++keys_read.back();
    } else if (ev == Event::object_end) {
      twice = twice || parsed.size() != keys_read.back();
      keys_read.pop_back();
    }
    return true;
  };
  Json j = Json::parse(text.begin(), text.end(), check, true, comments);
  if (twice) name_twice_key(text, where, comments);
  return j;
}

std::pair<std::string, std::string> json_library() {
  return {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_PATCH)};
}

}  // namespace kex
