// Config parsing: expansion, and one clear error line for every bad-input class.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/core/units.hpp"

using namespace kex;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("byte sizes parse with binary units" * doctest::test_suite("config")) {
  CHECK(parse_bytes("4096") == 4096u);
  CHECK(parse_bytes("4KiB") == 4096u);
  CHECK(parse_bytes("64MiB") == 64ull << 20);
  CHECK(parse_bytes("1 g") == 1ull << 30);
  CHECK_FALSE(parse_bytes("4 parsecs"));
  CHECK_FALSE(parse_bytes("64MB"));  // ambiguous: kex's GB are decimal, its KiB/MiB binary
  CHECK(parse_bytes(" 4KiB ") == 4096u);
  CHECK_FALSE(parse_bytes("-1"));
  CHECK_FALSE(parse_bytes(""));
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(64ull << 20) == "64 MiB");
}

TEST_CASE("sizes expand from lists, strings and ranges" * doctest::test_suite("config")) {
  auto c = parse_config(R"({"sizes": ["1KiB", 256, {"from": "4KiB", "to": "64KiB", "factor": 4}, {"from": 100, "to": 130, "step": 10}],
                           "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json");
  CHECK(c.sizes == std::vector<uint64_t>{100, 110, 120, 130, 256, 1024, 4096, 16384, 65536});
}

TEST_CASE("every list-valued axis expands as a cartesian product" * doctest::test_suite("config")) {
  auto c = parse_config(R"({"sizes": [4096], "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "avx"],
                           "store": ["t", "nt"], "prefetch": ["none", "nta@256"]}]})", "t.json");
  CHECK(c.kernels.size() == 16);
  CHECK(spec_name(c.kernels[0]) == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK(c.baselines.size() == 4);
  auto d = parse_config(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": ["gpr", "x87"], "store": "nt", "skip_invalid": true}]})", "t.json");
  REQUIRE(d.kernels.size() == 1);
  CHECK(d.kernels[0].regs == RegClass::gpr);
}

TEST_CASE("bad configs give one line naming file, JSON path, value and what is allowed" * doctest::test_suite("config")) {
  struct Case { std::string text; const char* expect; };
  const Case cases[] = {
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unrol": 64}]})", "t.json: /kernels/0/unrol: unknown key"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "bogus": 1})", "t.json: /bogus: unknown key"},
      {"{\"sizes\": [64],\n \"kernels\": [}", "t.json:2:14: malformed JSON"},
      {R"({"sizes": [-5], "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json: /sizes/0: -5: expected a byte size"},
      {R"({"sizes": [0], "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json: /sizes/0: 0: out of range"},
      {R"({"sizes": ["4 parsecs"], "kernels": [{"op": "copy", "regs": "sse"}]})", "/sizes/0: \"4 parsecs\": expected a byte size"},
      {R"({"sizes": ["1000GiB"], "kernels": [{"op": "copy", "regs": "sse"}]})", "/sizes/0: \"1000GiB\": out of range"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": 24}]})",
       "/kernels/0: copy/sse/unroll:24/scratch:1/t/fwd: unroll 24 is not a positive multiple of the sse width (16 bytes)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "mmx", "unroll": 128, "scratch": 9}]})",
       "scratch 9 is out of range for mmx (1..8)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "string", "prefetch": "nta@64"}]})",
       "the string class takes no prefetch"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "x87", "store": "nt"}]})", "the x87 class has no non-temporal store"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "prefetch": "fast@64"}]})",
       "/kernels/0/prefetch: \"fast@64\": allowed: none, nta@D"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": "64"}]})", "/kernels/0/unroll: \"64\": expected an integer"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "neon"}]})", "/kernels/0/regs: \"neon\": allowed: gpr, mmx"},
      {R"({"sizes": [64], "kernels": [{"regs": "sse"}]})", "/kernels/0: {\"regs\":\"sse\"}: a kernel grid needs \"op\""},
      {R"({"kernels": [{"op": "copy", "regs": "sse"}]})", "/sizes: null: kernels need a list of sizes"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "precision": 0})", "/precision: 0: out of range"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "cache": "lukewarm"})", "/cache: \"lukewarm\": allowed: warm, cold"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "layout": {"distance": 64}})", "src and dst would overlap"},
      {R"({"sizes": [64], "kernels": []})", "/kernels: []: expected a non-empty list"},
      {R"({"baselines": false})", "nothing to run"},
      {R"([1, 2])", "t.json: /: [1,2]: expected an object"},
      {R"({"sizes": [64], "sizes": [128], "kernels": [{"op": "copy", "regs": "sse"}]})", "key \"sizes\" appears twice"},
      {R"({"name": 5, "sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}]})", "/name: 5: expected a string"},
      {R"({"sizes": [{"from": "4KiB", "to": "64KiB", "factor": 1.0001}], "kernels": [{"op": "copy", "regs": "sse"}]})",
       "/sizes/0/factor: 1.0001: gives more than 10000 sizes"},
      {R"({"sizes": ["64MB"], "kernels": [{"op": "copy", "regs": "sse"}]})", "binary units"},
      {(std::string(200, '[') + std::string(200, ']')).c_str(), "nested deeper than 64 levels"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(c.text);
    CHECK_MESSAGE(e.find(c.expect) != std::string::npos, "config: " << c.text.substr(0, 120) << "\n  error: " << e);
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE("the built-in configs parse" * doctest::test_suite("config")) {
  for (const char* name : {"default.json", "unroll.json"}) {
    auto c = load_config(std::string("built-in:") + name);
    CHECK_MESSAGE(!c.kernels.empty(), name);
    CHECK(!c.sizes.empty());
  }
  auto d = load_config("built-in:default.json");
  CHECK(d.sizes.front() == 256);
  CHECK(d.sizes.back() == 64ull << 20);
  // every register class and both ops appear in the default sweep
  for (const auto& ci : reg_classes())
    for (auto op : {Op::copy, Op::clear}) {
      bool found = false;
      for (const auto& k : d.kernels) found |= k.regs == ci.cls && k.op == op;
      CHECK_MESSAGE(found, ci.name << " " << to_string(op));
    }
}
