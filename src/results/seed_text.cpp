#include "src/results/seed_text.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace kex {

std::string format_seed_line(const PresetFacts& p, Op op, Harness h, double cycles, double mbs,
                             std::string_view label) {
  const bool clear = op == Op::clear;
  std::string name(label);
  if (name.empty()) name = h == Harness::hahn ? p.hahn_printed : p.printed;
  char buf[512];
  const long long c = static_cast<long long>(cycles);
  if (h == Harness::hahn)
    snprintf(buf, sizeof buf, "%s by '%s'%s\ttook %lli cycles (%.1f MB/s)", clear ? "clear_page" : "copy_page",
             name.c_str(), clear ? "  " : "", c, mbs);
  else
    snprintf(buf, sizeof buf, "%s function '%s'\ttook %4lli cycles per page", clear ? "clear_page" : "copy_page",
             name.c_str(), c);
  std::string line = buf;
  if (h == Harness::kex && mbs > 0) {
    snprintf(buf, sizeof buf, " (%.1f MB/s)", mbs);
    line += buf;
  }
  if (p.confidence == Confidence::low) line += "\t[low-confidence reconstruction]";
  return line;
}

std::string seed_table_text(const SeedRun& run) {
  const SeedHeader& hd = run.header;
  const bool fastc = hd.harness == Harness::fastc;
  std::string out;
  char line[512];
  snprintf(line, sizeof line,
           "# kex seed harness '%s' (%s protocol). Cycles are TSC ticks (TSC %.3f MHz, %s); no core-cycle counter "
           "is read (PMU %s).\n",
           std::string(to_string(hd.harness)).c_str(), fastc ? "fast.c v1.6" : "Hahn's athlon.c", hd.tsc_mhz,
           hd.tsc_source.c_str(), hd.pmu_available ? "available but unused" : "not available");
  out += line;
  snprintf(line, sizeof line, "# %s, pinned to CPU %d; fsave/frstor %s.\n", hd.cpu_model.c_str(), hd.pinned_cpu,
           hd.fsave ? "kept inside the timed kernels" : "dropped (switch off)");
  out += line;
  std::vector<std::string> subs;
  for (const auto& r : run.results)
    if (r.preset)
      for (const auto& s : r.preset->substitutions)
        if (std::find(subs.begin(), subs.end(), s) == subs.end()) subs.push_back(s);
  for (const auto& s : subs) out += "# substitution on this CPU: " + s + "\n";
  if (fastc) {
    out += "Athlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $\n";
    snprintf(line, sizeof line,
             "buffer = %p (+8: pages straddle page boundaries as glibc malloc did on i386; "
             "xmm64 presets run page-aligned as xmm64.c did)\n",
             reinterpret_cast<void*>(hd.buffer_address));
    out += line;
  } else {
    snprintf(line, sizeof line, "%3.3f MHz\n", hd.hahn_mhz);
    out += line;
  }
  bool any_clear = false;
  for (Op op : {Op::clear, Op::copy}) {
    bool any = false;
    for (const Result& r : run.results) {
      if (r.op != op || !r.preset || !r.seed) continue;
      if (!any) {
        if (fastc) out += op == Op::clear ? "clear_page() tests\n" : "\ncopy_page() tests\n";
        else if (op == Op::copy && any_clear) out += "\n";
        any = true;
        any_clear |= op == Op::clear;
      }
      const char* op_word = op == Op::copy ? "copy_page" : "clear_page";
      const std::string& label = r.seed->label;
      if (r.status.kind != StatusKind::ok) {
        if (r.status.message == "test invalid; timer overflow") {
          out += std::string(op_word) + " function '" + label + "'\ttest invalid; timer overflow\n";
          continue;
        }
        snprintf(line, sizeof line, "%s %s '%s'\t%s: %s\n", op_word, fastc ? "function" : "by", label.c_str(),
                 r.status.kind == StatusKind::skipped ? "skipped" : "ERROR", r.status.message.c_str());
        out += line;
        continue;
      }
      out += format_seed_line(*r.preset, op, hd.harness, double(r.seed->printed_ticks), r.seed->mb_per_s, label);
      // Same printed name as another preset of this run (fast.c vs Hahn variants): say which.
      for (const Result& q : run.results)
        if (q.preset && q.preset->id != r.preset->id && q.op == op &&
            (q.preset->printed == r.preset->printed || q.preset->hahn_printed == label)) {
          out += "\t(" + r.preset->id + ")";
          break;
        }
      out += "\n";
    }
  }
  if (!fastc)
    out += "# copy lines: cycles are half the per-copy cost and MB/s counts read + write, as athlon.c printed them\n";
  return out;
}

std::string kex_seed_text(const RunDoc& doc) {
  std::string clear, copy;
  std::set<std::string> subs;
  for (const Result& r : doc.results) {
    if (r.kind != KernelKind::preset || !r.preset || r.point.at.harness != Harness::kex) continue;
    for (const auto& s : r.preset->substitutions) subs.insert(s);
    if (!r.ok() || r.point.at.size != 4096) continue;
    const Aggregate a = aggregate(r);
    const double ticks = a.median_ns * r.tsc_hz / 1e9;
    const double mbps = gbps_at(r.point.at.size, a.median_ns) * 1e9 / (1 << 20);
    std::string line = format_seed_line(*r.preset, r.op, Harness::kex, ticks, mbps);
    // Other coordinates than the seeds' (cold caches, an offset, ...) are said on the line.
    Point bare{r.point.kernel, {}};
    bare.at.size = 4096;
    const std::string full = point_name(r.point), plain = point_name(bare);
    if (full != plain) line += "\t(" + full.substr(plain.size() + 1) + ")";
    (r.op == Op::clear ? clear : copy) += line + "\n";
  }
  if (clear.empty() && copy.empty()) return {};
  std::string s = "# kex harness: median of adaptive samples, one 4096-byte page per call; cycles are TSC ticks "
                  "(estimated core cycles are in the JSON and the plots); MB/s = 2^20 bytes/s as the seeds printed\n";
  for (const auto& x : subs) s += "# substitution on this CPU: " + x + "\n";
  if (!clear.empty()) s += "clear_page() tests\n" + clear;
  if (!copy.empty()) s += (clear.empty() ? "" : "\n") + std::string("copy_page() tests\n") + copy;
  return s;
}

}  // namespace kex
