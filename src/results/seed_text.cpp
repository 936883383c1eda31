#include "src/results/seed_text.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "src/core/terminal_text.hpp"
#include "src/results/results.hpp"
#include "src/results/runtests.hpp"

namespace kex {

namespace {

// The CVS id every fast.c-derived program printed in its banner (docs/seed-kernels.md §1.1).
constexpr const char* kFastcId = "$Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $";

const char* op_word(Op op) { return op == Op::clear ? "clear_page" : "copy_page"; }

/// The banner line(s) of the program, newline included (§1.5).
std::string banner(const SeedHeader& hd) {
  char line[256];
  switch (hd.harness) {
    case Harness::hahn: snprintf(line, sizeof line, "%3.3f MHz\n", hd.hahn_mhz); break;
    case Harness::xmm64:
      snprintf(line, sizeof line, "SSE test program %s buffer = %p\n", kFastcId,
               reinterpret_cast<void*>(hd.buffer_address));
      break;
    default: snprintf(line, sizeof line, "Athlon test program %s \n", kFastcId); break;
  }
  return line;
}

/// What the '#' header says about the buffer the kernels ran on.
std::string buffer_note(const SeedHeader& hd) {
  char line[256];
  const void* at = reinterpret_cast<void*>(hd.buffer_address);
  switch (hd.harness) {
    case Harness::hahn:
      snprintf(line, sizeof line, "# buffer: 32 MiB at %p, page-aligned (athlon.c mmapped it)\n", at);
      break;
    case Harness::xmm64:
      snprintf(line, sizeof line, "# buffer: 16 MiB at %p, page-aligned for every kernel, as xmm64.c printed it\n", at);
      break;
    default:
      snprintf(line, sizeof line,
               "# buffer: 16 MiB at %p; every kernel at +8, where glibc's malloc put fast.c's buffer on i386 "
               "(kernels needing 16-byte alignment page-aligned)\n",
               at);
      break;
  }
  return line;
}

}  // namespace

std::string format_seed_line(const PresetFacts& p, Op op, Harness h, double cycles, double mbs,
                             std::string_view label) {
  const bool clear = op == Op::clear;
  // The name may come from a results file or a journal: escaped for the terminal.
  std::string name = terminal_text(label.empty() ? (h == Harness::hahn ? p.hahn_printed : p.printed) : label);
  char buf[128];  // the figures; the name stays outside, so a long one never cuts the line
  std::string line = std::string(op_word(op)) + (h == Harness::hahn ? " by '" : " function '") + name + "'";
  if (h == Harness::hahn) {
    const unsigned long long c = cycles > 0 ? static_cast<unsigned long long>(cycles) : 0;
    snprintf(buf, sizeof buf, "%s\t took %4llu cycles (%0.1f MB/s)", clear ? "  " : "", c, mbs);
  } else {
    snprintf(buf, sizeof buf, "\t took %4lli cycles per page", static_cast<long long>(cycles));
  }
  line += buf;
  if (h == Harness::kex && mbs > 0) {
    snprintf(buf, sizeof buf, " (%.1f MB/s)", mbs);
    line += buf;
  }
  return line;
}

namespace {

/// What the program printed for one pass: TSC ticks / divisor, truncated.
int64_t printed_of(const Result& r, const Repetition& rep) {
  const uint64_t delta = rep.sample_ticks.empty() ? 0 : rep.sample_ticks.front();
  return r.seed && r.seed->divisor ? static_cast<int64_t>(delta / r.seed->divisor) : 0;
}

/// "  [3 runs: min 1012, max 1090, spread 7.7%]" over the printed figures of every pass.
std::string spread_note(const Result& r) {
  if (r.reps.size() < 2) return {};
  int64_t lo = printed_of(r, r.reps.front()), hi = lo;
  for (const Repetition& rep : r.reps) {
    lo = std::min(lo, printed_of(r, rep));
    hi = std::max(hi, printed_of(r, rep));
  }
  char b[128];
  std::snprintf(b, sizeof b, "  [%zu runs: min %lld, max %lld, spread %.1f%%]", r.reps.size(),
                static_cast<long long>(lo), static_cast<long long>(hi), lo > 0 ? double(hi - lo) / double(lo) * 100 : 0.0);
  return b;
}

}  // namespace

std::vector<SeedRun> seed_passes(const SeedRun& run) {
  size_t n = 1;
  for (const Result& r : run.results) n = std::max(n, r.reps.size());
  if (n == 1) return {run};
  std::vector<SeedRun> out(n);
  for (size_t k = 0; k < n; ++k) {
    out[k].header = run.header;
    for (const Result& r : run.results) {
      if (!r.ok()) {  // a kernel that did not run: the same in every pass
        out[k].results.push_back(r);
        continue;
      }
      if (k >= r.reps.size()) continue;
      Result p = r;
      p.reps = {r.reps[k]};
      if (p.seed) {
        p.seed->printed_ticks = printed_of(r, r.reps[k]);
        const double delta = r.reps[k].sample_ticks.empty() ? 0 : double(r.reps[k].sample_ticks.front());
        if (p.seed->mhz > 0 && delta > 0) p.seed->mb_per_s = 32.0 / (delta / (p.seed->mhz * 1e6));
        if (run.header.harness == Harness::mem_cp && r.reps[k].seconds > 0)  // mem_cp: its gettimeofday time
          p.seed->mb_per_s = double(p.seed->pages * r.point.at.size) / double(1 << 20) / r.reps[k].seconds;
      }
      out[k].results.push_back(std::move(p));
    }
  }
  return out;
}

namespace {

/// The annotated table's head: the protocol, TSC, CPU, pinning, fsave, buffers and the
/// preset substitutions on this CPU, as "# " lines.
std::string annotated_head(const SeedRun& run) {
  const SeedHeader& hd = run.header;
  std::string out;
  char line[512];
  const char* protocol = hd.harness == Harness::hahn    ? "Hahn's athlon.c protocol"
                         : hd.harness == Harness::xmm64 ? "LaHaise's xmm64.c protocol: fast.c v1.6's passes"
                                                        : "fast.c v1.6 protocol";
  snprintf(line, sizeof line, "# kex seed harness '%s' (%s). Cycles are TSC ticks (TSC %.3f MHz, ",
           std::string(to_string(hd.harness)).c_str(), protocol, hd.tsc_mhz);
  out += line + terminal_text(hd.tsc_source) + "); no core-cycle counter is read (PMU " +
         (hd.pmu_available ? "available but unused" : "not available") + ").\n";
  snprintf(line, sizeof line, ", pinned to CPU %d; fsave/frstor %s.\n", hd.pinned_cpu,
           hd.fsave ? "kept inside the timed kernels" : "dropped (switch off)");
  out += "# " + terminal_text(hd.cpu_model) + line;
  out += buffer_note(hd);
  std::vector<std::string> subs;
  for (const auto& r : run.results)
    if (r.preset)
      for (const auto& s : r.preset->substitutions)
        if (std::find(subs.begin(), subs.end(), s) == subs.end()) subs.push_back(s);
  for (const auto& s : subs) out += "# substitution on this CPU: " + terminal_text(s) + "\n";
  return out;
}

/// The notes after a measured line: spread, confidence, alignment, and the preset id
/// when another preset of the run prints the same name.
std::string line_notes(const SeedRun& run, const Result& r, Op op) {
  std::string out = spread_note(r);
  if (r.preset->confidence == Confidence::low) out += "\t[low-confidence reconstruction]";
  if (run.header.harness == Harness::fastc && r.seed->buffer_offset == 0)
    out += "\t(page-aligned: needs " + std::to_string(r.preset->alignment) + "-byte alignment)";
  for (const Result& q : run.results)
    if (q.preset && q.preset->id != r.preset->id && q.op == op &&
        (q.preset->printed == r.preset->printed || q.preset->hahn_printed == r.seed->label))
      return out + "\t(" + terminal_text(r.preset->id) + ")";
  return out;
}

/// One result's line as the program printed it (an overflow, a skip or error with
/// `notes`, or its figures).
std::string result_line(const SeedRun& run, const Result& r, Op op, bool notes) {
  const bool fast_c = run.header.harness != Harness::hahn;
  const std::string& label = r.seed->label;  // printed through terminal_text below
  if (r.status.message == "test invalid; timer overflow")  // the programs' line names no kernel
    return std::string("test invalid; timer overflow ") + (notes ? "\t('" + terminal_text(label) + "')" : "") + "\n";
  if (r.status.kind != StatusKind::ok)
    return std::string(op_word(op)) + (fast_c ? " function '" : " by '") + terminal_text(label) + "'\t " +
           (r.status.kind == StatusKind::skipped ? "skipped" : "ERROR") + ": " + terminal_text(r.status.message) + "\n";
  std::string out = format_seed_line(*r.preset, op, run.header.harness, double(r.seed->printed_ticks), r.seed->mb_per_s, label);
  if (notes) out += line_notes(run, r, op);
  return out + "\n";
}

}  // namespace

std::string seed_table_text(const SeedRun& run, SeedText mode) {
  if (run.header.harness == Harness::mem_cp) return mem_cp_text(run, mode);
  const SeedHeader& hd = run.header;
  const bool notes = mode == SeedText::annotated;
  const bool fast_c = hd.harness != Harness::hahn;
  std::string out = notes ? annotated_head(run) : "";
  out += banner(hd);
  for (Op op : {Op::clear, Op::copy}) {
    bool any = false;
    for (const Result& r : run.results) {
      if (r.op != op || !r.preset || !r.seed) continue;
      const bool ran = r.status.kind == StatusKind::ok || r.status.message == "test invalid; timer overflow";
      if (!ran && !notes) continue;  // the program would have printed a line; kex has no figure for it
      if (!any) {
        // fast.c's main: test_clearpage(), printf("\n"), test_copypage(); each test
        // prints its header first. athlon.c's main: the same without the headers.
        if (op == Op::copy) out += "\n";
        if (fast_c) out += op == Op::clear ? "clear_page() tests \n" : "copy_page() tests \n";
        any = true;
      }
      out += result_line(run, r, op, notes);
    }
  }
  if (notes && !fast_c)
    out += "# copy lines: cycles are half the per-copy cost and MB/s counts read + write, as athlon.c printed them\n";
  return out;
}

std::string kex_seed_summary(const RunDoc& doc) {
  size_t n = 0;
  const Result* fastest[2] = {nullptr, nullptr};  // clear, copy
  double best[2] = {0, 0};
  for (const Result& r : doc.results) {
    if (r.kind != KernelKind::preset || !r.preset || r.point.at.harness != Harness::kex || !r.ok() ||
        r.point.at.size != 4096 || !(condition_label(condition(r.point.at))).empty())
      continue;
    ++n;
    const size_t k = r.op == Op::copy;
    const double ns = aggregate(r).median_ns;
    if (ns > 0 && (!fastest[k] || ns < best[k])) fastest[k] = &r, best[k] = ns;
  }
  if (n == 0) return {};
  std::string s = "presets: " + std::to_string(n) + " measured at 4096 bytes (the seed-layout table: --full)";
  char b[64];
  for (size_t k = 0; k < 2; ++k) {
    if (!fastest[k]) continue;
    const Result& r = *fastest[k];
    std::snprintf(b, sizeof b, " %.0f TSC ticks per page", best[k] * r.tsc_hz / 1e9);
    s += std::string(k ? "; fastest copy_page " : "; fastest clear_page ") + "'" + terminal_text(r.preset->printed) +
         "' (" + terminal_text(r.point.kernel) + ")" + b;
  }
  return s + "\n";
}

std::string kex_seed_text(const RunDoc& doc) {
  std::string clear, copy;
  std::set<std::string> subs;
  for (const Result& r : doc.results) {
    if (r.kind != KernelKind::preset || !r.preset || r.point.at.harness != Harness::kex) continue;
    for (const auto& s : r.preset->substitutions) subs.insert(terminal_text(s));
    if (!r.ok() || r.point.at.size != 4096) continue;
    const Aggregate a = aggregate(r);
    const double ticks = a.median_ns * r.tsc_hz / 1e9;
    const double mbps = gbps_at(r.point.at.size, a.median_ns) * 1e9 / (1 << 20);
    std::string line = format_seed_line(*r.preset, r.op, Harness::kex, ticks, mbps);
    if (r.preset->confidence == Confidence::low) line += "\t[low-confidence reconstruction]";
    // Other coordinates than the seeds' (cold caches, an offset, ...) are said on the line.
    Point bare{r.point.kernel, {}};
    bare.at.size = 4096;
    const std::string full = point_name(r.point), plain = point_name(bare);
    if (full != plain) line += "\t(" + terminal_text(full.substr(plain.size() + 1)) + ")";
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
