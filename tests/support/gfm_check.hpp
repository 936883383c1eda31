// Markdown kex wrote, rendered by a GitHub Flavored Markdown renderer (Debian's cmark-gfm
// with GitHub's extensions), and what in the page a results file's text did not earn:
// a link (<a>, autolinks of URLs, www. and emails), an element, a character entity, or
// text GitHub turns into a mention (@name, @org/team) or a reference (#1, GH-1) after
// rendering. For the Markdown tests (md_text, kex summary / compare --format markdown).
#pragma once
#include <regex>
#include <string>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace gfm {

/// cmark-gfm's HTML of `markdown` (tables, autolinks, strikethrough, tag filter), or
/// "cmark-gfm failed: ..." (make test installs it: the Makefile's DEBS).
inline std::string render(const std::string& markdown) {
  TmpDir d;
  {
    std::ofstream(d / "in.md", std::ios::binary) << markdown;
  }
  const ShellOut r = shell_stdout("cmark-gfm -e table -e autolink -e strikethrough -e tagfilter " + d / "in.md" +
                                  " 2>&1");
  return r.status == 0 ? r.text : "cmark-gfm failed: " + std::to_string(r.status) + ": " + r.text;
}

/// What in `html` (cmark-gfm's page of kex's Markdown) no kex writer puts there: "" when
/// nothing, else the first such thing. kex's own elements are p, strong, br, the
/// answer's list (ul, li) and the table's; its own entities &amp; &lt; &gt; &quot; stand for the file's characters.
inline std::string unearned(const std::string& html) {
  static const std::regex tag("<(/?)([a-zA-Z][a-zA-Z0-9]*)");
  for (std::sregex_iterator i(html.begin(), html.end(), tag), end; i != end; ++i) {
    const std::string name = (*i)[2];
    if (name != "p" && name != "strong" && name != "br" && name != "ul" && name != "li" && name != "table" && name != "thead" && name != "tbody" &&
        name != "tr" && name != "th" && name != "td")
      return "an element <" + name + ">: " + i->str();
  }
  static const std::regex entity("&(?!amp;|lt;|gt;|quot;)[#a-zA-Z0-9]+;");
  static const std::regex mention("(^|[^A-Za-z0-9_`])@[A-Za-z0-9]");
  static const std::regex reference("(^|[^A-Za-z0-9_&])(#|GH-|gh-)[0-9]");
  static const std::regex email("[A-Za-z0-9._+-]@[A-Za-z0-9-]+\\.[A-Za-z0-9]");
  static const std::regex url("([A-Za-z]+://|www\\.)[^ <]");
  std::smatch m;
  if (std::regex_search(html, m, entity)) return "an entity: " + m.str();
  if (std::regex_search(html, m, mention)) return "a mention: " + m.str();
  if (std::regex_search(html, m, reference)) return "a reference: " + m.str();
  if (std::regex_search(html, m, email)) return "an email address GitHub links: " + m.str();
  if (std::regex_search(html, m, url)) return "a URL GitHub links: " + m.str();
  return "";
}

/// `html`'s text as a reader sees it: tags removed, kex's four entities decoded, the
/// word joiners md_text puts in (U+2060, shown as nothing) dropped.
inline std::string seen_text(const std::string& html) {
  std::string s = std::regex_replace(html, std::regex("<[^>]*>"), "");
  s = std::regex_replace(s, std::regex("\u2060"), "");
  for (const auto& [e, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
    s = std::regex_replace(s, std::regex(e), c);
  return s;
}

}  // namespace gfm
