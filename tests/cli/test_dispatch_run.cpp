// A dispatch kernel named on the command line and in a config (issue 51): it races as any
// competitor, at fixed sizes and on a stream; results carry it as kind "dispatch" under its
// canonical name; bad names are refused in one line with exit status 2.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/schema.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {
// Written out of canonical order (unroll before the class's defaults): the results name it canonically.
const std::string kGiven = "dispatch:64:copy/sse/small:overlap/overlap,1K:copy/gpr/unroll:128,rep_movsb";
}  // namespace

TEST_CASE("kex run races a dispatch kernel at its edges and on a stream, and results name it canonically" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const ShellOut out = shell(kKex + " run '" + kGiven + "' memcpy --sizes 64,65,1024,1025 --repetitions 2 -o " +
                             (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto doc = nlohmann::json::parse(slurp(d / "r.json"));
  std::set<uint64_t> sizes;
  std::string kernel;
  for (const auto& e : doc["benchmarks"]) {
    if (e["kind"] != "dispatch") continue;
    kernel = e["kernel"];
    CHECK(e["params"]["op"] == "copy");
    CHECK(!e.value("error_occurred", false));
    CHECK(e["real_time"].get<double>() > 0);
    sizes.insert(e["size"].get<uint64_t>());
  }
  CHECK(sizes == std::set<uint64_t>{64, 65, 1024, 1025});
  CHECK(kernel == "dispatch:64:copy/sse/unroll:64/scratch:4/t/fwd/overlap/small:overlap,1024:copy/gpr/unroll:128/"
                  "scratch:8/t/fwd,rep_movsb");
  CHECK(schema_verdicts({d / "r.json"}, std::string(KEX_SOURCE_DIR) + "/configs/schema/results.schema.json") ==
        std::vector<std::string>{"valid"});
  const ShellOut sum = shell(kKex + " summary " + (d / "r.json"));
  CHECK(sum.status == 0);
  CHECK(sum.text.find("copy (warm)") != std::string::npos);

  // A config names it among its baselines (its competitors), on a stream.
  std::ofstream(d / "c.json") << R"({"baselines": [")" + kGiven + R"(", "rep_movsb"], "streams": ["Memcpy_3"],
                                     "footprint": "L1", "protocol": {"repetitions": 2}})";
  const ShellOut s = shell(kKex + " run " + (d / "c.json") + " -o " + (d / "s.json"));
  INFO(s.text);
  REQUIRE(s.status == 0);
  const auto sdoc = nlohmann::json::parse(slurp(d / "s.json"));
  size_t on_stream = 0;
  for (const auto& e : sdoc["benchmarks"])
    if (e["kind"] == "dispatch" && e["params"]["stream"] == "Memcpy_3" && !e.value("error_occurred", false)) ++on_stream;
  CHECK(on_stream == 1);
}

TEST_CASE("a bad dispatch name is refused in one line, on the command line and in a config" * doctest::test_suite("cli")) {
  TmpDir d;
  const ShellOut mixed = shell(kKex + " run 'dispatch:64:copy/sse,rep_stosb' --sizes 64 -o " + (d / "r.json"));
  CHECK(mixed.status == 2);
  CHECK(mixed.text == "kex: dispatch:64:copy/sse,rep_stosb: not a config file and not a kernel name: 'rep_stosb': every "
                      "member has the first's op (copy)\n");
  std::ofstream(d / "c.json") << R"({"baselines": ["dispatch:64:copy/sse,asm/mine"], "sizes": [64]})";
  const ShellOut loaded = shell(kKex + " run " + (d / "c.json") + " -o " + (d / "r.json"));
  CHECK(loaded.status == 2);
  CHECK(line_count(loaded.text) == 1);
  CHECK(loaded.text.find("/baselines/0: \"dispatch:64:copy/sse,asm/mine\": 'asm/mine': a member is a kex spec name") !=
        std::string::npos);
  CHECK(!std::ifstream(d / "r.json").good());
}
