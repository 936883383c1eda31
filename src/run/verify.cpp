#include "src/run/verify.hpp"

#include "src/core/units.hpp"
#include "src/run/sandbox.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace kex {

namespace {


/// The guard on either side of a verified buffer: as far as a kernel may reach from its
/// data, a prefetch distance (kMaxPfDistance) and an unrolled block (at most 8 KiB) beyond
/// it, so that a load that far past either end faults instead of reading another mapping.
constexpr size_t kGuardBytes = size_t(kMaxPfDistance) + 8192;

/// [PROT_NONE guard][cap bytes, read-write][PROT_NONE guard]
struct Guarded {
  uint8_t* base = nullptr;
  size_t cap = 0, total = 0;
  explicit Guarded(size_t bytes) {
    cap = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
    total = cap + 2 * kGuardBytes;
    void* p = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("verify: mmap failed");
    base = static_cast<uint8_t*>(p) + kGuardBytes;
    mprotect(base, cap, PROT_READ | PROT_WRITE);
  }
  ~Guarded() { munmap(base - kGuardBytes, total); }
  uint8_t* begin() const { return base; }
  uint8_t* end() const { return base + cap; }
};

uint8_t canary(size_t i) { return static_cast<uint8_t>(i * 131 + 0x5b); }

// kex_verify_call(fn, dst, src, n, regs): calls fn(dst, src, n) with rbx, rbp and r12-r15
// loaded from regs[1..6]; after it, regs[0] = rax (the result), regs[1..6] = those
// registers as the kernel left them, regs[7] = rflags (DF is bit 10). Its own registers
// are saved and restored around all of it, so a kernel that clobbers them is reported,
// not left to derail the verifier.
asm(".text\n"
    ".type kex_verify_call, @function\n"
    "kex_verify_call:\n"
    "  push %rbx\n  push %rbp\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"
    "  push %r8\n"  // regs, at 0(%rsp); the stack is 16-byte aligned at the call below
    "  mov %rdi, %rax\n  mov %rsi, %rdi\n  mov %rdx, %rsi\n  mov %rcx, %rdx\n"
    "  mov 8(%r8), %rbx\n  mov 16(%r8), %rbp\n  mov 24(%r8), %r12\n"
    "  mov 32(%r8), %r13\n  mov 40(%r8), %r14\n  mov 48(%r8), %r15\n"
    "  call *%rax\n"
    "  mov (%rsp), %r8\n"
    "  mov %rax, 0(%r8)\n  mov %rbx, 8(%r8)\n  mov %rbp, 16(%r8)\n  mov %r12, 24(%r8)\n"
    "  mov %r13, 32(%r8)\n  mov %r14, 40(%r8)\n  mov %r15, 48(%r8)\n"
    "  pushfq\n  pop %rax\n  mov %rax, 56(%r8)\n  cld\n"
    "  pop %r8\n  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbp\n  pop %rbx\n"
    "  ret\n"
    ".size kex_verify_call, .-kex_verify_call\n");
extern "C" void kex_verify_call(KernelFn fn, void* dst, const void* src, size_t n, uint64_t* regs);

/// The callee-saved registers of the SysV ABI as kex_verify_call's regs[1..6] hold them.
constexpr const char* kKeptNames[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};

/// What a kernel returned, against its arguments: "src", "0", "dst+8", or the address.
std::string result_text(uint64_t r, const uint8_t* d, const uint8_t* s, uint64_t n) {
  const auto dst = reinterpret_cast<uint64_t>(d);
  if (r == reinterpret_cast<uint64_t>(s)) return "src";
  if (r == 0) return "0";
  if (r > dst && r <= dst + n) return "dst+" + std::to_string(r - dst);
  char b[24];
  snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(r));
  return b;
}

/// MXCSR's control bits (exception masks, rounding, flush-to-zero, denormals-are-zero):
/// callee-saved in the SysV ABI, unlike its status flags (bits 0..5).
constexpr uint32_t kMxcsrControl = 0xffc0;

