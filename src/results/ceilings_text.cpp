#include "src/results/ceilings_text.hpp"

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/cache_knee.hpp"

namespace kex {

namespace {

std::string gbps_cell(double v) { return v > 0 ? fmt::format("{:.1f}", v) : "-"; }

/// Where a level's size came from: a file of kex before it was recorded used the report.
std::string from_cell(const CeilingLevel& l) {
  if (!l.cache_bytes) return "-";
  return std::string(to_string(l.size_from.value_or(SizeSource::reported)));
}

std::string escaped(const std::string& s) { return terminal_text(s); }

}  // namespace

std::string ceilings_text(const RunDoc& run) {
  if (!run.context.ceilings) return {};
  const Ceilings& c = *run.context.ceilings;
  std::string out = fmt::format(
      "\none core's ceilings (GB/s, bytes counted once; best probe per kind, {} paired rounds, probe {:.1f} s):\n",
      c.rounds, c.seconds);
  out += fmt::format("{:<5} {:>10} {:<9} {:>10} {:>8} {:>8} {:>9}  {}\n", "level", "cache", "size from", "probed at",
                     "read", "write", "nt write", "fastest read / write / nt write");
  for (const CeilingLevel& l : c.levels)
    out += fmt::format("{} {:>10} {:<9} {:>10} {:>8} {:>8} {:>9}  {} / {} / {}\n",
                       pad_right(clip(terminal_text(l.level), 5), 5), l.cache_bytes ? format_bytes(l.cache_bytes) : "-",
                       from_cell(l), format_bytes(l.size), gbps_cell(l.read_gbps), gbps_cell(l.write_gbps),
                       gbps_cell(l.nt_write_gbps), terminal_text(l.read_kernel), terminal_text(l.write_kernel),
                       terminal_text(l.nt_write_kernel));
  const std::string source = run.context.machine.cache_source.value_or("");
  out += "size from: reported by the CPU" + (source.empty() ? "" : " (" + terminal_text(source) + ")") +
         (c.knee ? ", or measured where one read probe's bandwidth falls (below)" : "") + "\n";
  if (c.knee) out += knee_text(*c.knee, escaped) + "\n";
  if (c.l1d_load_bytes_per_cycle > 0 || c.l1d_store_bytes_per_cycle > 0)
    out += fmt::format("L1d: {:.1f} bytes per core cycle loaded, {:.1f} stored (estimated core cycles)\n",
                       c.l1d_load_bytes_per_cycle, c.l1d_store_bytes_per_cycle);
  return out;
}

}  // namespace kex
