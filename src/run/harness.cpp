#include "src/run/harness.hpp"

#include <cpuid.h>
#include <algorithm>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "src/run/results_build.hpp"
#include "src/run/verify.hpp"

namespace kex {

std::string_view to_string(Harness h) {
  switch (h) {
    case Harness::kex: return "kex";
    case Harness::fastc: return "fastc";
    case Harness::hahn: return "hahn";
  }
  return "?";
}

std::optional<Harness> parse_harness(std::string_view s) {
  if (s == "kex") return Harness::kex;
  if (s == "fastc" || s == "fast.c") return Harness::fastc;
  if (s == "hahn" || s == "athlon.c") return Harness::hahn;
  return std::nullopt;
}

std::string format_seed_line(const Preset& p, Harness h, double cycles, double mbs, std::string_view label) {
  const bool clear = p.op == Op::clear;
  std::string name(label);
  if (name.empty()) name = h == Harness::hahn && !p.hahn_printed.empty() ? p.hahn_printed : p.printed;
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
  if (p.confidence == "low") line += "\t[low-confidence reconstruction]";
  return line;
}

namespace {

constexpr size_t kMiB = 1 << 20;
constexpr size_t kPage = 4096;

/// Plain rdtsc, not serialised: fast.c read the TSC this way.
inline uint64_t rdtsc_plain() {
  uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return (uint64_t(hi) << 32) | lo;
}

inline void cpuid_serialise() {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
  asm volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

double wall_seconds() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

/// athlon.c's clock: 30 samples of (gettimeofday, cpuid, rdtsc, select() sleep of
/// 10 ms + U(0,200) ms, cpuid, rdtsc, gettimeofday); least-squares slope of ticks on
/// wall seconds. Returns MHz.
double hahn_mhz() {
  static const double mhz = [] {
    srand48(static_cast<long>(rdtsc_plain()));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int n = 30;
    for (int i = 0; i < n; ++i) {
      double w0 = wall_seconds();
      cpuid_serialise();
      uint64_t t0 = rdtsc_plain();
      timeval tv{0, static_cast<suseconds_t>(10000 + drand48() * 200000)};
      select(0, nullptr, nullptr, nullptr, &tv);
      cpuid_serialise();
      uint64_t t1 = rdtsc_plain();
      double w1 = wall_seconds();
      double x = w1 - w0, y = double(t1 - t0);
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return slope / 1e6;
  }();
  return mhz;
}

struct Buffer {
  uint8_t* base = nullptr;
  size_t size = 0;
  explicit Buffer(size_t bytes) : size(bytes + kPage) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("harness: mmap of the test buffer failed");
    base = static_cast<uint8_t*>(p);
    memset(base, 0xfe, size);  // fast.c: memset(Buffer, 0xfe, ...) faults every page in
  }
  ~Buffer() { munmap(base, size); }
};

struct Slot {
  const Preset* p;
  bool first_of_op;
};

}  // namespace

HarnessResult run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts) {
  if (h == Harness::kex) throw std::invalid_argument("run_seed_harness: the kex harness is run by the sweep");
  const bool fastc = h == Harness::fastc;
  const Machine& m = machine();

  // 1. Generate every distinct preset once.
  struct Gen {
    size_t code = 0;
    std::vector<std::string> subs;
    std::string error, skip;
  };
  std::map<const Preset*, Gen> gen;
  CodeArena arena;
  for (const Preset* p : list) {
    if (!p || gen.count(p)) continue;
    Gen& g = gen[p];
    g.skip = preset_unsupported_reason(*p);
    if (!g.skip.empty()) continue;
    try {
      g.code = arena.add([&](Xbyak::CodeGenerator& cg) { p->emit(cg, opts, g.subs); });
    } catch (const std::exception& e) {
      g.error = std::string("code generation failed: ") + e.what();
    }
  }
  arena.finalize();

  // 2. Verify them in a child before anything is timed.
  std::vector<VerifyTarget> targets;
  std::vector<const Preset*> verified;
  for (auto& [p, g] : gen) {
    if (!g.skip.empty() || !g.error.empty()) continue;
    VerifyTarget t;
    t.fn = arena.ref(g.code).as<KernelFn>();
    t.is_copy = p->op == Op::copy;
    t.alignment = p->alignment;
    t.size_multiple = p->region;
    targets.push_back(t);
    verified.push_back(p);
  }
  auto vres = verify_in_child(targets);
  for (size_t i = 0; i < verified.size(); ++i)
    if (!vres[i].empty()) gen[verified[i]].error = "verification failed: " + vres[i];

  // 3. Pin, map the seed's buffer, calibrate (hahn).
  const int cpu = pin_to_one_cpu();
  const size_t buf_bytes = (fastc ? 16 : 32) * kMiB;
  Buffer buf(buf_bytes);
  const double mhz = fastc ? m.tsc_hz / 1e6 : hahn_mhz();

  std::string out;
  char line[512];
  snprintf(line, sizeof line,
           "# kex seed harness '%s' (%s protocol). Cycles are TSC ticks (TSC %.3f MHz, %s); no core-cycle counter "
           "is read (PMU %s).\n",
           std::string(to_string(h)).c_str(), fastc ? "fast.c v1.6" : "Hahn's athlon.c", m.tsc_hz / 1e6,
           m.tsc_source.c_str(), m.pmu_available ? "available but unused" : "not available");
  out += line;
  snprintf(line, sizeof line, "# %s, pinned to CPU %d; fsave/frstor %s.\n", m.model_name.c_str(), cpu,
           opts.fsave ? "kept inside the timed kernels" : "dropped (switch off)");
  out += line;
  {
    std::vector<std::string> all_subs;
    for (auto& [p, g] : gen)
      for (const auto& s : g.subs)
        if (std::find(all_subs.begin(), all_subs.end(), s) == all_subs.end()) all_subs.push_back(s);
    for (const auto& s : all_subs) out += "# substitution on this CPU: " + s + "\n";
  }
  if (fastc) {
    out += "Athlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $\n";
    snprintf(line, sizeof line, "buffer = %p (+8: pages straddle page boundaries as glibc malloc did on i386; "
             "xmm64 presets run page-aligned as xmm64.c did)\n", static_cast<void*>(buf.base));
    out += line;
  } else {
    snprintf(line, sizeof line, "%3.3f MHz\n", mhz);
    out += line;
  }

  HarnessResult res;
  res.entries = nlohmann::ordered_json::array();
  std::map<const Preset*, int> runs;
  for (Op op : {Op::clear, Op::copy}) {
    bool any = false, first = true;
    for (const Preset* p : list) {
      if (!p || p->op != op) continue;
      if (!any) {
        if (fastc) out += op == Op::clear ? "clear_page() tests\n" : "\ncopy_page() tests\n";
        else if (op == Op::copy && !res.entries.empty()) out += "\n";
        any = true;
      }
      const bool warm_label = fastc && first &&
                              std::find(p->aliases.begin(), p->aliases.end(), "warm up run") != p->aliases.end();
      first = false;
      const std::string label = warm_label ? "warm up run" : "";
      const std::string print_name =
          !label.empty() ? label : (!fastc && !p->hahn_printed.empty() ? p->hahn_printed : p->printed);
      const int nth = ++runs[p];
      const std::string name = p->id + "/" + std::string(to_string(h)) + (nth > 1 ? "#" + std::to_string(nth) : "");
      const Gen& g = gen[p];

      nlohmann::ordered_json e = entry_head(name);
      const bool copy = op == Op::copy;
      const size_t pages = fastc ? (copy ? 2048 : 4096) : (copy ? 4096 : 8192);
      const size_t offset = fastc && p->family != "xmm64" && p->alignment <= 8 ? 8 : 0;
      const size_t src_off = fastc ? 8 * kMiB : 16 * kMiB;
      nlohmann::ordered_json params;
      params["op"] = std::string(to_string(op));
      params["pages"] = pages;
      params["buffer_offset"] = offset;
      params["buffer_bytes"] = buf_bytes;
      if (copy) params["src_minus_dst"] = src_off;
      params["warm_up_pass"] = !fastc;
      params["fsave"] = opts.fsave;
      params["label"] = print_name;
      if (fastc && copy) params["sleep_before_s"] = 1;

      const char* op_word = copy ? "copy_page" : "clear_page";
      if (!g.skip.empty() || !g.error.empty()) {
        e["iterations"] = 0;
        e["kernel"] = p->id;
        e["kind"] = "preset";
        e["harness"] = std::string(to_string(h));
        e["size"] = p->region == 1 ? kPage : p->region;
        e["params"] = params;
        if (!g.skip.empty()) {
          e["skipped"] = true;
          e["skip_message"] = g.skip;
        } else {
          e["error_occurred"] = true;
          e["error_message"] = g.error;
        }
        e["preset"] = preset_json(*p, g.subs);
        res.entries.push_back(e);
        snprintf(line, sizeof line, "%s %s '%s'\t%s: %s\n", op_word, fastc ? "function" : "by", print_name.c_str(),
                 g.skip.empty() ? "ERROR" : "skipped", (g.skip.empty() ? g.error : g.skip).c_str());
        out += line;
        continue;
      }

      const CodeRef code = arena.ref(g.code);
      const KernelFn fn = code.as<KernelFn>();
      uint8_t* const b = buf.base + offset;
      auto pass = [&](size_t n) {
        for (size_t i = 0; i < n; ++i) fn(b + kPage * i, copy ? b + src_off + kPage * i : nullptr, kPage);
      };
      uint64_t t0, t1;
      if (fastc) {
        if (copy) sleep(1);
        t0 = rdtsc_plain();
        pass(pages);
        t1 = rdtsc_plain();
      } else {
        pass(pages);  // untimed warm-up
        t0 = rdtsc_plain();
        cpuid_serialise();
        pass(pages);
        cpuid_serialise();
        t1 = rdtsc_plain();
      }
      const bool invalid = t1 < t0;
      const uint64_t delta = invalid ? 0 : t1 - t0;
      const size_t divisor = fastc ? pages : 8192;  // athlon.c divides copies by all 8192 pages
      const long long printed_cycles = static_cast<long long>(delta / divisor);
      const double ns_per_page = double(delta) / double(pages) / m.tsc_hz * 1e9;
      const double hahn_mbs = fastc || delta == 0 ? 0 : 32.0 / (double(delta) / (mhz * 1e6));

      e["iterations"] = pages;
      e["real_time"] = ns_per_page;
      e["cpu_time"] = ns_per_page;
      e["time_unit"] = "ns";
      e["bytes_per_second"] = ns_per_page > 0 ? double(kPage) / (ns_per_page * 1e-9) : 0.0;
      e["kernel"] = p->id;
      e["kind"] = "preset";
      e["harness"] = std::string(to_string(h));
      e["size"] = kPage;
      e["params"] = params;
      e["cycles_per_page"] = printed_cycles;
      if (!fastc) {
        e["mb_per_s"] = hahn_mbs;
        e["mhz"] = mhz;
      }
      e["cycles_unit"] = "TSC ticks";
      e["preset"] = preset_json(*p, g.subs);
      char hash[32];
      snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(code.hash));
      e["code"] = {{"bytes", code.size}, {"fnv1a", hash}};
      if (!fastc && copy)
        e["note"] = "hahn copy figure is half the per-copy cost, as athlon.c printed it (delta/8192 for 4096 copies); "
                    "mb_per_s counts read + write traffic (32 MiB per pass); real_time is the true time per page copy";
      if (invalid) {
        e["error_occurred"] = true;
        e["error_message"] = "test invalid; timer overflow";
        out += std::string(op_word) + " function '" + print_name + "'\ttest invalid; timer overflow\n";
      } else {
        out += format_seed_line(*p, h, double(printed_cycles), hahn_mbs, print_name);
        // Same printed name as another preset of this run (fast.c vs Hahn variants): say which.
        for (const Preset* q : list)
          if (q && q != p && q->op == p->op && (q->printed == p->printed || q->hahn_printed == print_name)) {
            out += "\t(" + p->id + ")";
            break;
          }
        out += "\n";
      }
      res.entries.push_back(e);
    }
  }
  if (!fastc)
    out += "# copy lines: cycles are half the per-copy cost and MB/s counts read + write, as athlon.c printed them\n";
  res.text = out;
  return res;
}

}  // namespace kex
