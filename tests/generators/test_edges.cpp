// Overlap edges (KernelSpec::edges): a kernel of every class wider than a byte, both ops,
// both directions, temporal and non-temporal, aligned and unaligned, two unroll/scratch
// shapes, at every size up to 3 unrolls + width + 1 and at odd sizes (608 ... 26400), at
// src/dst offsets 0..width, moves exactly [dst, dst + n): dst holds the source (or the
// fill) byte for byte, the bytes around it are untouched, and with src or dst against a
// PROT_NONE page a read or write outside the buffers kills the job (a failed check).
#include <doctest/doctest.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/core/cpu_features.hpp"
#include "src/core/units.hpp"
#include "src/run/sandbox.hpp"

using namespace kex;

namespace {

/// Every overlap kernel of the test: per class wider than one byte, op, direction, store,
/// alignment, a small shape (two registers an iteration, one in flight) and the class's
/// default one; those this CPU cannot run are left out.
std::vector<KernelSpec> overlap_specs() {
  std::vector<KernelSpec> out;
  for (auto op : {Op::copy, Op::clear})
    for (const auto& ci : reg_classes()) {
      if (ci.width < 2) continue;
      for (int shape = 0; shape < 2; ++shape)
        for (auto store : {Store::temporal, Store::nontemporal})
          for (auto dir : {Direction::forward, Direction::backward})
            for (auto align : {Align::unaligned, Align::aligned}) {
              KernelSpec s = default_spec(op, ci.cls);
              if (shape == 0) {
                s.unroll = 2 * ci.width;
                s.scratch = 1;
              }
              s.store = store;
              s.direction = dir;
              s.align = align;
              s.edges = Edges::overlap;
              if (op == Op::clear) s.fill = 0xa7;
              if (validate(s).empty() && cpu_unsupported_reason(s).empty()) out.push_back(s);
            }
    }
  return out;
}

/// `bytes` of read-write memory with a PROT_NONE page on each side.
struct Fenced {
  uint8_t* lo = nullptr;
  size_t cap = 0;
  explicit Fenced(size_t bytes) : cap((bytes + kPageBytes - 1) / kPageBytes * kPageBytes) {
    void* p = mmap(nullptr, cap + 2 * kPageBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    lo = static_cast<uint8_t*>(p) + kPageBytes;
    mprotect(lo, cap, PROT_READ | PROT_WRITE);
  }
  ~Fenced() { munmap(lo - kPageBytes, cap + 2 * kPageBytes); }
  Fenced(const Fenced&) = delete;
  Fenced& operator=(const Fenced&) = delete;
  uint8_t* hi() const { return lo + cap; }
};

/// The sizes of the test: 0 .. 3 * unroll + width + 1, and odd ones kex tune meets.
std::vector<uint64_t> edge_sizes(const KernelSpec& s) {
  std::vector<uint64_t> out;
  const uint64_t top = 3ull * s.unroll + reg_class_info(s.regs).width + 1;
  for (uint64_t n = 0; n <= top; ++n) out.push_back(n);
  for (uint64_t n : {608ull, 1000ull, 1300ull, 4097ull, 26400ull})
    if (n > top) out.push_back(n);
  return out;
}

/// Bytes checked on each side of dst (the canary must survive there).
constexpr size_t kSide = 192;
constexpr uint8_t kCanary = 0xc3;

/// One call of the kernel with dst at `d`, src at `src`, n bytes; "" when dst holds the
/// source (or the fill) and the kSide bytes on each side of it (within the mapping) the canary.
std::string one_call(KernelFn fn, const KernelSpec& s, const Fenced& dst, uint8_t* d, const uint8_t* src, size_t n,
                     const std::vector<uint8_t>& fill) {
  uint8_t* from = std::max(dst.lo, d - kSide);
  uint8_t* to = std::min(dst.hi(), d + n + kSide);
  std::memset(from, kCanary, static_cast<size_t>(to - from));
  fn(d, src, n);
  const uint8_t* want_inside = s.op == Op::copy ? src : fill.data();
  static const std::vector<uint8_t> canary(kSide, kCanary);
  if (std::memcmp(d, want_inside, n) == 0 && std::memcmp(from, canary.data(), static_cast<size_t>(d - from)) == 0 &&
      std::memcmp(d + n, canary.data(), static_cast<size_t>(to - (d + n))) == 0)
    return {};
  for (const uint8_t* p = from; p < to; ++p) {
    const bool inside = p >= d && p < d + n;
    const uint8_t want = inside ? want_inside[p - d] : kCanary;
    if (*p == want) continue;
    const std::string where = inside ? "byte " + std::to_string(p - d)
                              : p < d ? std::to_string(d - p) + " bytes before dst"
                                      : "byte " + std::to_string(p - d - n) + " after dst's end";
    return where + " is " + std::to_string(*p) + ", expected " + std::to_string(want);
  }
  return "mismatch";
}

/// Every size of edge_sizes at dst offsets 0..width (those the alignment allows), each
/// with three src offsets, with both buffers at the low end of their mappings and at the
/// high end. Returns "" or the first failure.
std::string check_kernel(KernelFn fn, const KernelSpec& s) {
  const uint32_t w = reg_class_info(s.regs).width, a = required_alignment(s);
  const std::vector<uint64_t> sizes = edge_sizes(s);
  const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  Fenced src(max_n + 2 * w), dst(max_n + 2 * w + 2 * kSide);
  std::mt19937_64 rng(99);
  for (size_t i = 0; i < src.cap; ++i) src.lo[i] = static_cast<uint8_t>(rng());
  const std::vector<uint8_t> fill(max_n, s.fill);
  for (uint64_t n : sizes)
    for (uint32_t doff = 0; doff <= w; doff += a)
      for (uint32_t soff : {doff, (doff * 7 + 3) % (w + 1), w - doff}) {
        if (soff % a) continue;
        for (int place = 0; place < 2; ++place) {
          // place 1: the ends against the high guard page (rounded down to the alignment).
          uint8_t* d = place == 0 ? dst.lo + doff : dst.hi() - n - doff;
          const uint8_t* from = place == 0 ? src.lo + soff : src.hi() - n - soff;
          d -= reinterpret_cast<uintptr_t>(d) % a;
          from -= reinterpret_cast<uintptr_t>(from) % a;
          const std::string why = one_call(fn, s, dst, d, from, n, fill);
          if (!why.empty())
            return "size " + std::to_string(n) + ", dst+" + std::to_string(doff) + " src+" + std::to_string(soff) +
                   (place ? " (at the mapping's end)" : "") + ": " + why;
        }
      }
  return {};
}

/// Every kernel of `specs` generated and checked by `check` (its "" when right), each in a
/// sandboxed child (a fault is a failed check, named with where it died).
template <class Check>
void check_all(const std::vector<KernelSpec>& specs, Check check) {
  CodeArena arena;
  std::vector<size_t> idx;
  for (const auto& s : specs) idx.push_back(arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); }));
  arena.finalize();
  const auto outcomes = run_sandboxed(
      specs.size(), [&](size_t i) { return check(arena.ref(idx[i]).as<KernelFn>(), specs[i]); }, 120);
  for (size_t i = 0; i < specs.size(); ++i) {
    const SandboxOutcome& o = outcomes[i];
    const CodeRef r = arena.ref(idx[i]);
    CHECK_MESSAGE((o.finished && o.message.empty()),
                  spec_name(specs[i]) << ": " << (o.finished ? o.message : describe_death(o, r.code, r.size)));
  }
}

}  // namespace

