#include "src/results/runtests.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/gnuplot_text.hpp"

namespace kex {

namespace fs = std::filesystem;

namespace {

/// A file name stem from a printed kernel name (which a results file may set to
/// anything): letters, digits, '_', '-' and '.' kept, every other byte '_', never
/// starting with '.', never empty, at most 64 bytes.
std::string file_safe(const std::string& s) {
  std::string out = s.substr(0, 64);
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) c = '_';
  if (out.empty() || out[0] == '.') out.insert(0, "f");
  return out;
}

bool is_asami(const Result& r) { return r.kind == KernelKind::preset && r.preset && r.preset->family == "asami"; }
bool is_memcpy(const Result& r) { return r.kind == KernelKind::baseline && r.libc && r.point.kernel == "memcpy"; }

}  // namespace

std::vector<RuntestsCurve> runtests_curves(const RunDoc& doc, bool with_mem_cp) {
  std::vector<RuntestsCurve> out;
  std::map<std::string, size_t> at;  // key -> index in out
  std::set<std::string> names;
  bool any_asami = false;
  for (const Result& r : doc.results) {
    const bool mem_cp = r.point.at.harness == Harness::mem_cp;
    if (!r.ok() || !(is_asami(r) || is_memcpy(r)) || (mem_cp ? !with_mem_cp || !r.seed : r.tsc_hz <= 0)) continue;
    Coords plain;  // runtests had one layout: warm, no offsets; mem_cp: its first listing of a kernel
    plain.size = r.point.at.size;
    plain.harness = r.point.at.harness;
    if (r.point.at != plain) continue;
    any_asami |= is_asami(r);
    const std::string key = r.point.kernel + (mem_cp ? "/harness:mem_cp" : "");
    auto [it, fresh] = at.emplace(key, out.size());
    if (fresh) {
      RuntestsCurve c;
      c.key = key;
      std::string base = file_safe((is_memcpy(r) ? std::string("memcpy") : r.preset->printed) + (mem_cp ? "_mem_cp" : ""));
      c.name = base;
      for (int n = 2; !names.insert(c.name).second; ++n) c.name = base + "_" + std::to_string(n);
      out.push_back(std::move(c));
    }
    const double mbps =
        mem_cp ? r.seed->mb_per_s : gbps_at(r.point.at.size, aggregate(r).median_ns) * 1e9 / double(1 << 20);
    out[it->second].points.emplace_back(r.point.at.size, mbps);
  }
  if (!any_asami) return {};
  for (auto& c : out) std::sort(c.points.begin(), c.points.end());
  return out;
}

namespace {

/// The tables of `curves`, one per function separated by an empty line: its name (with
/// `notes`, the kex key after a TAB when it differs), runtests' header and a row per size.
std::string curves_text(const std::vector<RuntestsCurve>& curves, bool notes) {
  std::string out;
  char row[64];
  for (size_t i = 0; i < curves.size(); ++i) {
    const RuntestsCurve& c = curves[i];
    if (i) out += "\n";
    out += terminal_text(c.name);
    if (notes && c.key != c.name) out += "\t(" + terminal_text(c.key) + ")";
    out += "\n    size    bandwidth\n";
    for (const auto& [size, mbps] : c.points) {
      snprintf(row, sizeof row, "%8llu%13.2f\n", static_cast<unsigned long long>(size), mbps);
      out += row;
    }
  }
  return out;
}

/// One curve per preset listing of a mem_cp run (a preset listed twice: a second curve,
/// its pass), in the run's order, with mem_cp's own MB/s at each size that ran.
std::vector<RuntestsCurve> mem_cp_curves(const SeedRun& run) {
  std::vector<RuntestsCurve> out;
  std::map<std::pair<std::string, uint32_t>, size_t> at;  // (key, pass) -> index in out
  std::set<std::string> names;
  for (const Result& r : run.results) {
    if (!r.preset) continue;
    auto [it, fresh] = at.emplace(std::make_pair(r.point.kernel, r.point.at.pass), out.size());
    if (fresh) {
      RuntestsCurve c;
      c.key = r.point.kernel;
      const std::string base = file_safe(r.preset->printed);
      c.name = base;
      for (int n = 2; !names.insert(c.name).second; ++n) c.name = base + "_" + std::to_string(n);
      out.push_back(std::move(c));
    }
    if (r.ok() && r.seed) out[it->second].points.emplace_back(r.point.at.size, r.seed->mb_per_s);
  }
  return out;
}

}  // namespace

