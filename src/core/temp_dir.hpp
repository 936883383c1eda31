// A private folder for files kex makes and throws away (a test program and what it is
// built from): made with mkdtemp in $TMPDIR (or /tmp), mode 0700, removed with everything
// in it when its owner goes.
#pragma once
#include <string>

namespace kex {

/// A fresh folder "PREFIX-XXXXXX" in $TMPDIR (or /tmp), its path absolute, removed with
/// its contents when destroyed (by the process that made it only, not by a forked child).
/// Throws InputError naming the folder it could not make.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// The folder's path.
  const std::string& path() const { return path_; }
  /// The path of `name` in it.
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  int owner_ = 0;
};

}  // namespace kex
