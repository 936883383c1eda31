// Text into an HTML page (`kex report`): host names, CPU models, kernel names and
// messages come from results files other people wrote, so every piece of it reaches
// the page through html_text(), and kex's own Markdown (summary_markdown,
// format_comparison_markdown) through markdown_html(), which escapes each cell.
#pragma once
#include <string>
#include <string_view>

namespace kex {

/// `raw` as HTML text that can only ever be text, inside an element or a quoted
/// attribute value: first as terminal_lines writes it (control characters but the
/// newline and the tab, and invalid UTF-8, as visible escapes such as \x1b), then & < > " ' and the
/// backtick as character references (&amp; &lt; &gt; &quot; &#39; &#96;). No tag,
/// attribute, entity or comment can start in the result.
std::string html_text(std::string_view raw);

/// The Markdown kex writes (md_table tables, paragraphs, **bold** spans, a line ending
/// in two spaces as a line break; text escaped by md_text) as HTML: a table as <table>
/// with its header row in <thead> and its right-aligned columns' cells of class "r",
/// other blocks as <p> with <strong> for **...** and <br> for the line breaks. Each
/// backslash escape of md_text is undone, its word joiners (kMdJoiner) are dropped and
/// the text then goes through html_text, so the result holds no markup but these
/// elements, and the text of the file as terminal_text shows it.
std::string markdown_html(std::string_view markdown);

}  // namespace kex
