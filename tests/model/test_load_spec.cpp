// Loaded code's names and options: lib/NAME and asm/NAME in the name grammar, --load's
// NAME=PATH:SYMBOL[:copy|move|clear], a config's "load" list, and the facts in results
// files (a name read from a file is data).
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/load_spec.hpp"
#include "src/model/result_json.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// The InputError `f` throws, or "no error".
template <class F>
std::string load_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("lib/NAME and asm/NAME: the user's label, with an optional fill" * doctest::test_suite("model")) {
  const auto n = parse_impl_name("asm/musl-memset/fill:0x5a");
  REQUIRE(n);
  CHECK(n->source == Source::object);
  CHECK(n->symbol == "musl-memset");
  CHECK(n->fill == 0x5a);
  CHECK(impl_name(*n) == "asm/musl-memset/fill:0x5a");
  CHECK(parse_impl_name("lib/new")->source == Source::lib);
  for (const char* bad : {"lib/", "lib/-x", "lib/a b", "lib/a.b", "asm/x/y", "lib/x/fill:0x00"})
    CHECK_MESSAGE(!parse_impl_name(bad), bad);
  CHECK(!parse_impl_name("lib/" + std::string(65, 'a')));
  CHECK(parse_impl_name("lib/" + std::string(64, 'a')));
  CHECK(!parse_impl_name("glibc/a-b"));  // glibc's names stay C identifiers
  CHECK(kernel_name_error(KernelKind::implementation, "lib/a;b")->find("lib/NAME or asm/NAME") != std::string::npos);
}

TEST_CASE("--load NAME=PATH:SYMBOL[:copy|move|clear]: the path's form decides the source" * doctest::test_suite("model")) {
  const LoadSpec l = parse_load_option("new=./build/libmine.so.1:my_memset:clear", "--load");
  CHECK(l == LoadSpec{"new", "./build/libmine.so.1", "my_memset", Function::memset});
  CHECK(load_kernel(l) == "lib/new");
  CHECK(parse_load_option("m=/usr/lib/x86_64-linux-musl/libc.a(memcpy.lo):memcpy", "--load").path ==
        "/usr/lib/x86_64-linux-musl/libc.a(memcpy.lo)");
  CHECK(load_kernel(parse_load_option("m=a:b/k.S:k:move", "--load")) == "asm/m");  // a ':' in the path
  CHECK(parse_load_option("m=a:b/k.S:k:move", "--load").path == "a:b/k.S");
  CHECK(load_source("x.so") == Source::lib);
  CHECK(load_source("libc.so.6") == Source::lib);
  CHECK(load_source("x.o") == Source::object);
  CHECK(load_source("x.lo") == Source::object);
  for (const char* bad : {"x.c", "x.so.", "x.a", "x.a()", "so", ".so.1x"}) CHECK_MESSAGE(!load_source(bad), bad);
  const auto error_of = [](const std::string& text) { return load_error_of([&] { parse_load_option(text, "--load"); }); };
  CHECK(error_of("x.so:f") == "--load: 'x.so:f': no '=': give NAME=PATH:SYMBOL[:copy|move|clear], e.g. "
                              "new=./libmine.so:my_memcpy");
  CHECK(error_of("a=x.so") .find("no ':SYMBOL'") != std::string::npos);
  CHECK(error_of("a=x.c:f") == "--load: 'a=x.c:f': PATH 'x.c': allowed: a shared object (x.so, x.so.N), an assembly "
                               "file (x.s, x.S), an object (x.o, x.lo) or an archive member (lib.a(member))");
  CHECK(error_of("a b=x.so:f").find("NAME 'a b': allowed") != std::string::npos);
  CHECK(error_of("a=x.so:f()").find("SYMBOL 'f()': allowed: a C identifier") != std::string::npos);
  const std::vector<LoadSpec> twice = {l, l};
  CHECK_THROWS_WITH_AS(check_load_names(twice, "--load"), "--load: NAME 'new' is given twice (each load needs a name of its own)",
                       InputError);
}

TEST_CASE("config: \"load\" is a list of typed records, sizes are needed, lib/NAME is no baseline" *
          doctest::test_suite("model")) {
  const Config c = parse_config(
      R"j({"sizes": [4096], "load": [{"name": "o3", "path": "c.so", "symbol": "my_copy"},
                                     {"name": "m", "path": "libc.a(memset.lo)", "symbol": "memset", "function": "clear"}]})j",
      "c.json");
  REQUIRE(c.loads.size() == 2);
  CHECK(c.loads[0] == LoadSpec{"o3", "c.so", "my_copy", Function::memcpy});
  CHECK(c.loads[1].function == Function::memset);
  const auto error_of = [](const std::string& text) { return load_error_of([&] { parse_config(text, "c.json"); }); };
  CHECK(error_of(R"({"load": [{"name": "a", "path": "c.so", "symbol": "f"}]})") ==
        "c.json: /sizes: null: loaded code needs a list of sizes");
  CHECK(error_of(R"({"sizes": [1], "load": [{"name": "a", "path": "c.so"}]})").find("c.json: /load/0/symbol: ") == 0);
  CHECK(error_of(R"({"sizes": [1], "load": [{"name": "a", "path": "c.so", "symbol": "f", "x": 1}]})")
            .find("c.json: /load/0/x: ") == 0);
  CHECK(error_of(R"({"sizes": [1], "load": [{"name": "a", "path": "c.so", "symbol": "f", "function": "fast"}]})") ==
        "c.json: /load/0/function: \"fast\": allowed: copy (memcpy's ABI), move (memmove's), clear (memset's)");
  CHECK(error_of(R"({"sizes": [1], "load": [{"name": "a", "path": "c.so", "symbol": "f"},
                                             {"name": "a", "path": "d.so", "symbol": "f"}]})") ==
        "c.json: /load: NAME 'a' is given twice (each load needs a name of its own)");
  CHECK(error_of(R"({"sizes": [1], "baselines": ["lib/a"]})").find("c.json: /baselines/0: \"lib/a\": loaded code is named in") == 0);
}

TEST_CASE("results: a loaded implementation's facts read back equal, and the label must match the name" *
          doctest::test_suite("model")) {
  RunDoc d = golden::run();
  Result r = d.results.at(0);
  r.kind = KernelKind::implementation;
  r.spec.reset();
  r.preset.reset();
  r.libc.reset();
  r.impl = ImplFacts{Source::object, Function::memcpy, "memcpy", 0, true, "", "/usr/lib/x86_64-linux-musl/libc.a(memcpy.lo)",
                     std::string(64, 'a'), "musl", 1};
  r.point.kernel = "asm/musl";
  d.results = {r};
  const nlohmann::json j = to_json(d);
  CHECK(j["benchmarks"][0]["implementation"]["label"] == "musl");
  CHECK(j["benchmarks"][0]["implementation"]["pieces"] == 1);
  CHECK(docs_from_json(j, "f.json").at(0).results.at(0).impl == r.impl);
  nlohmann::json bad = j;
  bad["benchmarks"][0]["implementation"]["label"] = "other";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("implementation: names asm/other"), InputError);
  bad = j;
  bad["benchmarks"][0]["implementation"].erase("label");
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("label"), InputError);
}
