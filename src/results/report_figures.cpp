#include "src/results/report_figures.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/results/plot.hpp"
#include "src/results/render.hpp"

namespace kex {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Whether one tag's text (between < and >) is safe to inline: no element that runs or
/// loads, no event handler, no reference out of the figure.
bool safe_tag(std::string_view tag) {
  const std::string t = lower(tag);
  const size_t from = t.starts_with('/') ? 1 : 0;
  const size_t to = std::min(t.find_first_of(" \t\r\n/>", from), t.size());
  const std::string name = t.substr(from, to - from);
  for (const char* bad : {"script", "foreignobject", "iframe", "a", "object", "embed", "animate", "set", "handler"})
    if (name == bad) return false;
  for (size_t i = 0; (i = t.find('=', i)) != std::string::npos; ++i) {
    size_t b = i;
    while (b > 0 && !std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
    const std::string attr = t.substr(b, i - b);
    const std::string_view value = std::string_view(t).substr(std::min(i + 2, t.size()));
    if (attr.starts_with("on")) return false;
    if (attr.ends_with("href") && !value.starts_with("#") && !value.starts_with("data:image/png;base64,")) return false;
  }
  return t.find("javascript:") == std::string::npos;
}

/// Every occurrence of `from` in `s` replaced by `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t i = 0; (i = s.find(from, i)) != std::string::npos; i += to.size()) s.replace(i, from.size(), to);
}

/// `svg` (whose every '<' has its '>') with the ids its tags define and refer to
/// (id=, href="#, url(#) prefixed by `prefix`; text between tags (a host name a title
/// shows) is kept as it is.
std::string prefixed_ids(const std::string& svg, const std::string& prefix) {
  std::string out;
  size_t at = 0;
  for (size_t i; (i = svg.find('<', at)) != std::string::npos; at = svg.find('>', i) + 1) {
    out.append(svg, at, i - at);
    std::string tag = svg.substr(i, svg.find('>', i) + 1 - i);
    for (const char q : {'\'', '"'}) {
      replace_all(tag, std::string("id=") + q, std::string("id=") + q + prefix);
      replace_all(tag, std::string("href=") + q + "#", std::string("href=") + q + "#" + prefix);
    }
    replace_all(tag, "url(#", "url(#" + prefix);
    out += tag;
  }
  return out.append(svg, at);
}

/// The width of a viewBox="0 0 W H" attribute, "" without one.
std::string viewbox_width(const std::string& svg_tag) {
  const size_t v = svg_tag.find("viewBox=\"");
  if (v == std::string::npos) return "";
  std::string box = svg_tag.substr(v + 9, svg_tag.find('"', v + 9) - v - 9);
  size_t field = 0, i = 0;
  while (field < 2 && (i = box.find(' ', i)) != std::string::npos) ++field, ++i;
  if (field < 2) return "";
  const std::string w = box.substr(i, box.find(' ', i) - i);
  return w.find_first_not_of("0123456789.") == std::string::npos && !w.empty() ? w : "";
}

}  // namespace

std::string inline_svg(const std::string& svg, const std::string& prefix) {
  const size_t start = svg.find("<svg"), end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos || end < start) return "";
  std::string s = svg.substr(start, end + 6 - start);
  for (size_t i = 0; (i = s.find('<', i)) != std::string::npos;) {
    const size_t close = s.find('>', i);
    if (close == std::string::npos || !safe_tag(std::string_view(s).substr(i + 1, close - i - 1))) return "";
    i = close;
  }
  s = prefixed_ids(s, prefix);
  const size_t tag_end = s.find('>');
  if (const std::string w = viewbox_width(s.substr(0, tag_end)); !w.empty())
    s.insert(4, " style=\"max-width:" + w + "px\"");
  return s;
}

namespace {

constexpr const char* kFolderPrefix = "kex-report-";

/// The figures' folder while they are drawn, for the signal handler ("" when none).
char g_folder[PATH_MAX];

/// Removes the flat folder `dir` with async-signal-safe calls only (getdents64,
/// unlinkat, rmdir): what a signal handler may do.
void remove_folder_from_handler(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (bool removed = true; removed;) {  // again from the start until a pass removes nothing
      removed = false;
      ::lseek(fd, 0, SEEK_SET);
      for (long n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;)
        for (long off = 0; off < n;) {
          const auto* e = reinterpret_cast<const struct dirent64*>(buf + off);
          off += e->d_reclen;
          if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
            removed |= ::unlinkat(fd, e->d_name, 0) == 0;
        }
    }
    ::close(fd);
  }
  ::rmdir(dir);
}

