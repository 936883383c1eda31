#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "src/results/html_text.hpp"
#include "src/results/markdown.hpp"
#include "tests/support/gfm_check.hpp"

using namespace kex;

namespace {

const std::string J = "\u2060";  // md_text's word joiner

/// Text from results files that GitHub would turn into links, mentions, references or
/// entities if md_text only escaped Markdown syntax.
const std::vector<std::string> kHostileText = {
    "https://evil.example/login", "see www.evil.example now", "<https://evil.example/x>", "admin@evil.example",
    "hi @octocat", "@github/security", "fixes #1", "GH-2", "&#60;script&#62;", "xmpp:a@b.example mailto:x@y.example",
    "HTTPS://A.EXAMPLE", "ftp://files.example", "WWW.EVIL.EXAMPLE", "(@octocat)", "x_@octocat", ".@octocat",
    "a@b.c", "a@-b.example", "a@_b.example", "a@.b.example", "a \\@octocat \\#3 https\\://x.example",
    "a\u2060@octocat", "host\u202egnp.exe"};

}  // namespace

TEST_CASE("md_text: a word joiner where GitHub would start a link, mention or reference, kex's names untouched" *
          doctest::test_suite("text")) {
  CHECK(md_text("https://evil.example/login") == "https:" + J + "//evil.example/login");
  CHECK(md_text("www.evil.example") == "ww" + J + "w.evil.example");  // "www..." after a clip links too
  CHECK(md_text("WwW.x wwww.y") == "Ww" + J + "W.x ww" + J + "w" + J + "w.y");
  // Whatever follows: a clip of "wwwX..." to "www..." must not link either (a breaker's finding).
  CHECK(md_text("aaa wwwX") == "aaa ww" + J + "wX");
  // Commits (a SHA, USER@SHA, OWNER/REPO@SHA) and emoji shortcodes, which GitHub links or draws.
  CHECK(md_text("owner/repo@abc1234") == "owner/repo@a" + J + "bc1234");
  CHECK(md_text("a5c3785ed8d6a35868bc169f07e40e889087fd2e") == "a" + J + "5c3785ed8d6a35868bc169f07e40e889087fd2e");
  CHECK(md_text(":octocat: :+1:") == ":" + J + "octocat: :" + J + "+1:");
  CHECK(md_text("<https://x.example>") == "\\<https:" + J + "//x.example\\>");
  CHECK(md_text("admin@evil.example") == "admin@" + J + "evil.example");
  CHECK(md_text("@octocat") == "@" + J + "octocat");
  CHECK(md_text("@github/security") == "@" + J + "github/security");
  CHECK(md_text("a@-b.example") == "a@" + J + "-b.example");  // cmark-gfm links a domain starting with - _ or .
  CHECK(md_text("#1") == "#" + J + "1");
  CHECK(md_text("GH-12 gh-3") == "GH" + J + "-12 gh" + J + "-3");
  CHECK(md_text("&#60;") == "\\&#" + J + "60;");
  // A joiner from the file is shown as its escape, so every raw one in the output is md_text's.
  CHECK(md_text("a\u2060b\u200bc") == "a\\\\u2060b\\\\u200bc");
  // kex's own names and words get none: '@' inside a name is no mention and no email.
  for (const char* name : {"copy/avx/unroll:128/scratch:4/t/fwd", "copy/sse/block:4096@bwd/t/fwd",
                           "copy/sse/unroll:64/pf:nta@256/t/fwd", "memset/fill:0xaa", "GHz", "# of", "a #",
                           "copy/avx/unroll:128/scratch:4/t/fwd/4096/src:1/dist:4160", "18446744073709551615", "12:30"})
    CHECK(md_text(name) == name);
}

TEST_CASE("md_text: rendered by cmark-gfm, hostile text is only text, the file's exactly" * doctest::test_suite("text")) {
  std::vector<std::vector<std::string>> rows;
  std::string para;
  for (const std::string& t : kHostileText) {
    rows.push_back({md_text(t), "1"});
    para += "**" + md_text(t) + "**  \n";
  }
  const std::string md = md_table({"kernel", "GB/s"}, "lr", rows) + "\n" + para;
  const std::string html = gfm::render(md);
  REQUIRE(html.find("<table>") != std::string::npos);  // cmark-gfm ran (make test installs it)
  CHECK(gfm::unearned(html) == "");
  const std::string seen = gfm::seen_text(html);
  for (const std::string& t : kHostileText) {
    CAPTURE(t);
    const std::string shown = t == "a\u2060@octocat" ? "a\\u2060@octocat"
                              : t == "host\u202egnp.exe" ? "host\\u202egnp.exe"
                                                          : t;
    CHECK(seen.find(shown) != std::string::npos);
  }
  // The report's reading of the same Markdown: the text, no joiner, nothing but kex's elements.
  const std::string page = markdown_html(md);
  CHECK(page.find(J) == std::string::npos);
  CHECK(page.find("https://evil.example/login") != std::string::npos);
  CHECK(page.find("@octocat") != std::string::npos);
  CHECK(page.find("&amp;#60;script&amp;#62;") != std::string::npos);
}

TEST_CASE("the GFM check finds what it looks for (a check that cannot fail proves nothing)" * doctest::test_suite("text")) {
  CHECK(gfm::unearned(gfm::render("see https://evil.example/login")).find("an element <a>") == 0);
  CHECK(gfm::unearned(gfm::render("hi @octocat")).find("a mention") == 0);
  CHECK(gfm::unearned(gfm::render("fixes #1")).find("a reference") == 0);
  CHECK(gfm::seen_text(gfm::render("x &#60; y")) == "x < y\n");  // the entity decoded: the text is not the file's
  CHECK(gfm::unearned(gfm::render("a \\@octocat")).find("a mention") == 0);  // a backslash does not stop GitHub
}
