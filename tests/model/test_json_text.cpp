// parse_json_text: what every reader of kex's files refuses before reading a field.
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/model/json_text.hpp"

using kex::parse_json_text;

namespace {

std::string refusal(const std::string& text, bool comments = false) {
  try {
    parse_json_text(text, "f.json", 8, "a note", comments);
  } catch (const kex::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_json_text: a NUL byte, a key twice and deep nesting are refused, naming the place" *
          doctest::test_suite("model")) {
  CHECK(refusal(std::string("{\"a\": 1}\0{\"b\": 2}", 17)) == "f.json: a NUL byte at byte 8: not JSON");
  CHECK(refusal(std::string("{\"a\": \"x\0y\"}", 12)) == "f.json: a NUL byte at byte 8: not JSON");
  CHECK(refusal(R"({"a": 1, "b": {"c": [1, {"d": 1, "d": 2}]}})") ==
        "f.json: key \"d\" appears twice in one object (JSON keeps only the last)");
  CHECK(refusal(R"({"a": 1, "a": 1})") == "f.json: key \"a\" appears twice in one object (JSON keeps only the last)");
  CHECK(refusal("[[[[[[[[[1]]]]]]]]]") == "f.json: nested deeper than 8 levels: a note");
  CHECK_THROWS_AS(parse_json_text("{\"a\": }", "f.json", 8, ""), nlohmann::json::parse_error);
  CHECK_THROWS_AS(parse_json_text("{} // note", "f.json", 8, ""), nlohmann::json::parse_error);
}

TEST_CASE("parse_json_text: what kex writes reads back as nlohmann/json reads it" * doctest::test_suite("model")) {
  const std::string text = R"({"a": {"b": [1, 2.5, "x\u0000y"], "c": {}}, "b": {"a": {"b": null}}, "e": [{}, {"a": 1}]})";
  CHECK(parse_json_text(text, "f.json", 8, "") == nlohmann::json::parse(text));
  CHECK(parse_json_text("{\"a\": 1} // kept", "f.json", 8, "", /*comments=*/true) == nlohmann::json{{"a", 1}});
  CHECK(parse_json_text("[[[[[[[[1]]]]]]]]", "f.json", 8, "").dump() == "[[[[[[[[1]]]]]]]]");
}
