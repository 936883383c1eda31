#include <doctest/doctest.h>

#include <cstdio>
#include <regex>
#include <string>

#include "src/core/version.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {
/// Runs a shell command line; returns its stdout with the trailing newline removed.
std::string capture(const std::string& cmd) {
  std::string out = shell_stdout(cmd).text;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}
}  // namespace

TEST_CASE("the version line names the release, a real commit of this checkout and the build type" * doctest::test_suite("version")) {
  CHECK(kex_version() == KEX_VERSION);
  CHECK(kex_build_type() == KEX_TEST_BUILD_TYPE);
  const std::string commit(kex_git_commit());
  const bool is_git = capture(std::string("git -C ") + KEX_SOURCE_DIR + " rev-parse --show-toplevel 2>/dev/null") != "";
  if (is_git) {
    REQUIRE(std::regex_match(commit, std::regex("[0-9a-f]{7,40}(-dirty)?")));
    const std::string hash = commit.substr(0, commit.find('-'));
    // The hash names a commit of this repository (not, say, a hash from elsewhere).
    CHECK(capture(std::string("git -C ") + KEX_SOURCE_DIR + " cat-file -t " + hash + " 2>/dev/null") == "commit");
  } else {
    CHECK(commit == "unknown");
  }
  CHECK(kex_version_line() == "kex " + std::string(KEX_VERSION) + " (git " + commit + ", " + KEX_TEST_BUILD_TYPE + ")");
  CHECK(capture(std::string(KEX_BINARY) + " --version") == kex_version_line());
}

TEST_CASE("outside a git checkout (a tarball) the commit is unknown" * doctest::test_suite("version")) {
  TmpDir d;  // /tmp is not inside a checkout
  const std::string out = d / "git.cpp";
  const int rc = run_sh(std::string(KEX_CMAKE_COMMAND) + " -DSRC=" + d.path + " -DOUT=" + out +
                        " -DBUILD_TYPE=Release -P " + KEX_SOURCE_DIR + "/src/core/git_commit.cmake");
  REQUIRE(rc == 0);
  const std::string text = slurp(out);
  CHECK(text.find("kKexGitCommit[] = \"unknown\"") != std::string::npos);
  CHECK(text.find("kKexBuildType[] = \"Release\"") != std::string::npos);
  // In a fresh repository with one commit the hash is that commit's.
  REQUIRE(run_sh("cd " + d.path + " && git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x") == 0);
  REQUIRE(run_sh(std::string(KEX_CMAKE_COMMAND) + " -DSRC=" + d.path + " -DOUT=" + out + " -DBUILD_TYPE=Debug -P " +
                 KEX_SOURCE_DIR + "/src/core/git_commit.cmake") == 0);
  const std::string head = capture("git -C " + d.path + " rev-parse --short HEAD");
  CHECK(slurp(out).find("kKexGitCommit[] = \"" + head + "\"") != std::string::npos);
}
