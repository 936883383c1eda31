// Text into gnuplot files. Host names, CPU models, kernel names, labels and file
// names come from results files other people wrote, and gnuplot runs `...` inside
// double-quoted strings (and @macros outside them): text reaches a `.gp` script only
// through gp_string(), a `#` comment only through gp_comment(), and a `.dat` data
// file only through dat_string() / dat_comment() (the README: results files come from
// other people, so kex reads them as data, never as instructions).
#pragma once
#include <string>
#include <string_view>

namespace kex {

/// A gnuplot double-quoted string literal holding exactly `text`: letters, digits,
/// blanks and the punctuation `_-.,:;/()[]{}+=%<>*'!?~^|&@#` stay as they are (gnuplot
/// expands no @macro inside quotes); every other byte (backtick, $, quote, backslash,
/// control characters, bytes of UTF-8 sequences) is written as a three-digit octal
/// escape (\140 for a backtick), which gnuplot turns back into the byte after it has
/// scanned the line. The result contains no backtick, $, newline or byte >= 0x80,
/// and no quote or backslash but its own, whatever `text` holds.
std::string gp_string(std::string_view text);

/// gp_string() of text a figure shows (a title, a key entry, a label, a tic): each line
/// (the text split at its newlines) as a terminal shows it (terminal_text: control
/// characters, C1 and bidirectional controls and invalid UTF-8 as visible escapes), so no
/// control byte from a results file reaches gnuplot's SVG (where it is not XML) or PNG.
/// File names go through gp_string, which keeps every byte.
std::string gp_label(std::string_view text);

/// `text` for the rest of a `#` comment line of a script or a data file: printable
/// ASCII kept, a backtick and every control character or byte >= 0x80 as '?', so it
/// can neither end the comment nor be mistaken for code.
std::string gp_comment(std::string_view text);

/// A double-quoted string column of a `.dat` file (a bar label read with ytic()):
/// the text as terminal_text shows it (control, bidirectional and invisible characters
/// as visible escapes: a newline would forge a row, a U+202E reorder the figure's
/// label), a double quote as ', other UTF-8 kept (gnuplot reads data files without
/// substitutions).
std::string dat_string(std::string_view text);

/// The head of every figure's script: PNG (pngcairo) by default or SVG with -e 'fmt="svg"',
/// `w` x `h` pixels, into `base`.png/.svg (or -e 'out="..."'), UTF-8 text. `base` is kex's
/// own file stem (it goes through gp_string).
std::string gp_terminal(const std::string& base, int w, int h);

/// A number for a .dat file or a script: %.6g.
std::string gp_number(double v);

/// A file name's part from kex's own name of a kernel or condition: letters and digits
/// kept, every run of other characters one '-', at most `most` bytes.
std::string file_stem(const std::string& name, size_t most = 96);

/// The number of line colours gp_color cycles through.
constexpr size_t kGpColors = 12;

/// The line colour of curve or run `i` (kGpColors of them, then again), as "#rrggbb".
const char* gp_color(size_t i);

}  // namespace kex
