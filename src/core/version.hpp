// What build of kex this is: the release number, the git commit it was built
// from and the CMake build type. `kex --version` prints them and results carry them.
#pragma once
#include <string>
#include <string_view>

namespace kex {

/// The release number from CMakeLists.txt's project(VERSION), e.g. "0.1.0".
std::string_view kex_version();

/// `git describe --always --dirty` of the source tree at build time, e.g. "91b1c8c"
/// or "91b1c8c-dirty" (uncommitted edits to tracked files); "unknown" when the
/// sources are not a git checkout (a tarball) or git is missing.
std::string_view kex_git_commit();

/// CMAKE_BUILD_TYPE of this build, e.g. "RelWithDebInfo"; "unknown" when none was set.
std::string_view kex_build_type();

/// The one line `kex --version` prints: "kex 0.1.0 (git 91b1c8c, RelWithDebInfo)".
std::string kex_version_line();

}  // namespace kex
