// Kernel names and configs read numbers with one grammar (src/core/numbers.hpp):
// the same string gives the same value or the same refusal on both paths.
#include <doctest/doctest.h>

#include <climits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/model/config.hpp"
#include "src/model/config_json.hpp"
#include "src/model/result_json.hpp"
#include "src/model/spec.hpp"

using namespace kex;

namespace {

struct Outcome {
  bool ok = false;
  int32_t distance = 0;
  std::string error;
};

Outcome by_name(const std::string& d) {
  Outcome o;
  try {
    o.distance = parse_spec_name("copy/sse/pf:nta@" + d).pf_distance;
    o.ok = true;
  } catch (const std::invalid_argument& e) {
    o.error = e.what();
  }
  return o;
}

Outcome by_config(const std::string& d) {
  nlohmann::json j = {{"sizes", {4096}}, {"kernels", {{{"op", "copy"}, {"regs", "sse"}, {"prefetch", "nta@" + d}}}}};
  Outcome o;
  try {
    Config c = parse_config(j.dump(), "t.json");
    REQUIRE(c.grids.size() == 1);
    REQUIRE(c.grids[0].specs.size() == 1);
    o.distance = c.grids[0].specs[0].pf_distance;
    o.ok = true;
  } catch (const InputError& e) {
    o.error = e.what();
  }
  return o;
}

std::string reason(const std::string& d) {
  try {
    parse_integer(d, -(1 << 20), 1 << 20);
  } catch (const NumberError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("prefetch distances: a name and a config give the same value or the same error" * doctest::test_suite("spec")) {
  struct Case {
    const char* text;
    bool ok;
    int32_t value;
  } cases[] = {
      {"256", true, 256},       {"-256", true, -256},         {"0", true, 0},
      {"-0", true, 0},          {"0x100", true, 256},         {"1048576", true, 1 << 20},
      {"-1048576", true, -(1 << 20)},
      {"0100", false, 0},       {"--64", false, 0},           {"+256", false, 0},
      {" 256", false, 0},       {"256 ", false, 0},           {"", false, 0},
      {"1048577", false, 0},    {"9223372036854775808", false, 0},  // LLONG_MAX + 1
      {"-9223372036854775808", false, 0},                           // LLONG_MIN
      {"0x", false, 0},         {"1.5", false, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    Outcome n = by_name(c.text), k = by_config(c.text);
    CHECK(n.ok == c.ok);
    CHECK(k.ok == c.ok);
    if (c.ok) {
      CHECK(n.distance == c.value);
      CHECK(k.distance == c.value);
    } else {
      const std::string why = reason(c.text);
      REQUIRE(!why.empty());
      CHECK(n.error == "name token 'pf:nta@" + std::string(c.text) + "': " + why);
      CHECK(k.error == "t.json: /kernels/0/prefetch: " + nlohmann::json("nta@" + std::string(c.text)).dump() +
                           ": the distance after @: " + why);
    }
  }
}

TEST_CASE("name numbers: LLONG_MIN, a double minus and octal-looking values are refused with the range" *
          doctest::test_suite("spec")) {
  auto err = [](const std::string& name) {
    try {
      parse_spec_name(name);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string unroll_range = "; allowed: an integer in 1..8192 (decimal with an optional '-', or 0x hex)";
  CHECK(err("copy/sse/unroll:-9223372036854775808") ==
        "name token 'unroll:-9223372036854775808': '-9223372036854775808': out of range" + unroll_range);
  CHECK(err("copy/sse/unroll:--64") == "name token 'unroll:--64': '--64': not an integer" + unroll_range);
  CHECK(err("copy/sse/unroll:0128") ==
        "name token 'unroll:0128': '0128': a leading zero is not allowed (it is not read as octal; write 128, or 0x128 "
        "for hex)" + unroll_range);
  CHECK(parse_spec_name("copy/sse/unroll:0x80").unroll == 128);
  CHECK(parse_spec_name("clear/sse/fill:0xff").fill == 0xff);
}

TEST_CASE("a control byte in a kernel name is refused before any message quotes it (fuzz finding)" *
          doctest::test_suite("spec")) {
  // A NUL inside a quoted token cut the error line short at what().
  const std::string name("copy/sse/pf:nta@10\x03\0\0\0" "4444", 26);
  std::string err;
  try {
    parse_spec_name(name);
  } catch (const std::invalid_argument& e) {
    err = e.what();
  }
  CHECK(err == "kernel name has a control character (byte 3 at offset 18); names are printable, e.g. copy/sse/unroll:64");
  CHECK_THROWS_AS(parse_spec_name("copy/sse\n"), std::invalid_argument);
  CHECK_THROWS_AS(parse_spec_name(std::string("copy\x7f/sse")), std::invalid_argument);
}

TEST_CASE("edges: the overlap token of a name, and where it is refused" * doctest::test_suite("spec")) {
  // Name: one bare word after the alignment; bytes (the default) is left out and accepted.
  KernelSpec s = parse_spec_name("copy/avx512/unroll:256/nt/overlap");
  CHECK(s.edges == Edges::overlap);
  CHECK(spec_name(s) == "copy/avx512/unroll:256/scratch:4/nt/fwd/overlap");
  CHECK(spec_name(parse_spec_name("clear/sse/aligned/overlap/bwd/fill:0x5a")) ==
        "clear/sse/unroll:64/scratch:4/t/bwd/aligned/overlap/fill:0x5a");
  CHECK(parse_spec_name("copy/sse/bytes") == parse_spec_name("copy/sse"));
  CHECK(spec_name(parse_spec_name("copy/sse/bytes")) == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK_THROWS_WITH_AS(parse_spec_name("copy/sse/overlap/bytes"),
                       "'edges' is given twice in kernel name 'copy/sse/overlap/bytes'", std::invalid_argument);
  // Refused where there is no edge to move: the string class (rep movs/stos, width 1).
  KernelSpec rep = default_spec(Op::copy, RegClass::string);
  rep.edges = Edges::overlap;
  CHECK(validate(rep).find("the string class has no edges to overlap") == 0);
  for (const auto& c : reg_classes()) {
    KernelSpec k = default_spec(Op::clear, c.cls);
    k.edges = Edges::overlap;
    CHECK_MESSAGE(validate(k).empty() == (c.width > 1), c.name);
  }
}

TEST_CASE("edges: a config axis like align, and a results param older files lack" * doctest::test_suite("spec")) {
  // Config: an enum axis like align; a bad word names what is allowed.
  const Config c = parse_config(
      R"({"sizes": [608], "kernels": [{"op": "copy", "regs": "avx", "edges": ["bytes", "overlap"]}]})", "e.json");
  REQUIRE(c.grids.size() == 1);
  REQUIRE(c.grids[0].specs.size() == 2);
  CHECK(c.grids[0].specs[0].edges == Edges::bytes);
  CHECK(c.grids[0].specs[1].edges == Edges::overlap);
  CHECK_THROWS_WITH_AS(parse_config(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "edges": "lapped"}]})",
                                    "e.json"),
                       "e.json: /kernels/0/edges: \"lapped\": allowed: bytes, overlap", InputError);
  CHECK_THROWS_WITH_AS(
      parse_config(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "string", "unroll": 1, "edges": "overlap"}]})",
                   "e.json"),
      doctest::Contains("the string class has no edges to overlap"), InputError);
  // A spec written as a grid (kernels named on the command line, kex tune's stages) comes back.
  for (const char* name : {"copy/avx512/unroll:256/nt/overlap", "clear/gpr/bwd/overlap/fill:0x11", "copy/sse"}) {
    Config draft;
    draft.axes.sizes = {64};
    draft.grids = {spec_grid_of(parse_spec_name(name), draft.axes)};
    const Config back = parse_config(config_json(draft).dump(), "g.json");  // through the config grammar
    CHECK(back.grids.at(0).specs.at(0) == parse_spec_name(name));
  }
  // Results params: written always, read with bytes as the default (files of an earlier kex).
  const KernelSpec s = parse_spec_name("copy/avx512/unroll:256/nt/overlap");
  nlohmann::json p = spec_params(s);
  CHECK(p["edges"] == "overlap");
  CHECK(spec_from_params(p, "p") == s);
  p.erase("edges");
  CHECK(spec_from_params(p, "p").edges == Edges::bytes);
  p["edges"] = "lapped";
  CHECK_THROWS_WITH_AS(spec_from_params(p, "f.json: /benchmarks/0/params"),
                       doctest::Contains("edges: \"lapped\": allowed: bytes, overlap"), InputError);
}
