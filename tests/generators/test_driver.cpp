// The generated timed loop (generators/driver.hpp): it makes exactly the calls of its records,
// in order, pass after pass, with each record's arguments; consume reads each destination
// back and sums what the read-back returned; a stack-aligned call; the empty routine returns.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "generators/driver.hpp"
#include "generators/jit.hpp"

using namespace kex;

namespace {

std::vector<CallArgs> g_seen;  // the calls the recording competitor was given
bool g_aligned = true;         // every call found rsp 16-aligned before its call pushed

void recording(void* d, const void* s, size_t n) {
  g_seen.push_back({static_cast<uint8_t*>(d), static_cast<const uint8_t*>(s), n});
  // At entry rsp + 8 is 16-aligned when the caller aligned the stack.
  g_aligned = g_aligned && (reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) % 16 == 0);
}

uint64_t reading(const uint8_t* d, size_t n) { return uint64_t(d[0]) * 1000 + n; }

/// The loop (with `read_back` for consume) and the empty routine, in one arena.
struct Loops {
  CodeArena arena;
  DriverFn plain, consume;
  KernelFn empty;
  Loops() {
    const size_t p = arena.add([](Xbyak::CodeGenerator& g) { emit_driver(g, nullptr); });
    const size_t c = arena.add([](Xbyak::CodeGenerator& g) { emit_driver(g, reading); });
    const size_t e = arena.add(emit_empty);
    arena.finalize();
    plain = arena.ref(p).as<DriverFn>();
    consume = arena.ref(c).as<DriverFn>();
    empty = arena.ref(e).as<KernelFn>();
  }
};

}  // namespace

TEST_CASE("timed loop: every record called in order, pass after pass, nothing for 0 calls or passes" *
          doctest::test_suite("generators")) {
  Loops l;
  uint8_t buf[64] = {};
  const std::vector<CallArgs> three = {{buf, buf + 8, 1}, {buf + 16, nullptr, 2}, {buf + 32, buf, 3}};
  g_seen.clear();
  CHECK(l.plain(three.data(), 3, 2, recording) == 0);
  REQUIRE(g_seen.size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    CHECK(g_seen[i].dst == three[i % 3].dst);
    CHECK(g_seen[i].src == three[i % 3].src);
    CHECK(g_seen[i].bytes == three[i % 3].bytes);
  }
  g_seen.clear();
  l.plain(three.data(), 1, 5, recording);  // one call a pass: the fixed-size loop
  CHECK(g_seen.size() == 5);
  CHECK(g_seen.back().bytes == 1);
  g_seen.clear();
  l.plain(three.data(), 0, 5, recording);
  l.plain(three.data(), 3, 0, recording);
  CHECK(g_seen.empty());
  CHECK(g_aligned);
  l.plain(three.data(), 3, 1000, l.empty);  // the empty competitor: returns at once
}

TEST_CASE("timed loop with consume: each destination read back after its call, the values summed" *
          doctest::test_suite("generators")) {
  Loops l;
  uint8_t buf[64] = {};
  buf[0] = 7;
  buf[16] = 9;
  const std::vector<CallArgs> two = {{buf, buf + 8, 5}, {buf + 16, buf, 6}};
  g_seen.clear();
  CHECK(l.consume(two.data(), 2, 3, recording) == 3 * (7005 + 9006));
  CHECK(g_seen.size() == 6);
  CHECK(l.consume(two.data(), 1, 4, recording) == 4 * 7005);
}
