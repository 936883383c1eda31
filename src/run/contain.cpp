#include "src/run/contain.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "src/run/piped_fork.hpp"

namespace kex {

namespace {

/// The fields of one /proc/self/mountinfo line that say where a cgroup hierarchy is mounted.
struct CgroupMount {
  std::string root, point, type, options;
};

/// Every cgroup and cgroup2 mount of this process's namespace.
std::vector<CgroupMount> cgroup_mounts() {
  std::vector<CgroupMount> out;
  std::ifstream f("/proc/self/mountinfo");
  std::string line;
  while (std::getline(f, line)) {
    // "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS"
    std::istringstream in(line);
    std::string id, parent, dev, root, point, opts, word;
    in >> id >> parent >> dev >> root >> point >> opts;
    while (in >> word && word != "-") {
    }
    CgroupMount m{root, point, "", ""};
    std::string source;
    in >> m.type >> source >> m.options;
    if (m.type == "cgroup" || m.type == "cgroup2") out.push_back(m);
  }
  return out;
}

bool has_word(const std::string& list, const std::string& word, char sep) {
  std::istringstream in(list);
  std::string w;
  while (std::getline(in, w, sep))
    if (w == word) return true;
  return false;
}

/// The mount's directory of `path` (a cgroup path as /proc/self/cgroup gives it); "" when
/// the path lies outside what is mounted.
std::string mounted_dir(const CgroupMount& m, const std::string& path) {
  if (m.root == "/") return m.point + (path == "/" ? "" : path);
  if (path.rfind(m.root, 0) != 0) return "";
  return m.point + path.substr(m.root.size());
}

/// This process's cgroup path in the v1 hierarchy with `controller`, or ("0::") in v2.
std::string own_cgroup(const std::string& controller) {
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (controller.empty() ? line.rfind("0::", 0) == 0 : has_word(controllers, controller, ','))
      return line.substr(b + 1);
  }
  return "";
}

std::string cgroup_file_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

bool write_text(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
  close(fd);
  return ok;
}

/// Where kex can make pids cgroups: v1's pids hierarchy (under its own cgroup there), else
/// v2 where its own cgroup hands the pids controller to its children.
std::string find_pids_parent() {
  for (const CgroupMount& m : cgroup_mounts()) {
    if (m.type == "cgroup" && has_word(m.options, "pids", ',')) {
      const std::string dir = mounted_dir(m, own_cgroup("pids"));
      if (!dir.empty() && access(dir.c_str(), W_OK) == 0) return dir;
    }
  }
  for (const CgroupMount& m : cgroup_mounts()) {
    if (m.type != "cgroup2") continue;
    const std::string dir = mounted_dir(m, own_cgroup(""));
    if (!dir.empty() && has_word(cgroup_file_line(dir + "/cgroup.subtree_control"), "pids", ' ') &&
        access(dir.c_str(), W_OK) == 0)
      return dir;
  }
  return "";
}

/// Removes the empty cgroups a kex killed with SIGKILL left in `parent` ("kex-PID-N" whose
/// PID is gone); rmdir refuses one that still holds a process.
void remove_stale(const std::string& parent) {
  DIR* d = opendir(parent.c_str());
  if (!d) return;
  while (const dirent* e = readdir(d)) {
    unsigned long pid = 0;
    unsigned n = 0;
    char tail = 0;
    if (std::sscanf(e->d_name, "kex-%lu-%u%c", &pid, &n, &tail) != 2 || pid == 0) continue;
    if (kill(pid_t(pid), 0) != 0 && errno == ESRCH) rmdir((parent + "/" + e->d_name).c_str());
  }
  closedir(d);
}

std::atomic<unsigned> g_cgroups{0};

}  // namespace

const std::string& pids_cgroup_parent() {
  static const std::string parent = [] {
    std::string p = find_pids_parent();
    if (!p.empty()) remove_stale(p);
    return p;
  }();
  return parent;
}

PidsCgroup::PidsCgroup(unsigned max_tasks) {
  const std::string& parent = pids_cgroup_parent();
  if (parent.empty()) return;
  const std::string dir = parent + "/kex-" + std::to_string(getpid()) + "-" + std::to_string(g_cgroups++);
  if (mkdir(dir.c_str(), 0755) != 0) return;
  if (!write_text(dir + "/pids.max", std::to_string(max_tasks))) {
    rmdir(dir.c_str());
    return;
  }
  dir_ = dir;
  owner_ = getpid();
}

