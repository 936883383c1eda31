// Every command with inputs and -o refuses an output that is one of its inputs, even
// with --force (src/core/atomic_write.hpp, check_not_an_input): the input is kept.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/shell.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("report, emit, export, merge and tune refuse -o naming an input, even with --force" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string r = d + "/r.json";
  const std::string results = synth::results().dump();
  spit(r, results);
  spit(d + "/space.json", R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "gpr"}]})");
  const std::string same = "' is the input ";
  for (const std::string& args :
       {"report " + r + " -o " + r, "report " + r + " -o " + d + "/./r.json --no-figures",
        "emit copy/gpr --format c --results " + r + " -o " + r, "emit --format c --tune " + r + " -o " + r,
        "export " + r + " --format csv -o " + r, "merge " + r + " " + r + " -o " + r,
        "tune " + d + "/space.json -o " + d + "/space.json"}) {
    CAPTURE(args);
    const auto out = shell(kKex + " " + args + " --force");
    CHECK(out.status == 2);
    CHECK(out.text.find("kex: -o: '") == 0);
    CHECK(out.text.find(same) != std::string::npos);
    CHECK(out.text.find("(the same file): it would be replaced; write to another path\n") != std::string::npos);
  }
  CHECK(slurp(r) == results);
  CHECK(slurp(d + "/space.json").find("\"sizes\"") == 1);
}

TEST_CASE("kex run refuses -o naming its config, and a report beside it that would replace a config" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string config = R"({"sizes": [4096], "baselines": ["memcpy"]})";
  spit(d + "/c.json", config);
  const auto out = shell(kKex + " run " + d + "/c.json -o " + d + "/c.json --force");
  CHECK(out.status == 2);
  CHECK(out.text == "kex: -o: '" + d + "/c.json' is the input " + d +
                        "/c.json (the same file): it would be replaced; write to another path\n");
  // The report goes beside the results as STEM.html: a config of that name is kept too.
  spit(d + "/r.html", config);
  const auto beside = shell(kKex + " run " + d + "/r.html -o " + d + "/r.json --force");
  CHECK(beside.status == 2);
  CHECK(beside.text.find("kex: -o (the report beside it): '" + d + "/r.html' is the input ") == 0);
  CHECK(slurp(d + "/c.json") == config);
  CHECK(slurp(d + "/r.html") == config);
  CHECK(shell("test -e " + d + "/r.json").status != 0);
}
