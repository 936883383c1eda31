// A private temporary folder (src/core/temp_dir.hpp).
#include "src/core/temp_dir.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

TempDir::TempDir(const std::string& prefix) {
  const char* dir = std::getenv("TMPDIR");
  const std::string parent = dir && *dir ? dir : "/tmp";
  std::string t = parent + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(t.data()))
    throw InputError(terminal_text(parent) + ": cannot make a temporary folder there (" + errno_text(errno) + ")" +
                     limit_note(errno));
  path_ = t;
  owner_ = int(getpid());
  if (path_[0] != '/') {  // a relative TMPDIR: the path still names the folder from another working folder
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    if (!ec) path_ = (cwd / path_).string();
  }
}

TempDir::~TempDir() {
  if (int(getpid()) != owner_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // symbolic links inside are removed, never followed
}

}  // namespace kex
