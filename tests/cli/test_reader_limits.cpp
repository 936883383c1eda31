// Results files from elsewhere that are too big for kex's readers: a free-text field
// past its limit is one line naming the file, the field and the limit, exit status 2,
// at once (no gnuplot, no page).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "tests/support/shell.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("kex plot and report refuse a 2 MB host name at once, naming its path and the limit" *
          doctest::test_suite("cli")) {
  TmpDir d;
  nlohmann::json doc = synth::results();
  doc["context"]["host_name"] = std::string(2'000'000, 'H');
  spit(d / "big.json", doc.dump());
  for (const std::string cmd : {"plot " + d / "big.json" + " -o " + d / "p", "report " + d / "big.json" + " -o " +
                                                                                  d / "big.html"}) {
    CAPTURE(cmd);
    const auto t0 = std::chrono::steady_clock::now();
    const ShellOut r = shell(kKex + " " + cmd);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    CHECK(r.status == 2);
    CHECK(r.text.rfind("kex: " + d / "big.json" + ": context/host_name: \"HHHH", 0) == 0);
    CHECK(r.text.find("...: longer than 4096 bytes\n") != std::string::npos);
    CHECK(r.text.size() < 300);
  }
  CHECK(shell("test -e " + d / "big.html").status != 0);
}
