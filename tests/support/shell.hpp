// Running a shell command from a test: its exit status and stdout+stderr.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

/// The exit status (128 + signal when killed by one) and stdout+stderr of `cmd` run by sh.
struct ShellOut {
  int status = 0;
  std::string text;
};

inline ShellOut shell(const std::string& cmd) {
  ShellOut r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {127, "popen failed"};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.text.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}
