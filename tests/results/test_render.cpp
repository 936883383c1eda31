// Rendering a figure with gnuplot: a failed render (file size limit, full disk,
// gnuplot error) is an error and leaves nothing half-written (src/results/render.hpp).
#include <doctest/doctest.h>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "src/core/error.hpp"
#include "src/results/plot.hpp"
#include "src/results/render.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

const char* kScript = R"(if (!exists("fmt")) fmt = "png"
if (fmt eq "svg") {
  set terminal svg size 800,600
} else {
  set terminal pngcairo size 800,600
}
set output out
set samples 2000
plot sin(x) title "sin", cos(x) title "cos", sin(3*x)*cos(x) title "mix"
)";

/// The format a test names by its extension.
ImageFormat image_format(const std::string& ext) { return ext == "png" ? ImageFormat::png : ImageFormat::svg; }

/// Runs render_figure in a child after `setup` (limits, mounts); returns exit status
/// 0 (rendered), 2 (InputError) or 77 (setup impossible). *msg gets the error, then
/// "|" and the directory's entries as the child sees them ("a,b,").
int render_in_child(const std::function<bool()>& setup, const std::string& dir, const std::string& fmt, std::string* msg) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    if (!setup()) _exit(77);
    int rc = 0;
    std::string m;
    try {
      render_figure(find_gnuplot(), dir, "f.gp", image_format(fmt), "f." + fmt, false);
    } catch (const InputError& e) {
      m = e.what();
      rc = 2;
    } catch (...) {
      rc = 3;
    }
    m += "|";
    for (const auto& e : dir_entries(dir)) m += e + ",";
    (void)!write(p[1], m.data(), m.size());
    _exit(rc);
  }
  close(p[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) msg->append(buf, size_t(n));
  close(p[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace

TEST_CASE("image_complete knows a whole PNG and SVG from a truncated one") {
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "IHDR...." + std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  CHECK(image_complete(png, ImageFormat::png));
  CHECK_FALSE(image_complete(png.substr(0, png.size() - 1), ImageFormat::png));
  CHECK_FALSE(image_complete("", ImageFormat::png));
  CHECK_FALSE(image_complete("GIF89a" + png.substr(8), ImageFormat::png));
  CHECK(image_complete("<svg>\n</svg>\n\n", ImageFormat::svg));
  CHECK_FALSE(image_complete("<svg>\n<path d=\"M0", ImageFormat::svg));
  CHECK_FALSE(image_complete("", ImageFormat::svg));
}

TEST_CASE("render_figure writes complete images and refuses to replace one without force") {
  if (find_gnuplot().empty()) return;  // gnuplot-nox is in the Makefile's DEBS; without it nothing renders
  TmpDir d;
  spit(d / "f.gp", kScript);
  for (const std::string fmt : {"png", "svg"}) {
    CAPTURE(fmt);
    render_figure(find_gnuplot(), d.path, "f.gp", image_format(fmt), "f." + fmt, false);
    CHECK(image_complete(slurp(d / ("f." + fmt)), image_format(fmt)));
  }
  CHECK(dir_entries(d.path) == std::set<std::string>{"f.gp", "f.png", "f.svg"});
  const std::string before = slurp(d / "f.png");
  std::string err;
  try {
    render_figure(find_gnuplot(), d.path, "f.gp", ImageFormat::png, "f.png", false);
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err.find(d / "f.png" + ": exists") == 0);
  CHECK(slurp(d / "f.png") == before);
}

TEST_CASE("render_figure: a gnuplot error is an InputError and leaves no file") {
  if (find_gnuplot().empty()) return;
  TmpDir d;
  spit(d / "f.gp", "set output out\nplot 'no-such-file.dat'\n");
  std::string err;
  try {
    render_figure(find_gnuplot(), d.path, "f.gp", ImageFormat::png, "f.png", false);
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err.find(d / "f.png" + ": gnuplot failed: ") == 0);
  CHECK(err.find("no-such-file.dat") != std::string::npos);
  CHECK(err.find('\n') == std::string::npos);
  CHECK(dir_entries(d.path) == std::set<std::string>{"f.gp"});
}

TEST_CASE("render_figure under a file size limit fails with one line and leaves no PNG or SVG") {
  if (find_gnuplot().empty()) return;
  TmpDir d;
  spit(d / "f.gp", kScript);
  for (const std::string fmt : {"png", "svg"}) {
    CAPTURE(fmt);
    // SIGXFSZ ignored: gnuplot's writes fail with EFBIG and it goes on, as on a full disk.
    std::string msg;
    int st = render_in_child([] {
      signal(SIGXFSZ, SIG_IGN);
      rlimit lim{2048, 2048};
      return setrlimit(RLIMIT_FSIZE, &lim) == 0;
    }, d.path, fmt, &msg);
    CHECK(st == 2);
    // What gnuplot printed follows (or that it printed nothing), never a guess at the cause.
    CHECK(msg.find(d / ("f." + fmt) + ": gnuplot failed: the output is a truncated " + fmt + " of 2048 bytes; gnuplot printed") == 0);
    CHECK(msg.find("full disk") == std::string::npos);
    CHECK(msg.substr(msg.find('|')) == "|f.gp,");
    // SIGXFSZ at its default: gnuplot is killed, and that is a failure too.
    msg.clear();
    st = render_in_child([] {
      rlimit lim{2048, 2048};
      return setrlimit(RLIMIT_FSIZE, &lim) == 0;
    }, d.path, fmt, &msg);
    CHECK(st == 2);
    CHECK(msg == d / ("f." + fmt) + ": gnuplot failed: killed by signal " + std::to_string(SIGXFSZ) +
                     " (File size limit exceeded)|f.gp,");
  }
}

TEST_CASE("render_figure: an empty image says what gnuplot printed, or that it printed nothing") {
  TmpDir d;
  spit(d / "f.gp", kScript);
  // A stand-in gnuplot that exits 0 without writing its image, as one out of memory may.
  const std::string fake = d / "fake-gnuplot";
  spit(fake, "#!/bin/sh\nprintf 'Terminal type is now svg\\n\\n   all points undefined!\\n' >&2\nexit 0\n");
  chmod(fake.c_str(), 0755);
  std::string err;
  try {
    render_figure(fake, d.path, "f.gp", ImageFormat::svg, "f.svg", false);
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err == d / "f.svg" + ": gnuplot failed: the output is empty; gnuplot printed: Terminal type is now svg; all points undefined!");
  spit(fake, "#!/bin/sh\nexit 0\n");
  err.clear();
  try {
    render_figure(fake, d.path, "f.gp", ImageFormat::svg, "f.svg", false);
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err == d / "f.svg" + ": gnuplot failed: the output is empty; gnuplot printed nothing");
  CHECK(dir_entries(d.path) == std::set<std::string>{"f.gp", "fake-gnuplot"});
}

TEST_CASE("render_figure on a full file system fails and leaves no PNG (tmpfs, when mountable)") {
  if (find_gnuplot().empty()) return;
  TmpDir d;
  std::string msg;
  int st = render_in_child([&] {
    if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
    if (mount("tmpfs", d.path.c_str(), "tmpfs", 0, "size=8k") != 0) return false;
    spit(d / "f.gp", kScript);
    return true;
  }, d.path, "png", &msg);
  if (st == 77) {
    MESSAGE("no tmpfs in a private mount namespace here (needs CAP_SYS_ADMIN); the file size limit test covers it");
    return;
  }
  CHECK(st == 2);
  CHECK(msg.find(d / "f.png" + ": gnuplot failed: ") == 0);
  CHECK(msg.substr(msg.find('|')) == "|f.gp,");  // nothing half-written beside the script
}

TEST_CASE("kex plot under a file size limit exits 2 with one line and leaves no image" * doctest::test_suite("cli")) {
  if (find_gnuplot().empty()) return;
  TmpDir d;
  const std::string results = d / "r.json";
  spit(results, synth::results().dump());
  // 16 KiB: the .dat and .gp files fit, a PNG does not. gnuplot inherits the limit.
  int st = run_sh("bash -c \"trap '' XFSZ; ulimit -f 16; exec " + std::string(KEX_BINARY) + " plot " + results + " -o " +
                  d / "plots" + "\" >/dev/null 2>" + d / "err");
  CHECK(st == 2);
  const std::string err = slurp(d / "err");
  CHECK(err.rfind("kex: " + d / "plots" + "/", 0) == 0);
  CHECK(err.find(".png: gnuplot failed: the output is a truncated png of 16384 bytes") != std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  for (const auto& e : dir_entries(d / "plots")) {
    CAPTURE(e);
    CHECK((e.size() > 4 && (e.substr(e.size() - 4) == ".dat" || e.substr(e.size() - 3) == ".gp")));
  }
}

TEST_CASE("kex plot killed by SIGTERM leaves no gnuplot running" * doctest::test_suite("cli")) {
  // A stand-in gnuplot that would go on for 30 s: it must die with kex.
  TmpDir d;
  std::filesystem::create_directories(d / "bin");
  spit(d / "bin/gnuplot", "#!/bin/sh\necho $$ > " + d / "gnuplot.pid.tmp" + "\nmv " + d / "gnuplot.pid.tmp " + d /
                              "gnuplot.pid" + "\nexec sleep 30\n");
  std::filesystem::permissions(d / "bin/gnuplot", std::filesystem::perms::owner_all);
  spit(d / "r.json", synth::results().dump());
  const std::string script =
      "PATH=" + d / "bin" + ":$PATH " + KEX_BINARY + " plot " + d / "r.json" + " -o " + d / "p >/dev/null 2>&1 &\n"
      "kex=$!\n"
      "for i in $(seq 100); do [ -s " + d / "gnuplot.pid" + " ] && break; sleep 0.05; done\n"
      "g=$(cat " + d / "gnuplot.pid" + ")\n"
      "kill -TERM $kex; wait $kex\n"
      "for i in $(seq 40); do kill -0 $g 2>/dev/null || { echo gone; exit 0; }; sleep 0.05; done\n"
      "kill -9 $g; echo running\n";
  spit(d / "t.sh", script);
  CHECK(shell_stdout("sh " + d / "t.sh").text == "gone\n");
}