struct FpControl {
  uint32_t mxcsr = 0;
  uint16_t x87 = 0;
};

FpControl fp_control() {
  FpControl c;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(c.mxcsr), "=m"(c.x87));
  return c;
}

void set_fp_control(FpControl c) { asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(c.mxcsr), "m"(c.x87)); }

/// What a call changed of the floating-point control state ("" when nothing), which it
/// leaves as it found it for the next call.
std::string fp_control_changed(FpControl before) {
  const FpControl after = fp_control();
  std::string what;
  if ((after.mxcsr ^ before.mxcsr) & kMxcsrControl) what = "MXCSR's control bits";
  if (after.x87 != before.x87) what += std::string(what.empty() ? "" : " and ") + "the x87 control word";
  if (!what.empty()) set_fp_control(before);
  return what;
}

/// Runs the kernel once on (d, s, n) through kex_verify_call: "" or what the call broke:
/// a callee-saved register changed, the direction flag left set, MXCSR's control bits or
/// the x87 control word changed, or, for a routine that promises memcpy's, memmove's or
/// memset's result, a result other than dst.
std::string run_kernel(const VerifyTarget& t, uint8_t* d, const uint8_t* s, uint64_t n) {
  uint64_t regs[8] = {0};
  for (int i = 1; i <= 6; ++i) regs[i] = 0x6b65780000000000ull ^ (0x0101010101ull * uint64_t(i));
  const std::vector<uint64_t> kept(regs + 1, regs + 7);
  const FpControl fp = fp_control();
  kex_verify_call(t.fn, d, s, n, regs);
  if (const std::string fpc = fp_control_changed(fp); !fpc.empty())
    return "changes " + fpc + ", which a function must keep (callee-saved in the SysV ABI)";
  std::string changed;
  for (int i = 0; i < 6; ++i)
    if (regs[i + 1] != kept[size_t(i)]) changed += (changed.empty() ? "" : ", ") + std::string(kKeptNames[i]);
  if (!changed.empty())
    return "changes " + changed + ", which a function must keep (callee-saved in the SysV ABI)";
  if (regs[7] & (1u << 10)) return "returns with the direction flag set (the SysV ABI wants it clear)";
  if (!t.promises.empty() && regs[0] != reinterpret_cast<uint64_t>(d))
    return "returns " + result_text(regs[0], d, s, n) + ", not dst as " + t.promises + " does";
  return "";
}

std::string hex2(unsigned v) {
  char b[8];
  snprintf(b, sizeof b, "0x%02x", v & 0xff);
  return b;
}

}  // namespace