PidsCgroup::~PidsCgroup() {
  if (dir_.empty() || getpid() != owner_) return;
  // A killed process leaves its cgroup as it exits: a few tries, then it is left behind empty.
  for (int i = 0; i < 100; ++i) {
    if (rmdir(dir_.c_str()) == 0 || errno != EBUSY) return;
    kill_all();
    usleep(10000);
  }
}

void PidsCgroup::join() const noexcept {
  if (!dir_.empty()) write_text(dir_ + "/cgroup.procs", std::to_string(getpid()));
}

void PidsCgroup::kill_all() const noexcept {
  if (dir_.empty()) return;
  if (write_text(dir_ + "/cgroup.kill", "1")) return;  // v2 since Linux 5.14: the whole cgroup at once
  for (int pass = 0; pass < 50; ++pass) {
    std::ifstream procs(dir_ + "/cgroup.procs");
    pid_t p = 0;
    bool any = false;
    while (procs >> p) {
      kill(p, SIGKILL);
      any = true;
    }
    if (!any) return;
    usleep(1000);
  }
}

void Deadline::in(double seconds) {
  at = std::chrono::steady_clock::now() +
       std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

namespace {

/// In the child, before anything else runs: its group, its cgroup, death with kex, no
/// core and no file written, stdin from /dev/null and stdout onto stderr (what the code
/// prints never lands in kex's output, `-o -`), no other descriptor but `keep` and those
/// in `kept` (the caller's ContainedChild's `keep_open`).
void hold_self(const PidsCgroup& cg, pid_t parent, int keep, std::vector<int> kept) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(126);  // kex died before the line above
  cg.join();
  const rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  setrlimit(RLIMIT_FSIZE, &none);
  if (keep > 2) {  // (a pipe on 0..2: kex was started with a standard stream closed; left as it is)
    if (const int null = open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
      dup2(null, 0);
      if (null != 0) close(null);
    }
    dup2(2, 1);
  }
  kept.push_back(keep);  // (may allocate: the child is kex's own code still, single-threaded)
  std::sort(kept.begin(), kept.end());
  unsigned from = 3;
  for (int fd : kept) {
    if (fd < int(from)) continue;
    if (unsigned(fd) > from) close_range(from, unsigned(fd) - 1, 0);
    from = unsigned(fd) + 1;
  }
  close_range(from, ~0u, 0);
}

}  // namespace

ContainedChild::ContainedChild(const std::string& what, unsigned max_tasks, std::vector<int> keep_open)
    : cgroup_(max_tasks) {
  const pid_t parent = getpid();
  const PipedFork f = fork_with_pipe(what);
  pid_ = f.pid;
  fd_ = f.fd;
  if (pid_ == 0) {
    hold_self(cgroup_, parent, fd_, std::move(keep_open));
    return;
  }
  setpgid(pid_, pid_);  // also here: a kill right after the fork reaches the group
}

ContainedChild::~ContainedChild() {
  if (pid_ > 0) reap();
}

bool ContainedChild::ended() const {
  if (reaped_) return true;
  siginfo_t si{};
  return waitid(P_PID, id_t(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid_;
}

void ContainedChild::kill_all() const {
  if (pid_ <= 0) return;
  if (!reaped_) kill(pid_, SIGKILL);  // also when it left its group (setsid, with no filter)
  kill(-pid_, SIGKILL);
  cgroup_.kill_all();
}

int ContainedChild::reap() {
  if (reaped_) return status_;
  kill_all();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return status_;
}

void ContainedChild::follow(const std::function<void(std::string_view)>& take, const std::function<bool()>& tick) {
  Deadline drain;  // set once the child has ended: what its descendants hold is read within a second
  bool ended_seen = false;
  for (;;) {
    pollfd pfd{fd_, POLLIN, 0};
    const int pr = poll(&pfd, 1, 100);
    if (pr < 0 && errno != EINTR) return;
    if (!tick()) return;
    if (pr > 0) {
      char chunk[65536];
      const ssize_t k = read(fd_, chunk, sizeof chunk);
      if (k == 0 || (k < 0 && errno != EINTR)) return;
      if (k > 0) take(std::string_view(chunk, size_t(k)));
    }
    if (!ended_seen && ended()) {
      ended_seen = true;
      kill_all();  // a descendant holding the pipe dies with its group
      drain.in(1.0);
    } else if (ended_seen && drain.passed()) {
      return;
    }
  }
}

}  // namespace kex
