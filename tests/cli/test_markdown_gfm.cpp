// kex summary / compare --format markdown on a results file whose free text (host name,
// CPU model, a skip reason) holds what GitHub turns into links, mentions and references:
// rendered by cmark-gfm, the page shows the text and nothing it did not earn.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/gfm_check.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

const std::string kGfmPayload =
    "https://evil.example/login www.evil.example <https://evil.example/x> admin@evil.example @octocat "
    "@github/security #1 GH-2 &#60;b&#62;";
/// A skip reason the summary shows whole (it clips at 90 columns).
const std::string kSkip = "@octocat #1 GH-2 admin@evil.example www.evil.example https://evil.example &#60;";

}  // namespace

TEST_CASE("kex summary and compare --format markdown: file text renders under GFM as the literal text" *
          doctest::test_suite("cli")) {
  TmpDir d;
  nlohmann::json doc = nlohmann::json::parse(slurp(std::string(KEX_SOURCE_DIR) + "/tests/golden/run.json"));
  doc["context"]["host_name"] = kGfmPayload;
  doc["context"]["machine"]["cpu_model"] = "cc @octocat";
  for (auto& b : doc["benchmarks"])
    if (b.contains("skip_message")) b["skip_message"] = kSkip;
  std::ofstream(d / "h.json") << doc.dump();
  const std::string golden = std::string(KEX_SOURCE_DIR) + "/tests/golden/run.json";
  for (const auto& [cmd, text] : {std::pair{"summary " + d / "h.json", kSkip},
                                  std::pair{"compare " + golden + " " + d / "h.json", kGfmPayload}}) {
    CAPTURE(cmd);
    const ShellOut r = shell_stdout(kKex + " " + cmd + " --format markdown");
    REQUIRE(r.status == 0);
    CHECK(r.text.find("evil.example") != std::string::npos);  // the text is there at all
    const std::string html = gfm::render(r.text);
    REQUIRE(html.find("<table>") != std::string::npos);
    CHECK(gfm::unearned(html) == "");
    CHECK(gfm::seen_text(html).find(text) != std::string::npos);
  }
}