/// SIGINT, SIGTERM or SIGHUP while the figures are drawn: their folder goes, then the
/// signal does what it would have done (kex dies of it; gnuplot dies with kex).
extern "C" void on_report_signal(int sig) {
  if (g_folder[0]) remove_folder_from_handler(g_folder);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Folders "kex-report-PID-XXXXXX" in `tmp` of this user whose process is gone (a kill
/// -9, a power cut): removed. Those of live processes, and any other name, are kept.
void sweep_stale_folders(const std::string& tmp) {
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kFolderPrefix)) continue;
    const std::string rest = name.substr(std::strlen(kFolderPrefix));
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || dash > 9 || rest.find_first_not_of("0123456789") != dash) continue;
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
    const pid_t pid = pid_t(std::stol(rest.substr(0, dash)));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(it->path(), ec), ec.clear();
  }
}

/// A fresh private folder "kex-report-PID-XXXXXX" under $TMPDIR (or /tmp), made with
/// mkdtemp after sweeping the stale ones there.
std::string temp_folder() {
  const char* t = std::getenv("TMPDIR");
  const std::string tmp = t && *t == '/' ? t : "/tmp";
  sweep_stale_folders(tmp);
  std::string templ = tmp + "/" + kFolderPrefix + std::to_string(::getpid()) + "-XXXXXX";
  if (templ.size() >= sizeof g_folder || !mkdtemp(templ.data()))
    throw InputError(templ + ": cannot make a temporary folder for the figures");
  return templ;
}

/// While alive: the figures' folder is removed on SIGINT, SIGTERM and SIGHUP (each
/// signal whose action is the default one: kex run handles its own SIGINT and SIGTERM,
/// and its report's folder then goes the normal way).
class FolderGuard {
 public:
  explicit FolderGuard(const std::string& dir) : dir_(dir) {
    std::memcpy(g_folder, dir.c_str(), dir.size() + 1);
    struct sigaction sa {};
    sa.sa_handler = on_report_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < 3; ++i) {
      struct sigaction old {};
      installed_[i] = ::sigaction(kSignals[i], nullptr, &old) == 0 && old.sa_handler == SIG_DFL &&
                      ::sigaction(kSignals[i], &sa, nullptr) == 0;
    }
  }
  ~FolderGuard() {
    std::error_code ec;
    fs::remove_all(dir_, ec);  // a signal meanwhile finds the handler still there
    for (size_t i = 0; i < 3; ++i)
      if (installed_[i]) ::signal(kSignals[i], SIG_DFL);
    g_folder[0] = '\0';
  }
  FolderGuard(const FolderGuard&) = delete;
  FolderGuard& operator=(const FolderGuard&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  std::string dir_;
  bool installed_[3] = {};
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the figure: " + std::strerror(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Figure `base` from the whole SVG file `svg` gnuplot wrote, the `i`-th of the page (its
/// ids prefixed "f<i+1>-"), or a note saying why it is left out.
void add_figure(ReportFigures& out, const std::string& base, const std::string& svg, size_t i) {
  std::string element = inline_svg(svg, "f" + std::to_string(i + 1) + "-");
  if (element.empty()) out.notes.push_back(base + ": left out: gnuplot's SVG held an element kex does not inline");
  else out.figures.push_back({base, std::move(element)});
}

}  // namespace

ReportFigures render_report_figures(const std::vector<RunDoc>& runs) {
  ReportFigures out;
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    out.notes.push_back("gnuplot is not installed (Debian: apt-get install gnuplot-nox): the page has no figures; "
                        "kex plot writes their data and scripts");
    return out;
  }
  PlotOptions po;
  po.render = false;
  po.ratio = runs.size() > 1;
  std::vector<PlotFigure> figures;
  try {
    figures = plot_figures(runs, po);
  } catch (const InputError& e) {
    out.notes.push_back(std::string("no figures: ") + e.what());
    return out;
  }
  const std::string dir = temp_folder();
  const FolderGuard guard(dir);
  for (size_t i = 0; i < figures.size(); ++i) {
    const PlotFigure& f = figures[i];
    try {
      write_file_atomic(dir + "/" + f.base + ".dat", f.dat, false);
      write_file_atomic(dir + "/" + f.base + ".gp", f.gp, false);
      render_figure(gnuplot, dir, f.base + ".gp", ImageFormat::svg, f.base + ".svg", false);
      add_figure(out, f.base, read_all(dir + "/" + f.base + ".svg"), i);
    } catch (const InputError& e) {
      out.notes.push_back(f.base + ": left out: " + e.what());
    }
  }
  return out;
}

ReportFigures drawn_report_figures(const std::vector<std::string>& svgs) {
  ReportFigures out;
  for (size_t i = 0; i < svgs.size(); ++i) {
    const std::string file = svgs[i].substr(svgs[i].rfind('/') + 1);
    const std::string base = file.substr(0, file.rfind('.'));
    try {
      add_figure(out, base, read_all(svgs[i]), i);
    } catch (const InputError& e) {
      out.notes.push_back(base + ": left out: " + e.what());
    }
  }
  return out;
}

}  // namespace kex