TEST_CASE("overlap edges: every class, op, direction, store and alignment moves exactly [dst, dst+n)" *
          doctest::test_suite("generator")) {
  const std::vector<KernelSpec> specs = overlap_specs();
  CHECK(specs.size() >= 60);  // gpr, mmx, x87, sse and avx at least, on any x86-64 CI machine
  check_all(specs, [](KernelFn fn, const KernelSpec& s) { return check_kernel(fn, s); });
}

TEST_CASE("overlap edges: the small path, the head and the tail are where the spec puts them" *
          doctest::test_suite("generator")) {
  // Below one width the kernel moves bytes; from one width on, no single-byte move runs
  // outside the small path: copy/sse/.../overlap has exactly one byte loop, byte_tail's.
  auto code_of = [](const std::string& name) {
    CodeArena a;
    const size_t i = a.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, parse_spec_name(name)); });
    a.finalize();
    const CodeRef r = a.ref(i);
    return std::vector<uint8_t>(r.code, r.code + r.size);
  };
  auto count = [](const std::vector<uint8_t>& code, std::initializer_list<uint8_t> pat) {
    const std::vector<uint8_t> p(pat);
    size_t n = 0;
    for (auto it = code.begin(); (it = std::search(it, code.end(), p.begin(), p.end())) != code.end(); ++it) ++n;
    return n;
  };
  // mov r11b, [rsi + rdx] (44 8a 1c 16): the byte move of a copy.
  const std::initializer_list<uint8_t> byte_load = {0x44, 0x8a, 0x1c, 0x16};
  CHECK(count(code_of("copy/sse/unroll:64/nt/fwd"), byte_load) == 1);           // the tail's (the head's is [rsi])
  CHECK(count(code_of("copy/sse/unroll:64/nt/fwd/overlap"), byte_load) == 1);   // the small path's
  CHECK(count(code_of("copy/sse/unroll:64/nt/bwd"), byte_load) == 2);           // head and tail
  CHECK(count(code_of("copy/sse/unroll:64/nt/bwd/overlap"), byte_load) == 1);   // the small path's
  // movdqu xmm0, [rsi + rdx - 16] (f3 0f 6f 44 16 f0): the forward tail's overlapping move.
  CHECK(count(code_of("copy/sse/unroll:64/t/fwd/overlap"), {0xf3, 0x0f, 0x6f, 0x44, 0x16, 0xf0}) == 1);
  CHECK(count(code_of("copy/sse/unroll:64/t/fwd"), {0xf3, 0x0f, 0x6f, 0x44, 0x16, 0xf0}) == 0);
}

