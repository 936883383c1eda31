// The point name's token table (src/model/point_tokens.hpp): a token per axis but the
// size, "pass" the one that is no axis, and every token round-trips through a name.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "src/core/text_split.hpp"
#include "src/model/axis.hpp"
#include "src/model/point.hpp"
#include "src/model/point_tokens.hpp"
#include "tests/support/input_error.hpp"

using namespace kex;

TEST_CASE("point tokens: every axis but the size has one, and a stream's seed and calls and pass are no axes" *
          doctest::test_suite("model")) {
  for (const AxisRow& r : axis_rows()) {
    size_t n = 0;
    for (const PointToken& t : point_tokens()) n += t.axis == r.axis;
    CAPTURE(r.name);
    CHECK(n == (r.axis == Axis::size ? 0u : 1u));
  }
  std::vector<std::string> not_axes;
  for (const PointToken& t : point_tokens())
    if (!t.axis) not_axes.push_back(t.key);
  CHECK(not_axes == std::vector<std::string>{"seed", "calls", "pass"});
  CHECK(point_token_keys() == "stream footprint seed calls src dst dist nohuge chunk prefill consume cold threads harness pass");
  CHECK(point_token_forms() ==
        "stream:NAME footprint:N seed:N calls:N src:N dst:N dist:N nohuge chunk:N prefill:0xNN consume cold threads:N "
        "harness:fastc|hahn|xmm64|mem_cp pass:N");
}

TEST_CASE("point tokens: each token round-trips through a point name, alone and with all the others" *
          doctest::test_suite("model")) {
  Point p{"memcpy", {}};
  p.at.size = 8192;
  p.at.layout = {64, 128, -4160, false};
  p.at.chunk = 512;
  p.at.prefill = 0x5a;
  p.at.consume = true;
  p.at.cache = CacheMode::cold;
  p.at.threads = 2;
  p.at.harness = Harness::hahn;
  p.at.pass = 3;
  p.at.stream = "Memcpy_Fleet";
  p.at.footprint = 524288;
  p.at.stream_seed = 2;
  p.at.stream_calls = 1024;
  const std::string name = point_name(p);
  CHECK(name == "memcpy/8192/stream:Memcpy_Fleet/footprint:524288/seed:2/calls:1024/src:64/dst:128/dist:-4160/nohuge/"
                "chunk:512/prefill:0x5a/consume/cold/threads:2/harness:hahn/pass:3");
  CHECK(parse_point_name(name) == p);
  // A token per row, in the table's order: each alone is a name that parses back to a
  // point off the default on that axis only.
  std::vector<std::string> tok;
  for (std::string_view t : split_view(std::string_view(name).substr(std::string("memcpy/8192/").size()), '/'))
    tok.emplace_back(t);
  const std::vector<PointToken>& rows = point_tokens();
  REQUIRE(tok.size() == rows.size());
  Coords base;
  base.size = 8192;
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(tok[i]);
    CHECK(tok[i].rfind(rows[i].key, 0) == 0);
    const Point one = parse_point_name("memcpy/8192/" + tok[i]);
    CHECK(point_name(one) == "memcpy/8192/" + tok[i]);
    if (rows[i].axis) CHECK(swept_axes({base, one.at}) == std::vector<Axis>{*rows[i].axis});
    CHECK(token_text(rows[i], one.at) == token_text(rows[i], p.at));
  }
}

TEST_CASE("point tokens: the errors list the tokens from the table, as they always said them" *
          doctest::test_suite("model")) {
  auto error = [](const char* n) { return invalid_argument_of([&] { parse_point_name(n); }); };
  CHECK(error("memcpy/4096/warp") ==
        "unknown coordinate 'warp' in point name 'memcpy/4096/warp' (allowed after the size: stream:NAME footprint:N "
        "seed:N calls:N src:N dst:N dist:N nohuge chunk:N prefill:0xNN consume cold threads:N "
        "harness:fastc|hahn|xmm64|mem_cp pass:N)");
  CHECK(error("memcpy/4096/cold/nohuge") ==
        "coordinate 'nohuge' in point name 'memcpy/4096/cold/nohuge' is repeated or out of order (canonical order: stream "
        "footprint seed calls src dst dist nohuge chunk prefill consume cold threads harness pass)");
  CHECK(error("memcpy/4096/stream:a.b") == "'stream:a.b': expected stream:NAME (1..64 letters, digits, _ and -)");
  CHECK(error("memcpy/4096/harness:kex") == "'harness:kex': allowed harness:fastc, harness:hahn, harness:xmm64, harness:mem_cp");
  CHECK(error("memcpy/4096/threads") == "coordinate 'threads' needs a value, e.g. threads:64");
  CHECK(error("memcpy/4096/threads:1025") == "'threads:1025' is out of range (allowed 2..1024)");
}
