// Config parsing: expansion, and one clear error line for every bad-input class.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/core/units.hpp"

using namespace kex;

namespace {
std::vector<KernelSpec> all_specs(const Config& c) {
  std::vector<KernelSpec> v;
  for (const auto& g : c.grids) v.insert(v.end(), g.specs.begin(), g.specs.end());
  return v;
}

std::string config_error(const std::string& text) {
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
  CHECK(c.axes.sizes == std::vector<uint64_t>{100, 110, 120, 130, 256, 1024, 4096, 16384, 65536});
  CHECK(c.grids.at(0).axes.sizes == c.axes.sizes);  // a grid without its own sizes takes the top level's
  auto o = parse_config(R"({"sizes": [{"from": 256, "to": 1024, "steps_per_octave": 4}], "kernels": [{"op": "copy", "regs": "sse"}]})",
                        "t.json");
  CHECK(o.axes.sizes == std::vector<uint64_t>{256, 304, 362, 431, 512, 609, 724, 861, 1024});
  CHECK(sizes_per_octave(1000, 3000, 1) == std::vector<uint64_t>{1000, 2000, 3000});
}

TEST_CASE("every list-valued axis expands as a cartesian product" * doctest::test_suite("config")) {
  auto c = parse_config(R"({"sizes": [4096], "kernels": [{"op": ["copy", "clear"], "regs": ["sse", "avx"],
                           "store": ["t", "nt"], "prefetch": ["none", "nta@256"]}]})", "t.json");
  CHECK(all_specs(c).size() == 16);
  CHECK(spec_name(all_specs(c)[0]) == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK(c.baselines.size() == 4);
  auto d = parse_config(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": ["gpr", "x87"], "store": "nt", "skip_invalid": true}]})", "t.json");
  REQUIRE(all_specs(d).size() == 1);
  CHECK(all_specs(d)[0].regs == RegClass::gpr);
}

TEST_CASE("every coordinate is an axis: top level for every grid, a grid's own value overrides" * doctest::test_suite("config")) {
  auto c = parse_config(R"({"sizes": [4096, 65536], "cache": ["warm", "cold"],
      "layout": {"src_offset": [0, 1], "distance": [null, -64, 4096], "huge_pages": [true, false]},
      "chunk": ["none", "4KiB"], "prefill": ["none", 0], "consume": [false, true],
      "kernels": [{"op": "copy", "regs": "sse"},
                  {"op": "clear", "regs": "avx", "sizes": [256], "layout": {"distance": null, "dst_offset": [0, 15]}, "cache": "cold"}]})",
                        "t.json");
  REQUIRE(c.grids.size() == 2);
  const Axes& a = c.grids[0].axes;
  CHECK(a.sizes == std::vector<uint64_t>{4096, 65536});
  CHECK(a.caches == std::vector<CacheMode>{CacheMode::warm, CacheMode::cold});
  CHECK(a.src_offsets == std::vector<uint64_t>{0, 1});
  CHECK(a.distances == std::vector<std::optional<int64_t>>{std::nullopt, -64, 4096});
  CHECK(a.huge_pages == std::vector<bool>{true, false});
  CHECK(a.chunks == std::vector<uint64_t>{0, 4096});
  CHECK(a.prefills == std::vector<std::optional<uint8_t>>{std::nullopt, uint8_t(0)});
  CHECK(a.consumes == std::vector<bool>{false, true});
  const Axes& b = c.grids[1].axes;
  CHECK(b.sizes == std::vector<uint64_t>{256});
  CHECK(b.caches == std::vector<CacheMode>{CacheMode::cold});
  CHECK(b.dst_offsets == std::vector<uint64_t>{0, 15});
  CHECK(b.src_offsets == std::vector<uint64_t>{0, 1});  // not overridden: the top level's
  CHECK(b.distances == std::vector<std::optional<int64_t>>{std::nullopt});
}

