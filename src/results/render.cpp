#include "src/results/render.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/core/process.hpp"
#include "src/results/gnuplot_text.hpp"

namespace kex {

namespace {

/// Runs gnuplot in `dir` with fmt and out set; stdin and stdout on /dev/null, its stderr
/// captured. It stays in kex's process group (a Ctrl-C reaches it) and dies with kex (a
/// SIGTERM to kex plot must not leave it writing into the folder).
ProcessEnd run_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& gp, ImageFormat fmt,
                       const std::string& out) {
  const std::string setvars = "fmt=" + gp_string(to_string(fmt)) + "; out=" + gp_string(out);
  ProcessSpec spec({gnuplot, "-e", setvars, gp});
  spec.dir = dir;
  spec.capture = Capture::stderr_only;
  spec.own_group = false;
  return run_process(spec);
}

/// The first line of gnuplot's stderr that reports an error rather than a warning.
std::string error_line(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    std::string low = line;
    std::transform(low.begin(), low.end(), low.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (low.find("warning:") != std::string::npos) continue;
    if (low.find("cannot") != std::string::npos || low.find("error") != std::string::npos) return line;
  }
  return "";
}

/// gnuplot's messages on one line ("; " between its lines), cut at 400 bytes.
std::string joined(const std::string& err) {
  std::istringstream in(err);
  std::string line, out;
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    out += (out.empty() ? "" : "; ") + line.substr(b, e + 1 - b);
  }
  return out.size() > 400 ? out.substr(0, 400) + "..." : out;
}

/// What gnuplot printed, for an error whose cause kex cannot see: "; gnuplot printed:
/// " and its first lines (joined), or that it printed nothing. The caller's InputError
/// reaches the terminal escaped.
std::string said(const std::string& err) {
  const std::string text = joined(err);
  return text.empty() ? "; gnuplot printed nothing" : "; gnuplot printed: " + text;
}

std::string slurp(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = bool(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

bool image_complete(const std::string& bytes, ImageFormat fmt) {
  if (fmt == ImageFormat::png) {
    static const std::string sig = "\x89PNG\r\n\x1a\n";
    static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
    return bytes.size() >= sig.size() + iend.size() && bytes.compare(0, sig.size(), sig) == 0 &&
           bytes.compare(bytes.size() - iend.size(), iend.size(), iend) == 0;
  }
  const size_t end = bytes.find_last_not_of(" \t\r\n");
  return end != std::string::npos && end + 1 >= 6 && bytes.compare(end + 1 - 6, 6, "</svg>") == 0;
}

std::string render_figure(const std::string& gnuplot, const std::string& dir, const std::string& gp,
                          ImageFormat fmt, const std::string& out_name, bool force) {
  const std::string to = dir + "/" + out_name;
  TempFile t = make_temp_file(dir, to);
  ::close(t.fd);  // gnuplot writes it by name
  const std::string tmp_name = t.path.substr(t.path.rfind('/') + 1);
  ProcessEnd c;
  try {
    c = run_gnuplot(gnuplot, dir, gp, fmt, tmp_name);
  } catch (...) {
    ::unlink(t.path.c_str());
    throw;
  }
  std::string why;
  const bool exited_ok = WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0;
  if (!c.started) {
    why = c.how();
  } else if (WIFSIGNALED(c.status)) {
    why = "killed by signal " + std::to_string(WTERMSIG(c.status)) + " (" + strsignal(WTERMSIG(c.status)) + ")";
  } else {
    why = error_line(c.output);
    if (why.empty() && !exited_ok) why = joined(c.output);
    if (why.empty() && !exited_ok) why = "exit status " + std::to_string(WEXITSTATUS(c.status));
  }
  if (why.empty()) {
    bool ok = false;
    const std::string bytes = slurp(t.path, &ok);
    if (!ok) why = "no output written";
    else if (bytes.empty()) why = "the output is empty";
    else if (!image_complete(bytes, fmt))
      why = "the output is a truncated " + std::string(to_string(fmt)) + " of " + std::to_string(bytes.size()) + " bytes";
    if (!why.empty()) why += said(c.output);
  }
  if (!why.empty()) {
    ::unlink(t.path.c_str());
    throw InputError(to + ": gnuplot failed: " + why);
  }
  install_file(t.path, to, force);
  return c.output;
}

namespace {

bool is_executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string d = p.substr(start, end - start);
    // Only absolute entries: gnuplot runs in the figure folder, where "./gnuplot" (an
    // empty or relative PATH entry) would be whatever file is there, not the one found here.
    if (!d.empty() && d[0] == '/' && is_executable(d + "/gnuplot")) return d + "/gnuplot";
    start = end + 1;
  }
  return "";
}

}  // namespace kex
