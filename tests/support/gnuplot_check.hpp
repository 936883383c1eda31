// What a gnuplot script kex wrote may contain, checked by scanning it as gnuplot's
// lexer would (for the plot tests and the fuzz_plot target): text from a results
// file can only have come in through gp_string()'s literals.
#pragma once
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>

namespace gpcheck {

/// "" when `gp` holds only: printable ASCII and newlines; comment lines; and outside
/// comments, code with no backtick, no '@' (a macro), no single-quoted string and no
/// '$' but a column reference ($0, $2, $(...)), whose double-quoted literals end on
/// their line and hold printable ASCII without a backtick. Otherwise what and where.
/// Also: no command word (system, eval, load, call, shell, save, cd, print, pause,
/// reread) outside literals, and no file-name literal (after `plot`, a comma, `load`
/// or `call`) starting with '<' or '|', which gnuplot would run as a command.
inline std::string script_problem(std::string_view gp) {
  size_t line = 1;
  bool in_string = false, comment = false, line_start = true;
  std::string code;  // this line's text outside literals
  auto word_problem = [&]() -> std::string {
    static const char* const words[] = {"system", "eval", "load", "call", "shell", "save", "cd", "print", "pause", "reread"};
    size_t b = 0;
    while (b < code.size()) {
      while (b < code.size() && !std::isalpha(static_cast<unsigned char>(code[b]))) ++b;
      size_t e = b;
      while (e < code.size() && (std::isalnum(static_cast<unsigned char>(code[e])) || code[e] == '_')) ++e;
      for (const char* w : words)
        if (code.compare(b, e - b, w) == 0) return std::string("the command word ") + w + " at line " + std::to_string(line);
      b = e;
    }
    return "";
  };
  for (size_t i = 0; i < gp.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(gp[i]);
    const std::string at = " at line " + std::to_string(line);
    if (c == '\n') {
      if (in_string) return "a string literal runs past the end of its line" + at;
      if (std::string w = word_problem(); !w.empty()) return w;
      code.clear();
      ++line;
      comment = false;
      line_start = true;
      continue;
    }
    if (c < 0x20 || c >= 0x7f) return "byte " + std::to_string(c) + at;
    if (c == '`') return "a backtick" + at;
    if (comment) continue;
    if (line_start && c == '#') {
      comment = true;
      continue;
    }
    if (c != ' ') line_start = false;
    if (in_string) {
      if (c == '\\') {
        if (i + 1 >= gp.size() || gp[i + 1] == '\n') return "a backslash ends a line inside a literal" + at;
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      size_t e = code.find_last_not_of(' ');
      const std::string before = e == std::string::npos ? "" : code.substr(0, e + 1);
      auto ends = [&](const char* w) {
        const size_t n = std::strlen(w);
        return before.size() >= n && before.compare(before.size() - n, n, w) == 0;
      };
      if ((ends("plot") || ends(",") || ends("load") || ends("call")) && i + 1 < gp.size() &&
          (gp[i + 1] == '<' || gp[i + 1] == '|'))
        return "a file name literal gnuplot would run as a command" + at;
      code += "\"\"";
    } else if (c == '@') return "an @ macro outside a literal" + at;
    else if (c == '\'') return "a single-quoted string" + at;
    else if (c == '$' && !(i + 1 < gp.size() && ((gp[i + 1] >= '0' && gp[i + 1] <= '9') || gp[i + 1] == '(')))
      return "a $ that is not a column reference" + at;
    else if (c == '\\' && !(i + 1 < gp.size() && gp[i + 1] == '\n')) return "a backslash outside a literal" + at;
    if (!in_string && c != '"') code += char(c);
  }
  if (std::string w = word_problem(); !w.empty()) return w;
  return in_string ? "an unterminated literal" : "";
}

/// "" when a data file has no control byte but the newline (its text cannot forge a row).
inline std::string data_problem(std::string_view dat) {
  size_t line = 1;
  for (unsigned char c : dat) {
    if (c == '\n') ++line;
    else if (c < 0x20 || c == 0x7f) return "control byte " + std::to_string(c) + " at line " + std::to_string(line);
  }
  return "";
}

}  // namespace gpcheck
