#include "src/run/libc_child.hpp"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "src/core/numbers.hpp"
#include "src/core/stats.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"
#include "src/run/plans.hpp"

namespace kex {

std::vector<std::string> libc_child_args(const LibcJob& job) {
  std::string sizes;
  for (size_t i = 0; i < job.sizes.size(); ++i) sizes += (i ? "," : "") + std::to_string(job.sizes[i]);
  std::ostringstream budget;
  budget << job.budget_ms;
  return {"libc-child", "--op",  std::string(to_string(job.op)), "--fill", std::to_string(job.fill), "--sizes", sizes,
          "--budget-ms", budget.str()};
}

namespace {

/// Ticks of about 10-20 µs at 2-4 GHz: the length a sample of many short calls aims at.
constexpr double kSampleTicks = 40000;
constexpr uint32_t kMinSamples = 5;

double monotonic_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

LibcTiming time_size(KernelFn fn, uint8_t* dst, const uint8_t* src, uint64_t size, double budget_ms) {
  const uint64_t overhead = timer_overhead_ticks();
  uint64_t one = ~0ull;
  for (int i = 0; i < 3; ++i) {  // warm-up: the fastest call sizes the samples
    const uint64_t a = tsc_fenced();
    fn(dst, src, size);
    const uint64_t ticks = tsc_fenced() - a;
    one = std::min(one, ticks > overhead ? ticks - overhead : 1);
  }
  LibcTiming t;
  t.size = size;
  t.calls = uint64_t(std::clamp(kSampleTicks / double(std::max<uint64_t>(one, 1)), 1.0, 1e6));
  std::vector<double> per_call;
  const double end = monotonic_ms() + budget_ms;
  while (per_call.size() < kMinSamples || monotonic_ms() < end) {
    const uint64_t a = tsc_fenced();
    for (uint64_t k = 0; k < t.calls; ++k) fn(dst, src, size);
    const uint64_t b = tsc_fenced();
    const uint64_t ticks = b - a > overhead ? b - a - overhead : 1;
    per_call.push_back(double(ticks) / double(t.calls));
  }
  t.ticks = median(per_call);
  t.samples = uint32_t(per_call.size());
  return t;
}

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

}  // namespace

LibcReport run_libc_job(const LibcJob& job) {
  LibcReport r;
  if (const char* t = std::getenv("GLIBC_TUNABLES")) r.tunables = t;
  const uint64_t largest = *std::max_element(job.sizes.begin(), job.sizes.end());
  const size_t bytes = (largest + 4095) / 4096 * 4096;
  std::unique_ptr<uint8_t, FreeDeleter> src(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes)));
  std::unique_ptr<uint8_t, FreeDeleter> dst(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes)));
  if (!src || !dst) throw std::runtime_error("libc child: cannot allocate 2 x " + std::to_string(bytes) + " bytes");
  std::memset(src.get(), 0x5a, bytes);  // prefaulted, not zero pages
  std::memset(dst.get(), 0xa5, bytes);
  const KernelFn fn = libc_function(job.op, job.fill);
  for (uint64_t size : job.sizes) r.timings.push_back(time_size(fn, dst.get(), src.get(), size, job.budget_ms));
  return r;
}

std::string format_libc_report(const LibcReport& r) {
  std::ostringstream o;
  o.precision(17);
  o << "kex-libc-child 1\ntunables " << (r.tunables.empty() ? "-" : r.tunables) << "\n";
  for (const LibcTiming& t : r.timings)
    o << "size " << t.size << " ticks " << t.ticks << " calls " << t.calls << " samples " << t.samples << "\n";
  return o.str();
}

namespace {

[[noreturn]] void bad(size_t line, const std::string& what) {
  throw std::runtime_error("libc child: line " + std::to_string(line) + ": " + what);
}

double positive(std::string_view s, size_t line, const char* field) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v <= 0)
    bad(line, std::string(field) + " '" + std::string(s) + "': expected a finite number > 0");
  return v;
}

uint64_t whole(std::string_view s, size_t line, const char* field) {
  try {
    return parse_unsigned(s, 1, ~0ull);
  } catch (const NumberError& e) {
    bad(line, std::string(field) + " " + e.what());
  }
}

LibcTiming timing_line(const std::string& text, size_t line) {
  std::istringstream in(text);
  std::string k[4], v[4], extra;
  for (int i = 0; i < 4; ++i) in >> k[i] >> v[i];
  if (k[0] != "size" || k[1] != "ticks" || k[2] != "calls" || k[3] != "samples" || v[3].empty() || (in >> extra))
    bad(line, "'" + text + "': expected 'size N ticks X calls N samples N'");
  LibcTiming t;
  t.size = whole(v[0], line, "size");
  t.ticks = positive(v[1], line, "ticks");
  t.calls = whole(v[2], line, "calls");
  const uint64_t n = whole(v[3], line, "samples");
  if (n > 0xffffffffu) bad(line, "samples " + v[3] + ": too many");
  t.samples = uint32_t(n);
  return t;
}

}  // namespace

LibcReport parse_libc_report(const std::string& text, const LibcJob& job) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (lines.empty() || lines[0] != "kex-libc-child 1") bad(1, "expected 'kex-libc-child 1'");
  if (lines.size() < 2 || lines[1].rfind("tunables ", 0) != 0) bad(2, "expected 'tunables VALUE'");
  LibcReport r;
  r.tunables = lines[1].substr(9) == "-" ? "" : lines[1].substr(9);
  if (lines.size() != 2 + job.sizes.size())
    bad(lines.size() + 1, std::to_string(lines.size() - 2) + " size lines for " + std::to_string(job.sizes.size()) +
                              " sizes");
  for (size_t i = 0; i < job.sizes.size(); ++i) {
    r.timings.push_back(timing_line(lines[2 + i], 3 + i));
    if (r.timings.back().size != job.sizes[i])
      bad(3 + i, "size " + std::to_string(r.timings.back().size) + " where " + std::to_string(job.sizes[i]) +
                     " was asked");
  }
  return r;
}

}  // namespace kex
