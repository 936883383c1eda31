// Markdown for pasting into a pull request or an issue: table cells and text from
// results files escaped so that a hostile name cannot break a table or add markup.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// What a text command writes (--format of kex summary and kex compare): the terminal's
/// text, or GitHub Markdown for a pull request.
enum class TextFormat { text, markdown };
inline std::string_view to_string(TextFormat f) { return f == TextFormat::markdown ? "markdown" : "text"; }
inline constexpr std::array kTextFormats{TextFormat::text, TextFormat::markdown};

/// The word joiner U+2060 (shown as nothing) md_text puts where GitHub would start a
/// link, mention or reference; text from files never holds one raw (terminal_text
/// escapes it), so a reader of md_text's output (markdown_html) can drop each.
inline constexpr std::string_view kMdJoiner = "\u2060";

/// Text for a Markdown table cell or paragraph (GitHub Flavored Markdown) that renders
/// as exactly the file's text, with no element, link, mention or reference it did not
/// earn: control and invisible characters, newlines included, written as visible
/// escapes first (terminal_text: a newline becomes the two characters \n, so a cell
/// stays on its row); then a backslash before every character Markdown or a table would
/// read as syntax inside a line: \ ` * _ [ ] < > | & ~ $ (a name can open no code span,
/// emphasis, link, HTML tag, entity, strikethrough or math, and can never end its cell);
/// then kMdJoiner where GitHub would start an autolink, mention or reference, which a
/// backslash does not stop (GitHub finds mentions in the rendered text, cmark-gfm links
/// admin\@example.org): after an '@' that starts a mention (@octocat, @github/security)
/// or an email's domain, after a '#' before a letter or digit (#1), between GH and -1,
/// between ':' and "//" (https://) and inside "www." (ww, joiner, w.). A kex name gets none
/// (block:4096@fwd is no email: its domain has no '.'). For cells and text within a
/// line: kex starts no line with it.
std::string md_text(std::string_view raw);

/// A GFM table: a header row, its delimiter row and one row per item of `rows`; cells
/// are written as given (escape text from files with md_text first). `align` has one
/// character per column: 'l' left, 'r' right. Each row must have as many cells as the
/// header (a short row is padded with empty cells, extra cells are an error:
/// std::logic_error).
std::string md_table(const std::vector<std::string>& header, std::string_view align,
                     const std::vector<std::vector<std::string>>& rows);

}  // namespace kex
