#include "src/core/version.hpp"

namespace kex {

// Defined in the source that src/core/git_commit.cmake writes at every build.
extern const char kKexGitCommit[];
extern const char kKexBuildType[];

std::string_view kex_version() { return KEX_VERSION; }

std::string_view kex_git_commit() { return kKexGitCommit; }

std::string_view kex_build_type() { return kKexBuildType; }

std::string kex_version_line() {
  return "kex " + std::string(kex_version()) + " (git " + std::string(kex_git_commit()) + ", " +
         std::string(kex_build_type()) + ")";
}

}  // namespace kex
