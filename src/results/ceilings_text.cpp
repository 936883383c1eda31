#include "src/results/ceilings_text.hpp"

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

std::string gbps_cell(double v) { return v > 0 ? fmt::format("{:.1f}", v) : "-"; }

}  // namespace

std::string ceilings_text(const RunDoc& run) {
  if (!run.context.ceilings) return {};
  const Ceilings& c = *run.context.ceilings;
  std::string out = fmt::format(
      "\none core's ceilings (GB/s, bytes counted once; best probe per kind, {} paired rounds, probe {:.1f} s):\n",
      c.rounds, c.seconds);
  out += fmt::format("{:<5} {:>10} {:>8} {:>8} {:>9}  {}\n", "level", "size", "read", "write", "nt write",
                     "fastest read / write / nt write");
  for (const CeilingLevel& l : c.levels)
    out += fmt::format("{} {:>10} {:>8} {:>8} {:>9}  {} / {} / {}\n", pad_right(clip(terminal_text(l.level), 5), 5),
                       format_bytes(l.size),
                       gbps_cell(l.read_gbps), gbps_cell(l.write_gbps), gbps_cell(l.nt_write_gbps),
                       terminal_text(l.read_kernel), terminal_text(l.write_kernel), terminal_text(l.nt_write_kernel));
  if (c.l1d_load_bytes_per_cycle > 0 || c.l1d_store_bytes_per_cycle > 0)
    out += fmt::format("L1d: {:.1f} bytes per core cycle loaded, {:.1f} stored (estimated core cycles)\n",
                       c.l1d_load_bytes_per_cycle, c.l1d_store_bytes_per_cycle);
  return out;
}

}  // namespace kex