namespace {

/// Every kernel of small strategy `small` in the test: per class wider than one byte, op,
/// direction, edges and store, at two registers an iteration; those this CPU cannot run
/// left out.
std::vector<KernelSpec> small_specs(Small small) {
  std::vector<KernelSpec> out;
  for (auto op : {Op::copy, Op::clear})
    for (const auto& ci : reg_classes()) {
      if (ci.width < 2) continue;
      for (auto store : {Store::temporal, Store::nontemporal})
        for (auto dir : {Direction::forward, Direction::backward})
          for (auto edges : {Edges::bytes, Edges::overlap}) {
            KernelSpec s = default_spec(op, ci.cls);
            s.unroll = 2 * ci.width;
            s.scratch = 1;
            s.store = store;
            s.direction = dir;
            s.edges = edges;
            s.small = small;
            if (op == Op::clear) s.fill = 0x5d;
            if (validate(s).empty() && cpu_unsupported_reason(s).empty()) out.push_back(s);
          }
    }
  return out;
}

/// A small:overlap copy below one width with src and dst overlapping at every distance
/// -n..n: dst ends as memmove leaves it (both halves are loaded before either is stored).
std::string check_small_overlapping(KernelFn fn, const KernelSpec& s) {
  const uint32_t w = reg_class_info(s.regs).width;
  std::vector<uint8_t> buf(4 * w), want(4 * w);
  for (uint32_t n = 0; n < w; ++n)
    for (int64_t dist = -int64_t(n); dist <= int64_t(n); ++dist) {
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = want[i] = static_cast<uint8_t>(i * 37 + 11);
      uint8_t* src = buf.data() + w;
      std::memmove(want.data() + w + dist, want.data() + w, n);
      fn(src + dist, src, n);
      if (buf != want) return "size " + std::to_string(n) + ", dst - src " + std::to_string(dist) + ": not memmove's result";
    }
  return {};
}

}  // namespace

TEST_CASE("small strategies: every class, op, direction, edges and store moves exactly [dst, dst+n), a copy as memmove "
          "but by rep" * doctest::test_suite("generator")) {
  for (Small small : {Small::overlap, Small::mask, Small::rep, Small::table}) {
    CAPTURE(to_string(small));
    const std::vector<KernelSpec> specs = small_specs(small);
    // gpr, mmx, x87, sse and avx at least, on any x86-64 CI machine; mask only with AVX-512BW and VL.
    const bool masks = missing_features(Feature::avx512bw | Feature::avx512vl).empty();
    if (small != Small::mask || masks) CHECK(specs.size() >= 30);
    else CHECK(specs.empty());
    check_all(specs, [](KernelFn fn, const KernelSpec& s) {
      std::string why = check_kernel(fn, s);
      if (why.empty() && s.op == Op::copy && s.small != Small::rep) why = check_small_overlapping(fn, s);
      return why;
    });
  }
}

