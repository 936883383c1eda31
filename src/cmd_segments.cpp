// `kex segments`: Jeremy Fitzhardinge's segment-register test and its modern costs.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli.hpp"
#include "segments.hpp"

namespace kex {

namespace {

/// Writes `text` to `path` through a temporary file in the same directory and a
/// rename, so readers see the old file or the whole new one. Refuses to replace an
/// existing file unless `force`. Throws UserError with a one-line reason.
void write_file_atomically(const std::string& path, const std::string& text, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!force && fs::exists(path, ec))
    throw UserError(path + " exists; pass --force to overwrite it");
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + p.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) throw UserError("cannot write " + path + ": " + strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t k = write(fd, text.data() + done, text.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = errno;
      close(fd);
      unlink(tmpl.c_str());
      throw UserError("cannot write " + path + ": " + strerror(e));
    }
    done += static_cast<size_t>(k);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmpl.c_str());
    throw UserError("cannot write " + path + ": " + strerror(e));
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmpl.c_str());
    throw UserError("cannot write " + path + ": " + strerror(e));
  }
}

}  // namespace

Action add_segments_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "segments", "Segment-register test (Jeremy Fitzhardinge 2006): selector loads and fs/gs-prefixed accesses");
  struct Args {
    std::string json;
    bool force = false;
    SegmentOptions opts;
    bool no_mixed = false, no_modern = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--json", a->json, "Also write the results section as JSON to FILE")->type_name("FILE");
  cmd->add_flag("--force", a->force, "Overwrite an existing --json file");
  cmd->add_option("--iterations", a->opts.iterations, "Timed iterations per case, spread over the repetitions")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40))
      ->capture_default_str();
  cmd->add_flag("--no-mixed", a->no_mixed, "Skip the mixed loop (an access through the restored selector)");
  cmd->add_flag("--no-modern", a->no_modern, "Skip the modern costs (override latency/throughput, null loads)");
  return [a]() {
    if (!a->json.empty() && !a->force && std::filesystem::exists(a->json))
      throw UserError(a->json + " exists; pass --force to overwrite it");
    SegmentOptions o = a->opts;
    o.mixed = !a->no_mixed;
    o.modern = !a->no_modern;
    const auto section = run_segments(o);
    std::fputs(format_segment_table(section).c_str(), stdout);
    std::fflush(stdout);
    if (!a->json.empty()) write_file_atomically(a->json, section.dump(2) + "\n", a->force);
    return 0;
  };
}

}  // namespace kex