std::vector<uint64_t> verify_sizes(const VerifyTarget& t) {
  std::vector<uint64_t> cand = {0, 1, t.width - 1ull, t.width, t.width + 1ull, t.unroll - 1ull, t.unroll, t.unroll + 1ull,
                                2ull * t.unroll + t.width + 1, 4095, 4096, 4097};
  std::mt19937_64 rng(0x6b6578 ^ t.unroll ^ (uint64_t(t.width) << 20));
  for (int i = 0; i < 8; ++i) cand.push_back(rng() % (t.max_size + 1));
  cand.insert(cand.end(), t.edges.begin(), t.edges.end());
  std::vector<uint64_t> out;
  for (uint64_t s : cand) {
    if (s > t.max_size) continue;
    if (t.size_multiple > 1) s = s / t.size_multiple * t.size_multiple;
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (t.size_multiple > 1) {
    for (uint64_t k : {1ull, 2ull, 3ull})
      if (k * t.size_multiple <= t.max_size && std::find(out.begin(), out.end(), k * t.size_multiple) == out.end())
        out.push_back(k * t.size_multiple);
  }
  return out;
}

namespace {

/// Random source bytes with planted x87/SSE-hostile qwords (SNaN, -SNaN, INT64_MIN,
/// a denormal), so float-path copies that are not bit exact show up.
void fill_pattern_bytes(uint8_t* p, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v = rng();
    switch ((i / 8) % 13) {
      case 3: v = 0x7ff0000000000001ull; break;
      case 5: v = 0xfff0000000000001ull; break;
      case 7: v = 0x8000000000000000ull; break;
      case 11: v = 0x0000000000000001ull; break;
    }
    memcpy(p + i, &v, 8);
  }
}

/// The bytes at dst a kernel of `t` writes for n source bytes (a read: its 8-byte result).
uint64_t dst_span(const VerifyTarget& t, uint64_t n) { return t.is_read ? kReadResultBytes : n; }

/// Writes at `at` what a kernel of `t` leaves at dst for the n source bytes at `src`: the
/// bytes (copy; memmove, so `src` may overlap `at`), the fill (clear), or read_fold of the
/// source (read: 8 bytes, little-endian as the kernel stores it).
void write_wanted(const VerifyTarget& t, uint8_t* at, const uint8_t* src, uint64_t n) {
  if (t.is_read) {
    const uint64_t fold = read_fold(src, n);
    memcpy(at, &fold, kReadResultBytes);
  } else if (t.is_copy) {
    memmove(at, src, n);
  } else {
    memset(at, t.fill, n);
  }
}

/// The first index where the `cap` bytes at `got` and `want` differ; cap when none (one
/// whole-range compare; the walk runs only to find a difference).
size_t first_difference(const uint8_t* got, const uint8_t* want, size_t cap) {
  if (memcmp(got, want, cap) == 0) return cap;
  return static_cast<size_t>(std::mismatch(got, got + cap, want).first - got);
}

/// Where byte i of a buffer lies against a region [lo, lo + span) named `name`: "byte K"
/// inside (K from 0), "byte K before <name>" or "byte K after <name> end" outside (K from
/// 1: byte 1 before dst is dst[-1], byte 1 after dst end is dst[span]).
std::string position(size_t i, size_t lo, uint64_t span, const char* name) {
  if (i < lo) return "byte " + std::to_string(lo - i) + " before " + name;
  if (i >= lo + span) return "byte " + std::to_string(i - lo - span + 1) + " after " + name + " end";
  return "byte " + std::to_string(i - lo);
}

/// "" when dst holds `expect` (the canaries, and what the kernel must write at dst+lo), else
/// the first byte that differs: where it is, what it holds and what it should.
std::string dst_wrong(const VerifyTarget& t, const Guarded& dst, const std::vector<uint8_t>& expect, size_t lo,
                      uint64_t n) {
  const size_t i = first_difference(dst.begin(), expect.data(), dst.cap);
  if (i == dst.cap) return {};
  const uint64_t span = dst_span(t, n);
  const bool inside = i >= lo && i < lo + span;
  return position(i, lo, span, "dst") + " is " + hex2(dst.begin()[i]) + ", expected " + hex2(expect[i]) +
         (t.is_read && inside ? " (the XOR of the source bytes)" : "");
}

/// "" when the source buffer still holds `pristine` (a kernel only reads its source), else
/// the first byte it changed, placed against src's n bytes at offset so.
std::string source_written(const Guarded& src, const std::vector<uint8_t>& pristine, size_t so, uint64_t n) {
  const size_t i = first_difference(src.begin(), pristine.data(), src.cap);
  if (i == src.cap) return {};
  const bool inside = i >= so && i < so + n;
  return "the source was written: " + position(i, so, n, "src") + (inside ? " of src" : "") + " is " +
         hex2(src.begin()[i]) + ", expected " + hex2(pristine[i]);
}

std::vector<uint64_t> layout_sizes(const VerifyTarget& t) {
  std::vector<uint64_t> s = verify_sizes(t);
  for (uint64_t n : t.layout->sizes) {
    if (t.size_multiple > 1) n = n / t.size_multiple * t.size_multiple;
    if (std::find(s.begin(), s.end(), n) == s.end()) s.push_back(n);
  }
  return s;
}

/// src and dst regions that overlap: one guarded buffer, dst = src + distance; the
/// result must equal memmove's, bytes outside dst unchanged.
std::string verify_overlap(const VerifyTarget& t, const VerifyLayout& l) {
  const int64_t d = *l.distance;
  const uint64_t ad = static_cast<uint64_t>(d < 0 ? -d : d);
  // Exactly the measured sizes: whether a loop gives memmove's result depends on
  // the size (its tail) as much as on the distance.
  std::vector<uint64_t> sizes = l.sizes;
  if (sizes.empty()) sizes = verify_sizes(t);
  const uint64_t max_n = *std::max_element(sizes.begin(), sizes.end());
  Guarded buf(max_n + ad + 3 * kPageBytes);
  std::vector<uint8_t> want(buf.cap), start(buf.cap);
  fill_pattern_bytes(start.data(), start.size(), 7);
  for (uint64_t n : sizes) {
    for (int place = 0; place < 2; ++place) {
      // place 0: the lower region at the low guard; place 1: the upper region's end at the high guard.
      // src keeps its page offset; with a negative distance dst lies below it.
      const uint64_t below = d < 0 ? (ad + kPageBytes - 1) / kPageBytes * kPageBytes : 0;
      uint8_t* s = buf.begin() + below + l.src_page_offset % kPageBytes;
      if (place == 1) {
        uint8_t* top = std::max(s + n, s + d + dst_span(t, n));
        const uint64_t room = static_cast<uint64_t>(buf.end() - top);
        s += room / kPageBytes * kPageBytes;  // keep the page offset
      }
      uint8_t* dd = s + d;
      const size_t so = static_cast<size_t>(s - buf.begin()), doff = static_cast<size_t>(dd - buf.begin());
      memcpy(buf.begin(), start.data(), buf.cap);
      memcpy(want.data(), start.data(), buf.cap);
      write_wanted(t, want.data() + doff, want.data() + so, n);
      const std::string call = run_kernel(t, dd, s, n);
      const size_t i = first_difference(buf.begin(), want.data(), buf.cap);
      if (i == buf.cap && call.empty()) continue;
      return "size " + std::to_string(n) + ", distance " + std::to_string(d) + " (overlapping), src+" +
             std::to_string(l.src_page_offset) + (place ? " (at buffer end)" : "") + ": " +
             (!call.empty() ? call
                            : position(i, doff, dst_span(t, n), "dst") + " is " + hex2(buf.begin()[i]) + ", expected " +
                                  hex2(want[i]) + (t.is_copy ? " (memmove)" : ""));
    }
  }
  return {};
}

}  // namespace

