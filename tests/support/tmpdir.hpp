// A fresh temporary directory per test, removed at the end, and a helper to run the kex binary.
#pragma once
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

struct TmpDir {
  std::string path;
  pid_t owner = ::getpid();  ///< only the process that made it removes it (not a forked child that exits)
  TmpDir() {
    char tmpl[] = "/tmp/kex-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  TmpDir(const TmpDir&) = delete;
  TmpDir& operator=(const TmpDir&) = delete;
  ~TmpDir() {
    if (::getpid() == owner) std::filesystem::remove_all(path);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

/// A fresh directory that lives until the test program ends (for helpers that return a path).
inline std::string tmp_dir_until_exit() {
  static std::deque<TmpDir> dirs;  // a deque never moves its elements
  return dirs.emplace_back().path;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The names of the entries of directory `dir` (not recursive).
inline std::set<std::string> dir_entries(const std::string& dir) {
  std::set<std::string> s;
  for (auto& e : std::filesystem::directory_iterator(dir)) s.insert(e.path().filename().string());
  return s;
}

inline void spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

/// Runs a shell command line; returns its exit status (stdout/stderr as the line redirects them).
inline int run_sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
