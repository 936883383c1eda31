#include "src/model/explain_core.hpp"

#include <cstdio>

namespace kex {

uint64_t core_size(uint64_t bytes_per_iteration, Op op, uint64_t l1d) {
  const uint64_t size = std::max<uint64_t>(4096, 4 * bytes_per_iteration);
  const uint64_t buffers = op == Op::copy ? 2 * size : size;
  return buffers <= (l1d ? l1d : 32768) / 2 ? size : 0;
}

double measured_cycles_per_iteration(const Result& r, uint64_t bytes_per_iteration) {
  if (!r.ok() || bytes_per_iteration == 0) return 0;
  const uint64_t iterations = r.point.at.size / bytes_per_iteration;
  if (iterations == 0) return 0;
  return entry_figures(r).est_cycles / double(iterations);
}

double core_ratio(const ExplainCore& c) {
  return c.predicted_cycles > 0 && c.measured_cycles > 0 ? c.measured_cycles / c.predicted_cycles : 0;
}

std::string core_text(const ExplainCore& c) {
  if (c.bytes_per_iteration == 0 && c.predicted_cycles > 0) {  // code kex did not write: no loop of known bytes
    char buf[160];
    std::snprintf(buf, sizeof buf, "llvm-mca: %.1f core cycles per pass (block reciprocal throughput %.1f; ",
                  c.predicted_cycles, c.block_rthroughput);
    return buf + c.mcpu + ")" + (c.note.empty() ? "" : "; " + c.note);
  }
  const double ratio = core_ratio(c);
  if (ratio == 0) return "no model of the core: " + (c.missing.empty() ? std::string("no figures") : c.missing);
  char buf[160];
  const char* call = ratio < 1 / kCoreBoundRatio ? "faster than the model"
                     : ratio <= kCoreBoundRatio  ? "core-bound"
                                                 : "not core-bound";
  std::snprintf(buf, sizeof buf, "%s: measured %.2fx llvm-mca's %.1f core cycles per %llu-byte iteration", call, ratio,
                c.predicted_cycles,
                static_cast<unsigned long long>(c.bytes_per_iteration));
  std::string out = buf;
  out += " (" + c.mcpu + "; " + std::to_string(c.measured_size) + " B warm, " +
         (c.cycles_method.empty() ? std::string("core cycles") : c.cycles_method) + ")";
  if (!c.note.empty()) out += "; " + c.note;
  return out;
}

std::vector<ExplainCounter> explain_counters(const Result& r) {
  std::vector<ExplainCounter> out;
  if (!r.ok()) return out;
  for (const auto& [name, per_byte] : entry_figures(r).counters_per_byte) out.push_back({name, per_byte});
  return out;
}

}  // namespace kex