std::string verify_in_process(const VerifyTarget& t) {
  if (t.layout && t.layout->distance) return verify_overlap(t, *t.layout);
  const bool cases = t.layout && !t.layout->cases.empty();
  const std::vector<uint64_t> sizes = cases ? std::vector<uint64_t>{} : t.layout ? layout_sizes(t) : verify_sizes(t);
  uint64_t max_n = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  if (cases)
    for (const VerifyLayout::Case& c : t.layout->cases) max_n = std::max(max_n, c.size);
  const size_t room = max_n + kPageBytes + 256;
  Guarded src(room), dst(room);
  fill_pattern_bytes(src.begin(), src.cap, 42);
  const std::vector<uint8_t> pristine(src.begin(), src.begin() + src.cap);  // what dst must get, src must keep
  std::vector<uint8_t> canaries(dst.cap), expect(dst.cap);
  for (size_t i = 0; i < dst.cap; ++i) canaries[i] = canary(i);
  const uint32_t a = std::max<uint32_t>(1, t.alignment);
  std::vector<std::pair<uint32_t, uint32_t>> offsets = {{0, 0}, {1, 3}, {8, 0}, {0, 8}, {63, 1}, {16, 48}, {64, 64}, {7, 7}};
  if (t.layout) offsets = {{t.layout->dst_page_offset % kPageBytes, t.layout->src_page_offset % kPageBytes}};
  // (size, dst offset, src offset): every size at every offset pair, or a stream's cases.
  std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> tries;
  for (uint64_t n : sizes)
    for (auto [doff, soff] : offsets) tries.emplace_back(n, doff, soff);
  if (cases)
    for (const VerifyLayout::Case& c : t.layout->cases)
      tries.emplace_back(c.size, c.dst_page_offset % kPageBytes, c.src_page_offset % kPageBytes);
  for (auto [n, doff, soff] : tries) {
    {
      if (doff % a || soff % a) continue;
      for (int place = 0; place < 2; ++place) {
        const uint64_t span = dst_span(t, n);
        // place 0: at the low guard (+offset); place 1: the end at the high guard
        // (keeping the offset's page position when a layout is exact, else rounded
        // down to the alignment), so over-runs either way fault.
        uint8_t* d = place == 0 ? dst.begin() + doff : dst.end() - span - doff;
        uint8_t* s = place == 0 ? src.begin() + soff : src.end() - n - soff;
        if (place == 1 && t.layout) {
          d = dst.begin() + doff + (static_cast<size_t>(dst.end() - span - dst.begin()) - doff) / kPageBytes * kPageBytes;
          s = src.begin() + soff + (static_cast<size_t>(src.end() - n - src.begin()) - soff) / kPageBytes * kPageBytes;
        } else if (place == 1) {
          d -= reinterpret_cast<uintptr_t>(d) % a;
          s -= reinterpret_cast<uintptr_t>(s) % a;
          if (reinterpret_cast<uintptr_t>(d) % 64 != doff % 64 && a > 1) continue;
        }
        memcpy(dst.begin(), canaries.data(), dst.cap);
        std::string wrong = run_kernel(t, d, s, n);
        const size_t lo = static_cast<size_t>(d - dst.begin()), so = static_cast<size_t>(s - src.begin());
        memcpy(expect.data(), canaries.data(), dst.cap);
        write_wanted(t, expect.data() + lo, pristine.data() + so, n);
        if (wrong.empty()) wrong = dst_wrong(t, dst, expect, lo, n);
        if (wrong.empty()) wrong = source_written(src, pristine, so, n);
        if (wrong.empty()) continue;
        return "size " + std::to_string(n) + ", dst+" + std::to_string(doff) + " src+" + std::to_string(soff) +
               (place ? " (at buffer end)" : "") + ": " + wrong;
      }
    }
  }
  return {};
}

