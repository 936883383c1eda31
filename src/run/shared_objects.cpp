#include "src/run/shared_objects.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include "src/core/error.hpp"
#include "src/core/fd_io.hpp"
#include "src/core/file_read.hpp"
#include "src/core/limits.hpp"
#include "src/core/terminal_text.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/sandbox.hpp"

namespace kex {

namespace {

/// The names of the objects loaded in this process (dl_iterate_phdr; the main program's empty name left out).
std::set<std::string> loaded_objects() {
  std::set<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name && info->dlpi_name[0]) static_cast<std::set<std::string>*>(data)->insert(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

/// "PATH DEV INO SIZE MTIME_NS\n" for each of `paths` that is a file (stat).
std::string identities(const std::set<std::string>& paths) {
  std::ostringstream o;
  for (const std::string& p : paths) {
    struct stat st {};
    if (p.rfind("/proc/self/fd/", 0) == 0 || stat(p.c_str(), &st) != 0) continue;  // the image itself, or linux-vdso
    o << p << ' ' << st.st_dev << ' ' << st.st_ino << ' ' << st.st_size << ' '
      << (int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec) << '\n';
  }
  return o.str();
}

/// Whether each library of `recorded` (Image::dependencies) is loaded here and still the
/// same file: "" or the first that is not.
std::string dependencies_changed(const std::string& recorded) {
  const std::set<std::string> now = loaded_objects();
  std::istringstream in(recorded);
  for (std::string line; std::getline(in, line);) {
    const std::string path = line.substr(0, line.find(' '));
    if (!now.count(path) || identities({path}) != line + "\n") return path;
  }
  return "";
}

/// A sealed memfd holding `bytes` (executable: a memfd may be made without exec rights).
/// Throws InputError at `path` when none can be made.
int sealed_copy(const std::string& bytes, const std::string& path) {
#ifndef MFD_EXEC
  constexpr unsigned MFD_EXEC = 0x10;  // memfd_create(2), Linux 6.3
#endif
  int fd = memfd_create("kex-shared-object", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) fd = memfd_create("kex-shared-object", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd >= 0 && fd < 3) {  // kex started with a standard stream closed: the children's 0..2 are theirs
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    fd = high;
  }
  const auto fail = [&](const char* what) {
    const int err = errno;
    if (fd >= 0) close(fd);
    throw InputError(terminal_text(path), std::string("cannot hold a copy of it: ") + what + ": " + errno_text(err));
  };
  if (fd < 0) fail("memfd_create");
  if (!write_all(fd, bytes.data(), bytes.size())) fail("write");
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) fail("F_ADD_SEALS");
  return fd;
}

/// dlopen's argument for the image of `path` (kex's descriptor, inherited by the child).
std::string openable(int image_fd) { return "/proc/self/fd/" + std::to_string(image_fd); }

/// In a forked child: opens the image of `path` and finds `symbol`; "" and the address, or
/// why not (dlerror's text naming `path`, not the descriptor). With `deps`, the identities
/// of the libraries the open loaded besides it.
std::string open_symbol(const std::string& path, int image_fd, const std::string& symbol, void*& fn,
                        std::string* deps = nullptr) {
  dlerror();
  const std::set<std::string> before = deps ? loaded_objects() : std::set<std::string>{};
  void* h = dlopen(openable(image_fd).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h && deps) {
    std::set<std::string> added;
    for (const std::string& o : loaded_objects())
      if (!before.count(o)) added.insert(o);
    *deps = identities(added);
  }
  if (!h) {
    const char* e = dlerror();
    std::string why = e ? e : "dlopen failed";
    const std::string at = openable(image_fd);
    for (size_t k; (k = why.find(at)) != std::string::npos;) why.replace(k, at.size(), path);
    return "cannot open it: " + why;
  }
  dlerror();
  fn = dlsym(h, symbol.c_str());
  const char* e = dlerror();
  if (e) return std::string("no symbol ") + symbol + ": " + e;
  if (!fn) return "the symbol " + symbol + " is null";
  return "";
}

}  // namespace

SharedObjects::SharedObjects() = default;

SharedObjects::~SharedObjects() {
  for (auto& [path, im] : images_) close(im.fd);
}

SharedObjects::Image& SharedObjects::image_of(const std::string& path) {
  if (auto it = images_.find(path); it != images_.end()) return it->second;
  const std::string bytes = read_regular_file(path, kMaxLoadedFile, "shared object");
  Image im;
  im.sha256 = sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  im.fd = sealed_copy(bytes, path);
  return images_.emplace(path, im).first->second;
}

std::vector<int> SharedObjects::descriptors() const {
  std::vector<int> fds;
  for (const auto& [path, im] : images_) fds.push_back(im.fd);
  return fds;
}

void* const* SharedObjects::slot(const std::string& path, const std::string& symbol) {
  for (Symbol& s : symbols_)
    if (s.path == path && s.symbol == symbol) return &s.fn;
  symbols_.push_back({path, symbol, openable(image_of(path).fd), nullptr});
  return &symbols_.back().fn;
}

void SharedObjects::open_all() noexcept {
  for (Symbol& s : symbols_) {
    if (s.fn) continue;
    void* h = dlopen(s.image.c_str(), RTLD_NOW | RTLD_LOCAL);
    // A library it depends on that is not the file the probe loaded (replaced during the
    // run): no symbol, so the stub's SIGILL fails the point instead of timing other code.
    if (h && dependencies_changed(images_.at(s.path).dependencies).empty()) s.fn = dlsym(h, s.symbol.c_str());
  }
}

std::string SharedObjects::dependencies(const std::string& path) { return image_of(path).dependencies; }

std::string SharedObjects::sha256(const std::string& path) { return image_of(path).sha256; }

std::string SharedObjects::probe(const std::string& path, const std::string& symbol) {
  Image& im = image_of(path);
  // The child's answer: "D" and the libraries it loaded with the object, or "E" and why not.
  const auto job = [&](size_t) -> std::string {
    void* fn = nullptr;
    std::string deps;
    if (std::string why = open_symbol(path, im.fd, symbol, fn, &deps); !why.empty()) return "E" + why;
    return "D" + deps;
  };
  const SandboxOutcome o = run_sandboxed(1, job, 10, nullptr, CallFilter::loading, nullptr, {im.fd}).at(0);
  if (!o.finished) return "crashed while opening it: " + describe_death(o, nullptr, 0);
  if (o.message.rfind('D', 0) == 0) {
    im.dependencies = o.message.substr(1);
    return "";
  }
  return terminal_text(o.message.rfind('E', 0) == 0 ? o.message.substr(1) : o.message);
}

FunctionCode SharedObjects::code(const std::string& path, const std::string& symbol, size_t cap) {
  // The child's answer: "E" and why, or "C", the line saying how the end was found, '\n', the bytes.
  const int fd = image_of(path).fd;
  const auto job = [&](size_t) -> std::string {
    void* fn = nullptr;
    if (std::string why = open_symbol(path, fd, symbol, fn); !why.empty()) return "E" + why;
    const FunctionCode f = function_code(fn, cap);
    return "C" + f.how + "\n" + std::string(f.bytes.begin(), f.bytes.end());
  };
  const SandboxOutcome o = run_sandboxed(1, job, 10, nullptr, CallFilter::loading, nullptr, {fd}).at(0);
  const std::string at = terminal_text(path);
  if (!o.finished) throw InputError(at, "crashed while opening it: " + describe_death(o, nullptr, 0));
  const size_t nl = o.message.find('\n');
  if (o.message.rfind('C', 0) != 0 || nl == std::string::npos) throw InputError(at, terminal_text(o.message.substr(1)));
  FunctionCode f;
  f.how = o.message.substr(1, nl - 1);
  f.bytes.assign(o.message.begin() + std::ptrdiff_t(nl) + 1, o.message.end());
  return f;
}

}  // namespace kex