std::string runtests_text(const RunDoc& doc, SeedText mode) {
  const auto curves = runtests_curves(doc);
  if (curves.empty()) return {};
  const bool notes = mode == SeedText::annotated;
  std::string out;
  if (notes)
    out += "# Asami's runtests (seed 003): bandwidth is MB/s of 2^20 bytes copied per second (bytes counted once), "
           "the median of kex's samples at each size; runtests' mem_cp timed 4 MB of copies per size\n";
  return out + curves_text(curves, notes);
}

std::string mem_cp_text(const SeedRun& run, SeedText mode) {
  const bool notes = mode == SeedText::annotated;
  const SeedHeader& hd = run.header;
  std::string out;
  if (notes) {
    char line[256];
    snprintf(line, sizeof line,
             "# kex seed harness 'mem_cp' (Asami's mem_cp: 4 MiB of copies per size through page-aligned buffers, "
             "random source, copy verified, timed with gettimeofday); pinned to CPU %d, TSC %.3f MHz\n",
             hd.pinned_cpu, hd.tsc_mhz);
    out += line;
    out += "# " + terminal_text(hd.cpu_model) +
           "; bandwidth is MB/s of 2^20 bytes copied per second (bytes counted once), one pass per size\n";
    for (const Result& r : run.results)
      if (!r.ok())
        out += "# " + terminal_text(r.point.kernel) + " at " + std::to_string(r.point.at.size) + " bytes: " +
               (r.status.kind == StatusKind::skipped ? "skipped: " : "ERROR: ") + terminal_text(r.status.message) +
               "\n";
  }
  return out + curves_text(mem_cp_curves(run), notes);
}

std::vector<std::string> write_runtests_graph(const RunDoc& doc, const std::string& dir, bool force) {
  const auto curves = runtests_curves(doc, true);
  if (curves.empty())
    throw InputError(dir + ": nothing for runtests -graph: the run measured no asami preset (e.g. configs/asami.json)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the directory: " + ec.message());
  std::vector<std::pair<std::string, std::string>> files;
  std::string gp =
      "# Asami's runtests -graph (seed 003): one curve per copy function; load '" + gp_comment(dir) + "/plot.gp' in gnuplot\n"
      "set logscale x 2\n"
      "set xlabel \"copy size (bytes)\"\n"
      "set ylabel \"bandwidth (MB/s, 2^20 bytes/s)\"\n"
      "set key outside right\n"
      "plot ";
  char row[64];
  for (size_t i = 0; i < curves.size(); ++i) {
    const RuntestsCurve& c = curves[i];
    std::string dat = "# " + c.name + " (" + gp_comment(c.key) + "): size (bytes), bandwidth (MB/s, 2^20 bytes/s)\n";
    for (const auto& [size, mbps] : c.points) {
      snprintf(row, sizeof row, "%llu %.2f\n", static_cast<unsigned long long>(size), mbps);
      dat += row;
    }
    const std::string path = dir + "/" + c.name + ".dat";
    files.emplace_back(path, dat);
    // A file name gnuplot reads must not start with '<' or '|' (it would run it as a command).
    const std::string gp_path = path[0] == '/' ? path : "./" + path;
    gp += (i ? ", \\\n     " : "") + gp_string(gp_path) + " title " + gp_label(c.name) + " with linespoints";
  }
  gp += "\n";
  files.emplace_back(dir + "/plot.gp", gp);
  for (const auto& [path, text] : files) check_output_path(path, force);  // refuse before writing anything
  std::vector<std::string> written;
  for (const auto& [path, text] : files) {
    write_file_atomic(path, text, force);
    written.push_back(path);
  }
  return written;
}

}  // namespace kex
