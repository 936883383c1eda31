#include "src/core/atomic_write.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>

#include "src/core/fd_io.hpp"
#include "src/core/error.hpp"
#include "src/core/units.hpp"
#include "src/core/limits.hpp"

namespace kex {

namespace {

constexpr const char* kTempPrefix = ".kex-";

/// The error's text, and the process limit behind it (ulimit -f, -n) when there is one.
std::string reason(int err) { return std::strerror(err ? err : EIO) + limit_note(err); }

/// 8 hex digits naming this host (FNV-1a of the host name), so a cleaner on one
/// machine never removes the temporaries of a live process on another one that
/// shares the directory.
const std::string& host_tag() {
  static const std::string tag = [] {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
    uint32_t h = 2166136261u;
    for (const char* p = name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return std::string(buf);
  }();
  return tag;
}

/// The file creation mask, read without changing it (umask(2) would race with threads).
mode_t current_umask() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "Umask:") {
      std::string v;
      f >> v;
      try {
        return static_cast<mode_t>(std::stoul(v, nullptr, 8));
      } catch (const std::exception&) {
        break;
      }
    }
    f.ignore(1 << 20, '\n');
  }
  return 022;
}

/// Short form of a long path for an error line.
std::string shown(const std::string& path) {
  return path.size() <= 80 ? path : path.substr(0, 40) + "..." + path.substr(path.size() - 30);
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The owner PID of a temporary named by make_temp_file on this host, or 0.
pid_t temp_owner(const std::string& name) {
  const std::string prefix = kTempPrefix;
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  size_t i = prefix.size(), start = i;
  long long pid = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - start < 10) pid = pid * 10 + (name[i++] - '0');
  if (i == start || pid <= 0 || pid > INT_MAX) return 0;
  const std::string rest = "-" + host_tag() + "-";
  if (name.compare(i, rest.size(), rest) != 0) return 0;
  i += rest.size();
  if (name.size() - i != 6) return 0;
  for (; i < name.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return 0;
  return static_cast<pid_t>(pid);
}

void sync_dir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);  // best effort: some file systems refuse fsync on directories
  close(fd);
}

/// Moves `from` to `to` unless `to` exists, atomically where the file system allows:
/// renameat2(RENAME_NOREPLACE); without it a hard link (which refuses an existing
/// name too) and unlink; without hard links either (e.g. vfat) a check, then
/// rename, which another writer can still race. Returns 0 or the errno (EEXIST
/// when `to` exists).
int move_noreplace(const std::string& from, const std::string& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  int err = errno;
  if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP) return err;
  if (link(from.c_str(), to.c_str()) == 0) {
    unlink(from.c_str());
    return 0;
  }
  err = errno;
  if (err != EPERM && err != EOPNOTSUPP && err != ENOSYS) return err;
  struct stat st;
  if (lstat(to.c_str(), &st) == 0) return EEXIST;
  return rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

/// `path` appeared while `tmp` was being written (another run, another user):
/// keep the new output beside it as PATH.N instead of losing it, and say so.
[[noreturn]] void refuse_existing(const std::string& tmp, const std::string& path) {
  std::string kept;
  for (int n = 1; n < 100 && kept.empty(); ++n) {
    std::string cand = path + "." + std::to_string(n);
    if (base_name(cand).size() > NAME_MAX) break;
    int err = move_noreplace(tmp, cand);
    if (err == 0) kept = cand;
    else if (err != EEXIST) break;
  }
  if (kept.empty()) unlink(tmp.c_str());
  throw InputError(shown(path) + ": exists (created by another process after kex checked it); not overwriting it (use --force)" +
                   (kept.empty() ? std::string() : "; this output is in " + shown(kept)));
}

/// Output paths check_output_path found free (without force) in this process: when
/// one exists at write time, another process took it meanwhile, and the text is
/// kept aside rather than lost (write_file_atomic).
struct CheckedFree {
  std::mutex m;
  std::set<std::string> paths;
};
CheckedFree& checked_free() {
  static CheckedFree c;
  return c;
}

}  // namespace

