#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

/// Runs `f` in a child process; returns its exit status and what it wrote to `msg` (a pipe).
struct ChildResult {
  int status = -1;
  std::string msg;
};
ChildResult in_child(const std::function<int(int msg_fd)>& f) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    int rc = 99;
    try {
      rc = f(p[1]);
    } catch (...) {
    }
    _exit(rc);
  }
  close(p[1]);
  ChildResult r;
  char buf[4096];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) r.msg.append(buf, size_t(n));
  close(p[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

void say(int fd, const std::string& s) { (void)!write(fd, s.data(), s.size()); }

/// The name make_temp_file gives in `dir` (for this process), without the random tail.
std::string temp_stem(const std::string& dir) {
  TempFile t = make_temp_file(dir, dir + "/x");
  close(t.fd);
  unlink(t.path.c_str());
  std::string name = t.path.substr(t.path.rfind('/') + 1);
  return name.substr(0, name.size() - 6);  // ".kex-PID-HOST-"
}

}  // namespace

TEST_CASE("write_file_atomic writes - refuses to overwrite without force - and leaves no temp files") {
  TmpDir d;
  std::string p = d / "out.txt";
  write_file_atomic(p, "one\n", false);
  CHECK(slurp(p) == "one\n");
  CHECK(input_error_of([&] { write_file_atomic(p, "two\n", false); }) == p + ": exists; not overwriting it (use --force)");
  CHECK(slurp(p) == "one\n");
  write_file_atomic(p, "three\n", true);
  CHECK(slurp(p) == "three\n");
  CHECK(dir_entries(d.path) == std::set<std::string>{"out.txt"});
  CHECK(input_error_of([&] { write_file_atomic(d / "no/such/dir/x", "x", false); }) ==
        d / "no/such/dir/x" + ": directory " + d / "no/such/dir" + " does not exist");
}

TEST_CASE("the written file gets the mode of a new file (umask applies), not mkstemp's 0600") {
  TmpDir d;
  mode_t old = umask(022);
  write_file_atomic(d / "m.txt", "x", false);
  umask(old);
  struct stat st;
  REQUIRE(stat((d / "m.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("output paths are checked up front: directories, non-regular files, name length") {
  TmpDir d;
  CHECK(input_error_of([&] { check_output_path(d.path, false); }) == d.path + ": is a directory; give a file name");
  CHECK(input_error_of([&] { check_output_path(d.path + "/", true); }) == d.path + "/: names a directory; give a file name");
  CHECK(input_error_of([&] { check_output_path(d / "..", true); }) == d / ".." + ": names a directory; give a file name");
  CHECK(input_error_of([&] { check_output_path("/dev/null", true); }) == "/dev/null: not a regular file; refusing to replace it");
  CHECK(input_error_of([&] { check_output_path("", false); }) == "output path is empty");
  spit(d / "f", "x");
  CHECK(input_error_of([&] { check_output_path(d / "f/x.json", false); }) ==
        d / "f/x.json" + ": cannot be written (Not a directory)");

  // A legal 250-byte name is written (the old NAME.tmp.PID temporary made it 259 bytes).
  const std::string n250(250, 'a');
  write_file_atomic(d / n250, "long\n", false);
  CHECK(slurp(d / n250) == "long\n");
  // A 256-byte name is refused before anything is written, with one line.
  const std::string n256(256, 'b');
  const std::string p256 = d / n256;
  const std::string shown = p256.substr(0, 40) + "..." + p256.substr(p256.size() - 30);
  CHECK(input_error_of([&] { check_output_path(p256, false); }) ==
        shown + ": the file name is 256 bytes; this file system allows at most 255");
  CHECK(input_error_of([&] { write_file_atomic(p256, "x", false); }) ==
        shown + ": the file name is 256 bytes; this file system allows at most 255");
  CHECK(dir_entries(d.path) == std::set<std::string>{"f", n250});
}

TEST_CASE("install_file never replaces a file that appeared while writing, the new text is kept beside it") {
  TmpDir d;
  const std::string p = d / "r.json";
  check_output_path(p, false);  // passes: nothing there yet
  spit(p, "winner\n");          // another run finishes first
  TempFile t = make_temp_file(d.path, p);
  REQUIRE(write(t.fd, "loser\n", 6) == 6);
  close(t.fd);
  CHECK(input_error_of([&] { install_file(t.path, p, false); }) ==
        p + ": exists (created by another process after kex checked it); not overwriting it (use --force); this output is in " + p + ".1");
  CHECK(slurp(p) == "winner\n");
  CHECK(slurp(p + ".1") == "loser\n");
  CHECK(dir_entries(d.path) == std::set<std::string>{"r.json", "r.json.1"});
}

TEST_CASE("a path checked free before the work and taken by the time of writing keeps both outputs") {
  TmpDir d;
  const std::string p = d / "run.json";
  check_output_path(p, false);  // kex run: before the sweep
  spit(p, "the other run's results\n");
  CHECK(input_error_of([&] { write_file_atomic(p, "this run's results\n", false); }) ==
        p + ": exists (created by another process after kex checked it); not overwriting it (use --force); "
            "this output is in " + p + ".1");
  CHECK(slurp(p) == "the other run's results\n");
  CHECK(slurp(p + ".1") == "this run's results\n");
  // A path never checked free is refused plainly: nothing was done that would be lost.
  CHECK(input_error_of([&] { write_file_atomic(d / "run.json.1", "x", false); }) ==
        d / "run.json.1" + ": exists; not overwriting it (use --force)");
  CHECK(dir_entries(d.path) == std::set<std::string>{"run.json", "run.json.1"});
}

TEST_CASE("two writers racing for one name without --force: exactly one wins, the other fails with one line") {
  TmpDir d;
  const std::string big(2 << 20, 'x');  // a write window of some milliseconds
  int late = 0;
  for (int round = 0; round < 8; ++round) {
    const std::string p = d / ("race" + std::to_string(round) + ".json");
    int go[2];
    REQUIRE(pipe(go) == 0);
    std::vector<pid_t> pids;
    std::vector<int> msgs;
    for (char who : {'A', 'B'}) {
      int m[2];
      REQUIRE(pipe(m) == 0);
      pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        close(go[1]);
        close(m[0]);
        char c;
        (void)!read(go[0], &c, 1);  // both start when the parent closes the pipe
        try {
          write_file_atomic(p, std::string(1, who) + big, false);
          _exit(0);
        } catch (const InputError& e) {
          say(m[1], e.what());
          _exit(2);
        }
      }
      close(m[1]);
      pids.push_back(pid);
      msgs.push_back(m[0]);
    }
    close(go[0]);
    close(go[1]);
    int winners = 0;
    char winner = 0;
    std::string loser_msg;
    for (size_t i = 0; i < 2; ++i) {
      std::string msg;
      char buf[512];
      ssize_t n;
      while ((n = read(msgs[i], buf, sizeof buf)) > 0) msg.append(buf, size_t(n));
      close(msgs[i]);
      int st = 0;
      waitpid(pids[i], &st, 0);
      REQUIRE(WIFEXITED(st));
      if (WEXITSTATUS(st) == 0) {
        ++winners;
        winner = i == 0 ? 'A' : 'B';
      } else {
        CHECK(WEXITSTATUS(st) == 2);
        loser_msg = msg;
      }
    }
    REQUIRE(winners == 1);
    const std::string got = slurp(p);
    CHECK(got.size() == big.size() + 1);
    CHECK(got[0] == winner);
    CHECK(loser_msg.find('\n') == std::string::npos);
    if (loser_msg == p + ": exists; not overwriting it (use --force)") continue;  // lost at the check
    ++late;  // lost at the move: its output is kept beside the winner's
    CHECK(loser_msg == p + ": exists (created by another process after kex checked it); not overwriting it (use --force); this output is in " +
                           p + ".1");
    CHECK(slurp(p + ".1")[0] == (winner == 'A' ? 'B' : 'A'));
  }
  MESSAGE(late << " of 8 rounds lost at the move rather than at the check");
  for (const auto& e : dir_entries(d.path)) CHECK(e.rfind(".kex-", 0) != 0);  // no temporaries left
}

TEST_CASE("stale temporaries of dead processes are removed, a live process's and another host's are kept") {
  TmpDir d;
  const std::string stem = temp_stem(d.path);  // ".kex-<our pid>-<host>-"
  const std::string host = stem.substr(stem.rfind('-', stem.size() - 2) + 1);  // "<host>-"
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);  // reaped: the PID is free (and not reused within this test)
  REQUIRE(kill(dead, 0) == -1);
  const std::string dead_tmp = ".kex-" + std::to_string(dead) + "-" + host + "abc123";
  const std::string live_tmp = ".kex-" + std::to_string(getppid()) + "-" + host + "def456";
  const std::string other_host = ".kex-" + std::to_string(dead) + "-0badcafe-ghi789";
  const std::string not_ours = ".kex-" + std::to_string(dead) + "-" + host + "toolong1";
  for (const auto& n : {dead_tmp, live_tmp, other_host, not_ours}) spit(d / n, "partial");
  write_file_atomic(d / "out.json", "{}\n", false);
  CHECK(dir_entries(d.path) == std::set<std::string>{live_tmp, other_host, not_ours, "out.json"});
  CHECK(remove_stale_temps(d.path) == 0);
}

TEST_CASE("a write that hits a file size limit leaves the old file intact and no partial file") {
  TmpDir d;
  const std::string p = d / "keep.json";
  spit(p, "old results\n");
  auto r = in_child([&](int msg) {
    signal(SIGXFSZ, SIG_IGN);  // write(2) then fails with EFBIG instead of killing the process
    rlimit lim{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) return 77;
    try {
      write_file_atomic(p, std::string(1 << 20, 'n'), true);
    } catch (const InputError& e) {
      say(msg, e.what());
      return 2;
    }
    return 0;
  });
  CHECK(r.status == 2);
  CHECK(r.msg == p + ": write failed (File too large; the file-size limit (ulimit -f) is 4 KiB); nothing was written");
  CHECK(slurp(p) == "old results\n");
  CHECK(dir_entries(d.path) == std::set<std::string>{"keep.json"});
}

TEST_CASE("a write to a full file system leaves the old file intact and no partial file (tmpfs, when mountable)") {
  TmpDir d;
  // A private mount namespace: the small tmpfs is seen by the child only and vanishes with it.
  auto r = in_child([&](int msg) {
    if (unshare(CLONE_NEWNS) != 0) return 77;
    if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (mount("tmpfs", d.path.c_str(), "tmpfs", 0, "size=64k") != 0) return 77;
    const std::string p = d / "keep.json";
    spit(p, "old results\n");
    try {
      write_file_atomic(p, std::string(1 << 20, 'n'), true);
      return 0;
    } catch (const InputError& e) {
      say(msg, std::string(e.what()) + "|" + slurp(p) + "|");
      for (const auto& n : dir_entries(d.path)) say(msg, n + ",");
      return 2;
    }
  });
  if (r.status == 77) {
    MESSAGE("no tmpfs in a private mount namespace here (needs CAP_SYS_ADMIN); the file size limit test covers it");
    return;
  }
  CHECK(r.status == 2);
  CHECK(r.msg == d / "keep.json" + ": write failed (No space left on device); nothing was written|old results\n|keep.json,");
}

TEST_CASE("check_not_an_input refuses an output that is one of the inputs, under any of its names") {
  TmpDir d;
  spit(d / "r.json", "{}");
  spit(d / "other.json", "{}");
  REQUIRE(::link((d / "r.json").c_str(), (d / "hard.json").c_str()) == 0);
  REQUIRE(::symlink("r.json", (d / "soft.json").c_str()) == 0);
  auto error = [](const std::string& out, const std::vector<std::string>& in) {
    try {
      check_not_an_input("-o", out, in);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("ok");
  };
  CHECK(error(d / "r.json", {d / "other.json", d / "r.json"}) ==
        "-o: '" + d / "r.json" + "' is the input " + d / "r.json" + " (the same file): it would be replaced; write to another path");
  CHECK(error(d / "hard.json", {d / "r.json"}).find("' is the input " + d / "r.json" + " (the same file)") != std::string::npos);
  CHECK(error(d / "soft.json", {d / "r.json"}) != "ok");
  CHECK(error(d / "./r.json", {d / "soft.json"}) != "ok");
  CHECK(error(d / "other.json", {d / "r.json"}) == "ok");
  CHECK(error(d / "new.json", {d / "r.json"}) == "ok");  // not there yet
  CHECK(error("-", {d / "r.json"}) == "ok");
  CHECK(error(d / "r.json", {"", d / "missing.json"}) == "ok");
}