TEST_CASE("rep:N: calls of N bytes and more take rep movsb/stosb, the rest the small path and the loop, exactly [dst, dst+n)" *
          doctest::test_suite("generator")) {
  std::vector<KernelSpec> specs;
  for (Small small : {Small::bytes, Small::overlap, Small::mask})
    for (KernelSpec s : small_specs(small)) {
      if (s.store == Store::nontemporal || s.direction == Direction::backward) continue;
      s.rep_above = 3 * reg_class_info(s.regs).width + 5;  // odd: sizes on both sides, up to 3 unrolls + width + 1
      if (validate(s).empty()) specs.push_back(s);
    }
  CHECK(specs.size() >= 10);
  check_all(specs, [](KernelFn fn, const KernelSpec& s) { return check_kernel(fn, s); });
  const KernelSpec r = parse_spec_name("copy/avx/unroll:128/small:overlap/rep:2048");
  CHECK(r.rep_above == 2048);
  CHECK(spec_name(r) == "copy/avx/unroll:128/scratch:4/t/fwd/small:overlap/rep:2048");
  CHECK(validate(parse_spec_name("copy/avx/unroll:128/rep:16")) == "rep:16 is out of range: 32 (the class width) to 1073741824 bytes");
  CHECK(validate(parse_spec_name("read/avx/unroll:128/rep:4096")) == "a read takes no rep:N (rep movs/stos are a copy's and a clear's)");
  CHECK(validate(parse_spec_name("copy/string/unroll:1/rep:4096")) == "the string class takes no rep:N (it is rep movs/stos at every size)");
}

TEST_CASE("small strategies: mask needs AVX-512BW and VL, rep and table take no more than the class" *
          doctest::test_suite("spec")) {
  const FeatureSet mask = spec_needs(parse_spec_name("copy/sse/unroll:32/small:mask"));
  CHECK((mask.has(Feature::avx512bw) && mask.has(Feature::avx512vl) && mask.has(Feature::sse2)));
  CHECK(spec_needs(parse_spec_name("copy/sse/unroll:32/small:rep")) == spec_needs(parse_spec_name("copy/sse/unroll:32")));
  CHECK(spec_needs(parse_spec_name("clear/avx/unroll:64/small:table")) == spec_needs(parse_spec_name("clear/avx/unroll:64")));
  for (const char* name : {"copy/gpr/unroll:16/small:mask", "clear/avx512/small:rep", "copy/x87/small:table"})
    CHECK(spec_name(parse_spec_name(name)).find(std::string("/small:") + (std::strrchr(name, ':') + 1)) != std::string::npos);
  CHECK(validate(parse_spec_name("read/avx/unroll:64/small:mask")) ==
        "a read takes small:bytes only (small:mask: the small strategies are a copy's and a clear's)");
}

TEST_CASE("small:overlap: the name round-trips, bytes is the default, reads and the string class refuse it" *
          doctest::test_suite("spec")) {
  const KernelSpec s = parse_spec_name("copy/avx/unroll:128/small:overlap");
  CHECK(s.small == Small::overlap);
  CHECK(spec_name(s) == "copy/avx/unroll:128/scratch:4/t/fwd/small:overlap");
  CHECK(parse_spec_name("copy/avx/unroll:128/small:bytes") == parse_spec_name("copy/avx/unroll:128"));
  CHECK(spec_name(parse_spec_name("copy/avx/unroll:128/small:bytes")) == "copy/avx/unroll:128/scratch:4/t/fwd");
  CHECK(validate(parse_spec_name("read/sse/unroll:64/small:overlap")) ==
        "a read takes small:bytes only (small:overlap: the small strategies are a copy's and a clear's)");
  CHECK(validate(parse_spec_name("copy/string/unroll:1/small:overlap")) ==
        "the string class has no small path (rep movs/stos moves every byte itself)");
  CHECK_THROWS_WITH(parse_spec_name("copy/sse/small:jump"), doctest::Contains("allowed small:bytes|overlap|mask|rep|table"));
  CHECK_THROWS_WITH(parse_spec_name("copy/sse/small:overlap/small:bytes"), doctest::Contains("'small' is given twice"));
}
