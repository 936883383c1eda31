// Text into the HTML page (src/results/html_text.*): html_text and markdown_html.
#include <doctest/doctest.h>

#include "src/results/html_text.hpp"
#include "src/results/markdown.hpp"

using namespace kex;

TEST_CASE("html_text: markup, quotes, backticks and control characters from a file come out as text" *
          doctest::test_suite("html")) {
  CHECK(html_text("plain copy/avx/unroll:128") == "plain copy/avx/unroll:128");
  CHECK(html_text("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
  CHECK(html_text("a\" onload=\"x' `touch pwned` &amp;") ==
        "a&quot; onload=&quot;x&#39; &#96;touch pwned&#96; &amp;amp;");
  CHECK(html_text("<!-- c -->") == "&lt;!-- c --&gt;");
  // Control characters as terminal_text shows them; the newline stays; invalid UTF-8 escaped.
  CHECK(html_text("red\x1b[31m\rx\nnext\tcol") == "red\\x1b[31m\\rx\nnext\tcol");
  CHECK(html_text(std::string("a\0b\xff", 4)) == "a\\x00b\\xff");
  CHECK(html_text("Zürich") == "Zürich");
}

TEST_CASE("markdown_html: kex's tables and paragraphs as HTML, each cell escaped" * doctest::test_suite("html")) {
  const std::string md = "**copy (warm)**\n\n" +
                         md_table({"size", "fastest kernel"}, "rl",
                                  {{"4 KiB", md_text("a|<b>`x`*y*")}, {"1 MiB", md_text("memcpy\\")}}) +
                         "\nnote one\nand two\n\n**A:** " + md_text("a<i>.json") + "  \n**B:** b.json\n";
  CHECK(markdown_html(md) ==
        "<p><strong>copy (warm)</strong></p>\n"
        "<table>\n<thead><tr><th class=\"r\">size</th><th>fastest kernel</th></tr>\n</thead>\n<tbody>\n"
        "<tr><td class=\"r\">4 KiB</td><td>a|&lt;b&gt;&#96;x&#96;*y*</td></tr>\n"
        "<tr><td class=\"r\">1 MiB</td><td>memcpy\\</td></tr>\n</tbody>\n</table>\n"
        "<p>note one\nand two</p>\n"
        "<p><strong>A:</strong> a&lt;i&gt;.json<br>\n<strong>B:</strong> b.json</p>\n");
  CHECK(markdown_html("") == "");
  // A cell with a newline stays in its row (md_text wrote it as \n).
  CHECK(markdown_html(md_table({"h"}, "l", {{md_text("x\ny")}})).find("<td>x\\ny</td>") != std::string::npos);
}
