// Text from a file (a results file's host name, CPU model, kernel and point names,
// messages, a file name) made safe for a terminal, and the columns it takes there:
// results files come from other people, and a control character in a name must not
// clear the screen, move the cursor or forge a table row.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace kex {

/// `bytes` with everything a terminal would obey or cannot show written as a visible
/// escape: C0 controls and DEL as \n, \t, \r or \xHH (\x1b, \x7f); the C1 controls
/// U+0080-U+009F, the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
/// U+2066-U+2069), U+2028/U+2029 and the invisible format characters (U+00AD, U+180E,
/// U+200B, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB; not the joiners U+200C/U+200D) as
/// \uHHHH (\u009b, \u202e), the tag characters U+E0000-U+E007F as \UHHHHHHHH; every
/// byte that is not part of valid UTF-8 (a stray continuation byte, a truncated,
/// overlong or surrogate sequence, beyond U+10FFFF) as \xHH (\xff). Valid printable
/// UTF-8 is kept as it is, and so is a backslash. The result is valid UTF-8 without
/// control or invisible format characters.
std::string terminal_text(std::string_view bytes);

/// Multi-line text (a table kex formatted from a file's strings) with each line as
/// terminal_text writes it, the '\n' between lines kept.
std::string terminal_lines(std::string_view text);

/// The columns a terminal gives `text` (valid UTF-8 as terminal_text returns it): 2 per
/// East Asian wide or fullwidth character and emoji, 0 per mark of the common combining
/// blocks, variation selector or zero-width character, 1 for every other character
/// (and any invalid byte).
size_t display_width(std::string_view text);

/// `text` followed by spaces up to `width` columns (as printf's "%-*s" pads ASCII); as
/// it is when already that wide or wider.
std::string pad_right(std::string_view text, size_t width);

/// `text` as it is when at most `width` columns wide; else cut at a character boundary
/// so that it and a trailing "..." take at most `width` columns (`width` >= 3).
std::string clip(std::string_view text, size_t width);

/// An error message as one terminal line: terminal_text of `message`, and when that is
/// longer than `max_bytes` (a 5000-character value echoed back), its middle left out at
/// character boundaries, "[... N bytes left out ...]" in its place, so that the start
/// (where) and the end (what is allowed) stay. `max_bytes` >= 64.
std::string error_line(std::string_view message, size_t max_bytes = 600);

}  // namespace kex