void verify_all(std::vector<Verification>& checks, const volatile std::sig_atomic_t* stop, SharedObjects* objects) {
  auto outcomes = run_sandboxed(
      checks.size(), [&](size_t i) { return verify_in_process(checks[i].target); }, 20, stop, CallFilter::kernels,
      objects);
  for (size_t i = 0; i < checks.size(); ++i) {
    const SandboxOutcome& o = outcomes[i];
    const VerifyTarget& t = checks[i].target;
    Verdict& v = checks[i].verdict;
    if (o.finished) {
      v.message = o.message;
      continue;
    }
    v.signal = o.signal;
    v.fault_offset = fault_offset(o, t.code, t.code_size);
    v.message = o.message == "interrupted" ? o.message : describe_death(o, t.code, t.code_size) + " while verifying";
  }
}

std::vector<std::string> verify_in_child(const std::vector<VerifyTarget>& targets) {
  std::vector<Verification> checks;
  for (const VerifyTarget& t : targets) checks.push_back({t, {}});
  verify_all(checks);
  std::vector<std::string> out;
  for (const Verification& c : checks) out.push_back(c.verdict.message);
  return out;
}

Status verification_status(const Verification& c) {
  const Verdict& v = c.verdict;
  if (v.ok()) return {};
  const bool placed = c.target.layout.has_value();
  if (placed && c.target.layout->distance && !v.signal)
    return {StatusKind::skipped, "refused: the kernel does not give memmove's result where src and dst overlap: " + v.message};
  return {StatusKind::error, std::string(placed ? "verification at this placement failed" : "verification failed") + ": " + v.message,
          v.signal, v.fault_offset};
}

}  // namespace kex