TEST_CASE("bad configs give one line naming file, JSON path, value and what is allowed" * doctest::test_suite("config")) {
  struct Case { std::string text; const char* expect; };
  const std::string seven_tenths = std::to_string(max_config_size() / 10 * 7 / 4096 * 4096);
  std::string han100;  // 100 x U+6F22, 200 columns
  for (int i = 0; i < 100; ++i) han100 += "\xe6\xbc\xa2";
  const Case cases[] = {
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unrol": 64}]})", "t.json: /kernels/0/unrol: unknown key"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "bogus": 1})", "t.json: /bogus: unknown key"},
      {"{\"sizes\": [64],\n \"kernels\": [}", "t.json:2:14: malformed JSON"},
      {R"({"sizes": [-5], "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json: /sizes/0: -5: expected a byte size"},
      {R"({"sizes": [0], "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json: /sizes/0: 0: out of range"},
      {R"({"sizes": ["4 parsecs"], "kernels": [{"op": "copy", "regs": "sse"}]})", "/sizes/0: \"4 parsecs\": expected a byte size"},
      {R"({"sizes": ["1000GiB"], "kernels": [{"op": "copy", "regs": "sse"}]})", "/sizes/0: \"1000GiB\": out of range"},
      // A long value of wide characters is cut between characters, to 60 columns with "...".
      {"{\"sizes\": [\"" + han100 +
           "\"], \"kernels\": [{\"op\": \"copy\", \"regs\": \"sse\"}]}",
       "/sizes/0: \"\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2...: expected a byte size"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": 24}]})",
       "/kernels/0: copy/sse/unroll:24/scratch:1/t/fwd: unroll 24 is not a positive multiple of the sse width (16 bytes)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "mmx", "unroll": 128, "scratch": 9}]})",
       "scratch 9 is out of range for mmx (1..8)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "string", "prefetch": "nta@64"}]})",
       "the string class takes no prefetch"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "x87", "store": "nt"}]})", "the x87 class has no non-temporal store"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "prefetch": "fast@64"}]})",
       "/kernels/0/prefetch: \"fast@64\": allowed: none, nta@D"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "prefetch": "nta@1048577"}]})",
       "/kernels/0/prefetch: \"nta@1048577\": the distance after @: "},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "prefetch": "nta@64", "pf_every": 8200}]})",
       "/kernels/0/pf_every: 8200: out of range"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "prefetch": "nta@64", "pf_every": 12}]})",
       "prefetch interval 12 must be a multiple of 8 bytes in 8..8192"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "unroll": "64"}]})", "/kernels/0/unroll: \"64\": expected an integer"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "neon"}]})", "/kernels/0/regs: \"neon\": allowed: gpr, mmx"},
      {R"({"sizes": [64], "kernels": [{"regs": "sse"}]})", "/kernels/0: {\"regs\":\"sse\"}: a kernel grid needs \"op\""},
      {R"({"kernels": [{"op": "copy", "regs": "sse"}]})", "/kernels/0/sizes: null: kernels need a list of sizes"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "precision": 0})", "/precision: 0: expected a number in 0.0001..0.5"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "min_samples": 2.5})",
       "/min_samples: 2.5: expected an integer in 3..1000000"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "outputs": {"json": 7}})",
       "/outputs/json: 7: expected a string"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "outputs": {"pdf": "x"}})",
       "/outputs/pdf: unknown key (allowed: graph_dir, json, plot_dir, seed_exact)"},
      {R"({"segments": {"iterations": 999}})", "/segments/iterations: 999: expected an integer in 1000..4294967296"},
      {R"({"segments": {"mixed": null}})", "/segments/mixed: null: expected true or false"},
      {R"({"presets": ["reference"], "preset_options": {"fsave": "no"}})", "/preset_options/fsave: \"no\": expected true or false"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "max_time_per_point": 0.01, "min_time_per_point": 0.02})",
       "/min_time_per_point: 0.02: must be <= max_time_per_point (0.01)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "min_samples": 200, "max_samples": 100})",
       "t.json: /max_samples: 100: must be >= min_samples (200)"},
      // No max_samples given: the error names the key the user wrote, not the absent one.
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "min_samples": 5000})",
       "t.json: /min_samples: 5000: must be <= max_samples (1001, the default)"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}], "cache": "lukewarm"})", "/cache: \"lukewarm\": allowed: warm, cold"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "layout": {"distance": 1099511627776}})",
       "/layout/distance: 1099511627776: out of range"},
      // Each value 0.7 of the per-value limit (a quarter of MemAvailable), 2.8 of it in
      // all against a total limit of 2: the answer holds while MemAvailable moves by
      // -30%..+40% between this line and the parse (other tests run beside this one).
      {R"({"sizes": [")" + seven_tenths + R"("], "kernels": [{"op": "copy", "regs": "sse"}], "layout": {"distance": [0, )" +
           seven_tenths + R"(], "src_offset": )" + seven_tenths + "}}",
       "src and dst need"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "layout": {"distance": [null, 64], "dst_offset": [0, 15]}})",
       "t.json: /layout: {\"distance\":[null,64],\"dst_offset\":[0,15]}: dst_offset and distance both place dst"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse", "layout": {"src_offset": "x"}}]})",
       "/kernels/0/layout/src_offset: \"x\": expected a byte size"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "prefill": 256})", "/prefill: 256: out of range"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "prefill": "zero"})", "/prefill: \"zero\": allowed: \"none\" or a byte"},
      {R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}], "consume": "yes"})", "/consume: \"yes\": expected true or false"},
      {R"({"sizes": [{"from": 1, "to": 8, "factor": 2, "steps_per_octave": 4}], "kernels": [{"op": "copy", "regs": "sse"}]})",
       "exactly one of factor, step or steps_per_octave"},
      {R"({"sizes": [64], "kernels": []})", "/kernels: []: expected a non-empty list"},
      {R"({"baselines": false})", "nothing to run"},
      {R"([1, 2])", "t.json: /: [1,2]: expected an object"},
      {R"({"sizes": [64], "sizes": [128], "kernels": [{"op": "copy", "regs": "sse"}]})", "key \"sizes\" appears twice"},
      {R"({"name": 5, "sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}]})", "/name: 5: expected a string"},
      {R"({"sizes": [{"from": "4KiB", "to": "64KiB", "factor": 1.0001}], "kernels": [{"op": "copy", "regs": "sse"}]})",
       "/sizes/0/factor: 1.0001: gives more than 10000 sizes"},
      {R"({"sizes": ["64MB"], "kernels": [{"op": "copy", "regs": "sse"}]})", "binary units"},
      {R"({"sizes": [64], "threads": 0, "kernels": [{"op": "copy", "regs": "sse"}]})", "t.json: /threads: 0: out of range"},
      {R"({"presets": "fastc/faster_copy", "harness": "fastc", "threads": [1, 2]})",
       "t.json: /threads: [1,2]: a seed harness (fastc) runs its program's single thread: leave threads at 1"},
      {R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse", "threads": [1, "most"]}]})",
       "t.json: /kernels/0/threads/1: \"most\": allowed: a number of threads 1..1024, or \"all\""},
      {(std::string(200, '[') + std::string(200, ']')).c_str(), "nested deeper than 64 levels"},
      {std::string(R"({"sizes": [64], "kernels": [{"op": "copy", "regs": "sse"}]})") + std::string(1, '\0') + "{{{",
       "t.json: a NUL byte at byte 59: not JSON"},
  };
  for (const auto& c : cases) {
    std::string e = config_error(c.text);
    CHECK_MESSAGE(e.find(c.expect) != std::string::npos, "config: " << c.text.substr(0, 120) << "\n  error: " << e);
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE("the built-in configs parse" * doctest::test_suite("config")) {
  for (const char* name : {"default.json", "unroll.json"}) {
    auto c = load_config(std::string("built-in:") + name);
    CHECK_MESSAGE(!all_specs(c).empty(), name);
    CHECK(!c.axes.sizes.empty());
  }
  auto d = load_config("built-in:default.json");
  CHECK(d.axes.sizes.front() == 256);
  CHECK(d.axes.sizes.back() == 64ull << 20);
  // every register class and both ops appear in the default sweep
  for (const auto& ci : reg_classes())
    for (auto op : {Op::copy, Op::clear}) {
      bool found = false;
      for (const auto& k : all_specs(d)) found |= k.regs == ci.cls && k.op == op;
      CHECK_MESSAGE(found, ci.name << " " << to_string(op));
    }
}

TEST_CASE("every config in configs/ is built in by its name, with or without .json, schemas are not configs" *
          doctest::test_suite("config")) {
  for (const char* name : {"default", "unroll", "reference", "asami", "aliasing", "clear_pages"}) {
    CAPTURE(name);
    const kex::Config a = kex::load_config(std::string("built-in:") + name);
    const kex::Config b = kex::load_config(std::string(KEX_SOURCE_DIR) + "/configs/" + name + ".json");
    CHECK(a.raw == b.raw);
    CHECK(kex::load_config(std::string("built-in:") + name + ".json").raw == b.raw);
  }
  CHECK_THROWS_WITH_AS(kex::load_config("built-in:config.schema"),
                       doctest::Contains("no such built-in config (built-in: default, unroll, reference, asami, "
                                         "aliasing, tune, clear_pages, threads)"),
                       kex::InputError);
}
