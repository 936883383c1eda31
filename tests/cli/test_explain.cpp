// `kex explain`: a short race of a kernel and its neighbours writes a results file with
// the kernel, its measured neighbours and the explain section, which kex summary prints.
#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("kex explain: the kernel, its neighbours and the explain section" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string out = d + "/e.json";
  const auto r = shell_stdout(kKex + " explain -q copy/sse/unroll:64 --sizes 4KiB --repetitions 3 -o " + out +
                              " 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const auto doc = nlohmann::json::parse(slurp(out));
  std::set<std::string> names;
  for (const auto& e : doc["benchmarks"]) names.insert(e["name"].get<std::string>());
  for (const char* n : {"copy/sse/unroll:64/scratch:4/t/fwd/4096", "copy/sse/unroll:64/scratch:4/nt/fwd/4096",
                        "copy/sse/unroll:128/scratch:4/t/fwd/4096", "copy/sse/unroll:64/scratch:4/t/bwd/4096",
                        "copy/gpr/unroll:64/scratch:4/t/fwd/4096", "memcpy/4096"})
    CHECK_MESSAGE(names.count(n) == 1, n);
  const auto& ex = doc["context"]["explain"];
  CHECK(ex["rounds"] == 3);
  REQUIRE(ex["points"].size() == 1);
  CHECK(ex["points"][0]["kernel"] == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK(ex["points"][0]["size"] == 4096);
  CHECK(ex["points"][0]["effects"].size() == 9);
  size_t measured = 0;  // every neighbour but scratch 8 (more than unroll 64's 4 registers) ran in the 3 rounds
  for (const auto& e : ex["points"][0]["effects"]) measured += e["rounds"] == 3;
  CHECK(measured == 8);
  const auto v = shell("python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
                       "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " +
                       out + " " + KEX_SOURCE_DIR + "/configs/schema/results.schema.json");
  CHECK_MESSAGE(v.text.find("valid") == 0, v.text);
  // Written once only: a second run to the same file is refused, and summary prints the section.
  const auto again = shell(kKex + " explain -q copy/sse --sizes 4KiB --repetitions 3 -o " + out);
  CHECK(again.status == 2);
  const auto sum = shell_stdout(kKex + " summary " + out);
  CHECK(sum.text.find("why copy/sse/unroll:64/scratch:4/t/fwd at copy 4096 (3 rounds;") != std::string::npos);
  CHECK(sum.text.find("  store t -> nt: ") != std::string::npos);
}

TEST_CASE("kex explain: a preset or baseline has no neighbours: one line, status 2" * doctest::test_suite("cli")) {
  const auto r = shell(kKex + " explain memcpy --sizes 4KiB -o /nonexistent/x.json");
  CHECK(r.status == 2);
  CHECK(r.text.find("memcpy: not a generated kernel") != std::string::npos);
}
