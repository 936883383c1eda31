#include <doctest/doctest.h>

#include <string>

#include "src/core/terminal_text.hpp"

using namespace kex;

namespace {
/// No byte a terminal obeys: no C0 control, no DEL, and valid UTF-8 without C1 controls
/// (in UTF-8 a C1 control is 0xc2 followed by 0x80..0x9f).
bool terminal_safe(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7f) return false;
    if (b == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) return false;
  }
  return terminal_text(s) == s;  // nothing left to escape: valid UTF-8 too
}
}  // namespace

TEST_CASE("terminal_text: C0 controls and DEL become visible escapes" * doctest::test_suite("text")) {
  CHECK(terminal_text("plain host-01.example") == "plain host-01.example");
  CHECK(terminal_text("a\nb") == "a\\nb");
  CHECK(terminal_text("a\tb\rc") == "a\\tb\\rc");
  CHECK(terminal_text("\x1b[2Jgone") == "\\x1b[2Jgone");
  CHECK(terminal_text(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(terminal_text("\x07\x08\x1f\x7f") == "\\x07\\x08\\x1f\\x7f");
  CHECK(terminal_text("back\\slash") == "back\\slash");  // kept: regexes in error lines stay readable
  for (int c = 0; c < 0x20; ++c) CHECK_MESSAGE(terminal_safe(terminal_text(std::string(1, char(c)))), c);
}

TEST_CASE("terminal_text: C1 controls, bidirectional controls and separators as \\u escapes" * doctest::test_suite("text")) {
  CHECK(terminal_text("\xc2\x9b"
                      "2J") == "\\u009b2J");                         // U+009B CSI
  CHECK(terminal_text("\xc2\x80\xc2\x9f") == "\\u0080\\u009f");       // the C1 range's ends
  CHECK(terminal_text("\xc2\xa0") == "\xc2\xa0");                     // U+00A0 is printable: kept
  CHECK(terminal_text("abc\xe2\x80\xae" "fed") == "abc\\u202efed");   // RIGHT-TO-LEFT OVERRIDE
  CHECK(terminal_text("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u2066x\\u2069");
  CHECK(terminal_text("\xe2\x80\xa8") == "\\u2028");                  // LINE SEPARATOR
  CHECK(terminal_text("\xd8\x9c") == "\\u061c");                      // ARABIC LETTER MARK
}

TEST_CASE("terminal_text: invisible format characters as escapes, the joiners of scripts and emoji kept" *
          doctest::test_suite("text")) {
  CHECK(terminal_text("co\u200bpy") == "co\\u200bpy");  // ZERO WIDTH SPACE: "copy" and "co?py" would look alike
  CHECK(terminal_text("\u00ad\u180e\u2060\u2064\u206f\ufeff\ufff9\ufffb") ==
        "\\u00ad\\u180e\\u2060\\u2064\\u206f\\ufeff\\ufff9\\ufffb");
  CHECK(terminal_text("a\U000e0041\U000e007f") == "a\\U000e0041\\U000e007f");  // tag characters: hidden text
  CHECK(terminal_text("\u200c\u200d") == "\u200c\u200d");                   // ZWNJ, ZWJ
  CHECK(terminal_text("\U0001f468\u200d\U0001f469") == "\U0001f468\u200d\U0001f469");  // an emoji sequence
  // Every other format character and the default-ignorable fillers (a breaker's sweep found
  // these raw): "ad\U0001D173min" showed as "admin".
  CHECK(terminal_text("ad\U0001d173min") == "ad\\U0001d173min");
  CHECK(terminal_text("\u0600\u06dd\u070f\u08e2\u034f\u115f\u17b4\u180b\u3164\ufe0f\uffa0") ==
        "\\u0600\\u06dd\\u070f\\u08e2\\u034f\\u115f\\u17b4\\u180b\\u3164\\ufe0f\\uffa0");
  CHECK(terminal_text("\U000e0100\U000110bd\U00013430\U0001bca0") ==
        "\\U000e0100\\U000110bd\\U00013430\\U0001bca0");
  // Noncharacters and private use: no font shows them as the data.
  CHECK(terminal_text("\uffff\ue000\U0001fffe\U000f0000") == "\\uffff\\ue000\\U0001fffe\\U000f0000");
}

TEST_CASE("terminal_text: valid printable UTF-8 is kept" * doctest::test_suite("text")) {
  for (const char* s : {"Nützel", "AMD Ryzen™ 9", "日本語のホスト", "Ελληνικά", "emoji 🚀", "e\xcc\x81"})
    CHECK_MESSAGE(terminal_text(s) == s, s);
}

TEST_CASE("terminal_text: every byte of invalid UTF-8 as \\x" * doctest::test_suite("text")) {
  CHECK(terminal_text("\xff") == "\\xff");
  CHECK(terminal_text("a\x80z") == "a\\x80z");                     // a stray continuation byte
  CHECK(terminal_text("\xc3") == "\\xc3");                         // truncated at the end
  CHECK(terminal_text("\xe6\x97x") == "\\xe6\\x97x");              // truncated inside
  CHECK(terminal_text("\xc0\xaf") == "\\xc0\\xaf");                // overlong '/'
  CHECK(terminal_text("\xe0\x80\x9b") == "\\xe0\\x80\\x9b");       // overlong CSI
  CHECK(terminal_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");       // a surrogate
  CHECK(terminal_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  CHECK(terminal_text("\xf8\x88\x80\x80\x80") == "\\xf8\\x88\\x80\\x80\\x80");
  CHECK(terminal_text("\xf0\x9f\x9a\x80") == "\xf0\x9f\x9a\x80");  // U+1F680 itself is fine
  // Any byte string comes out terminal-safe.
  std::string all;
  for (int b = 0; b < 256; ++b) all += char(b);
  CHECK(terminal_safe(terminal_text(all)));
  CHECK(terminal_safe(terminal_text(all + "\xc2")));
}

TEST_CASE("display_width, pad_right and clip count columns, not bytes" * doctest::test_suite("text")) {
  CHECK(display_width("") == 0);
  CHECK(display_width("copy/sse") == 8);
  CHECK(display_width("Nützel") == 6);
  CHECK(display_width("日本") == 4);
  CHECK(display_width("e\xcc\x81") == 1);  // e + COMBINING ACUTE ACCENT
  CHECK(display_width("🚀") == 2);
  CHECK(display_width("\\x1b[2J") == 7);
  CHECK(pad_right("ab", 4) == "ab  ");
  CHECK(pad_right("Nützel", 8) == "Nützel  ");
  CHECK(pad_right("日本", 6) == "日本  ");
  CHECK(pad_right("toolong", 3) == "toolong");
  CHECK(clip("short", 5) == "short");
  CHECK(clip("abcdefgh", 6) == "abc...");
  CHECK(clip("ü日本語x", 6) == "ü日...");
  CHECK(clip("ü日本語x", 5) == "ü...");      // a wide character that does not fit is left out whole
  CHECK(clip("üüüüüüü", 6) == "üüü...");     // never inside a UTF-8 sequence
  CHECK(terminal_safe(clip(terminal_text("\xc2\x9b\xc2\x9b\xc2\x9b"), 5)));
}

TEST_CASE("terminal_lines: each line escaped as terminal_text does, the line breaks kept" * doctest::test_suite("text")) {
  CHECK(terminal_lines("a\x1b[2J\nb\x07\n") == "a\\x1b[2J\nb\\x07\n");
  CHECK(terminal_lines("\xc2\x9b" "31m\rc") == "\\u009b31m\\rc");
  CHECK(terminal_lines("") == "");
}

TEST_CASE("error_line: a long message keeps its start and end, its middle left out at a character boundary" *
          doctest::test_suite("text")) {
  CHECK(error_line("config.json: /sizes: 'x': a size") == "config.json: /sizes: 'x': a size");
  CHECK(error_line("a\nb") == "a\\nb");
  const std::string value(5000, 'v');
  const std::string msg = "c.json: /sizes/0: '" + value + "': a size such as 4096 or 64KiB";
  const std::string line = error_line(msg, 200);
  CHECK(line.size() <= 200 + 40);
  CHECK(line.rfind("c.json: /sizes/0: 'vvv", 0) == 0);
  CHECK(line.find("vvv': a size such as 4096 or 64KiB") == line.size() - std::string("vvv': a size such as 4096 or 64KiB").size());
  CHECK_MESSAGE(line.find(" [... 4884 bytes left out ...] ") != std::string::npos, line);
  const std::string wide = error_line(std::string(300, 'a') + std::string(100, '\xc3') , 64);  // invalid bytes escaped first
  CHECK(terminal_safe(wide));
  const std::string umlauts = error_line(std::string(1000, 'x') + "\xc3\xbc\xc3\xbc\xc3\xbc" + std::string(1000, 'y'), 1001);
  CHECK(terminal_safe(umlauts));
}
