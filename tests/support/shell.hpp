// Running a shell command from a test: its exit status and output.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

/// The kex binary under test (built beside the tests).
inline const std::string kKex = KEX_BINARY;

/// The number of lines of `text` (its '\n's): a one-line error is 1.
inline size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

/// The exit status (128 + signal when killed by one) and the output of a command.
struct ShellOut {
  int status = 0;
  std::string text;
};

/// `cmd` run by sh: its stdout only (stderr goes where the test's goes, unless `cmd`
/// redirects it).
inline ShellOut shell_stdout(const std::string& cmd) {
  ShellOut r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {127, "popen failed"};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.text.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

/// `cmd` run by sh: stdout and stderr together.
inline ShellOut shell(const std::string& cmd) { return shell_stdout(cmd + " 2>&1"); }