void check_not_an_input(const std::string& option, const std::string& out, const std::vector<std::string>& inputs) {
  struct stat o;
  if (out == "-" || ::stat(out.c_str(), &o) != 0) return;
  for (const std::string& in : inputs) {
    struct stat i;
    if (in != "-" && ::stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
      throw InputError(option, "'" + out + "' is the input " + in +
                                   " (the same file): it would be replaced; write to another path");
  }
}

std::string parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

size_t remove_stale_temps(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return 0;
  size_t removed = 0;
  const pid_t self = getpid();
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    pid_t pid = temp_owner(name);
    if (pid == 0 || pid == self) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to signal: alive)
    struct stat st;
    if (fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (unlinkat(dirfd(d), name.c_str(), 0) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

TempFile make_temp_file(const std::string& dir, const std::string& for_path) {
  remove_stale_temps(dir);
  TempFile t;
  std::string tmpl = (dir == "/" ? "" : dir) + "/" + kTempPrefix + std::to_string(getpid()) + "-" + host_tag() + "-XXXXXX";
  t.fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (t.fd < 0) {
    int err = errno;
    throw InputError(shown(for_path) + ": cannot create a file in " + shown(dir) + " (" + reason(err) + ")");
  }
  t.path = tmpl;
  // mkstemp makes 0600; the result gets the mode any new file would get.
  if (fchmod(t.fd, 0666 & ~current_umask()) != 0) {
    int err = errno;
    close(t.fd);
    unlink(t.path.c_str());
    throw InputError(shown(for_path) + ": cannot set the file mode (" + reason(err) + ")");
  }
  return t;
}

void install_file(const std::string& tmp, const std::string& path, bool force) {
  auto fail = [&](int err) {
    unlink(tmp.c_str());
    throw InputError(shown(path) + ": cannot move the file into place (" + reason(err) + ")");
  };
  if (force) {
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      unlink(tmp.c_str());
      throw InputError(shown(path) + ": not a regular file; refusing to replace it");
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
  } else if (int err = move_noreplace(tmp, path); err == EEXIST) {
    refuse_existing(tmp, path);
  } else if (err != 0) {
    fail(err);
  }
  sync_dir(parent_dir(path));
}

void check_output_path(const std::string& path, bool force, uint64_t reserve) {
  if (path.empty()) throw InputError("output path is empty");
  const std::string name = base_name(path);
  if (name.empty() || name == "." || name == "..")
    throw InputError(shown(path) + ": names a directory; give a file name");
  const std::string dir = parent_dir(path);
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(shown(path) + ": is a directory; give a file name");
    if (!S_ISREG(st.st_mode)) throw InputError(shown(path) + ": not a regular file; refusing to replace it");
    if (!force) throw InputError(shown(path) + ": exists; not overwriting it (use --force)");
  } else if (errno != ENOENT && errno != ENAMETOOLONG) {
    throw InputError(shown(path) + ": cannot be written (" + reason(errno) + ")");
  }
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(shown(path) + ": directory " + shown(dir) + " does not exist");
  long name_max = pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  if (name.size() > static_cast<size_t>(name_max))
    throw InputError(shown(path) + ": the file name is " + std::to_string(name.size()) +
                     " bytes; this file system allows at most " + std::to_string(name_max));
  // The temporary beside it is DIR/.kex-PID-HOST-XXXXXX: at most 31 bytes of name.
  if (path.size() >= PATH_MAX || dir.size() + 32 >= PATH_MAX)
    throw InputError(shown(path) + ": the path is " + std::to_string(path.size()) + " bytes; the limit is " +
                     std::to_string(PATH_MAX - 33));
  // A real probe: access(2) says yes to root on a read-only NFS export or a full quota.
  TempFile probe = make_temp_file(dir, path);
  const int room = reserve ? posix_fallocate(probe.fd, 0, off_t(reserve)) : 0;
  close(probe.fd);
  unlink(probe.path.c_str());
  // EINVAL/EOPNOTSUPP: a file system without fallocate; the write itself will tell.
  if (room != 0 && room != EINVAL && room != EOPNOTSUPP)
    throw InputError(shown(path) + ": no room for " + format_bytes(reserve) + " of output (" + reason(room) +
                     "); nothing was done");
  if (!force && lstat(path.c_str(), &st) != 0) {
    std::lock_guard<std::mutex> lock(checked_free().m);
    checked_free().paths.insert(path);
  }
}

void write_file_atomic(const std::string& path, const std::string& text, bool force) {
  try {
    check_output_path(path, force);
  } catch (const InputError&) {
    // Free when the caller checked it before its work, a regular file now: another
    // process wrote it meanwhile. Write anyway; install_file keeps the text as PATH.N.
    struct stat st;
    bool was_free;
    {
      std::lock_guard<std::mutex> lock(checked_free().m);
      was_free = checked_free().paths.count(path) > 0;
    }
    if (force || !was_free || lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) throw;
  }
  TempFile t = make_temp_file(parent_dir(path), path);
  auto fail = [&](int err) {
    close(t.fd);
    unlink(t.path.c_str());
    throw InputError(shown(path) + ": write failed (" + reason(err) + "); nothing was written");
  };
  if (!write_all(t.fd, text.data(), text.size())) fail(errno);
  if (fsync(t.fd) != 0) fail(errno);
  int rc = close(t.fd);
  if (rc != 0) {
    int err = errno;
    unlink(t.path.c_str());
    throw InputError(shown(path) + ": write failed (" + reason(err) + "); nothing was written");
  }
  install_file(t.path, path, force);
  std::lock_guard<std::mutex> lock(checked_free().m);
  checked_free().paths.erase(path);  // ours now: a second write to it is refused plainly
}

}  // namespace kex
