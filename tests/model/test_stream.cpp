// Drawing a stream (src/model/stream.hpp): one seed gives one stream, two seeds two; every
// call lies inside its regions, aligned as drawn; sizes over half the footprint are capped
// and counted; a stream of one size is that size every call.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "src/model/distribution.hpp"
#include "src/model/stream.hpp"

using namespace kex;

TEST_CASE("streams: one seed draws one stream, another seed another, every call inside its regions" *
          doctest::test_suite("model")) {
  const Distribution d = *shipped_distribution("Memcpy_Fleet");
  const StreamDraw how{7, 4096, 1 << 20};
  const Stream a = draw_stream(d, how), b = draw_stream(d, how), c = draw_stream(d, {8, 4096, 1 << 20});
  CHECK(a.calls == b.calls);
  CHECK(a.bytes == b.bytes);
  CHECK(a.calls != c.calls);
  REQUIRE(a.calls.size() == 4096);
  std::map<uint64_t, size_t> low_bits;  // alignment classes of dst
  for (const StreamCall& k : a.calls) {
    CHECK(k.src_offset + k.size <= how.footprint);
    CHECK(k.dst_offset + k.size <= how.footprint);
    CHECK(!k.overlapping);
    ++low_bits[k.dst_offset & 63];
  }
  CHECK(low_bits.size() > 30);  // the alignment line spreads the offsets
  CHECK(a.capped == 0);
  CHECK(a.bytes > 4096 * 50);   // about 135 B a call
}

TEST_CASE("streams: sizes over half the footprint are capped and counted, memmove's calls overlap as drawn" *
          doctest::test_suite("model")) {
  const Distribution big = parse_distribution("100:0.5,5000:0.5\n", "big", "big.csv");
  const Stream s = draw_stream(big, {1, 1000, 4096});
  size_t at_cap = 0;
  for (const StreamCall& k : s.calls) at_cap += k.size == 2048;
  CHECK(s.capped == at_cap);
  CHECK(s.capped > 400);
  CHECK(s.capped < 600);
  const Distribution move = *shipped_distribution("Memmove_Fleet");
  const Stream m = draw_stream(move, {3, 100000, 1 << 16});
  CHECK(m.overlapping > 300);  // 0.8% of 100,000 (calls of one byte never overlap)
  for (const StreamCall& k : m.calls) {
    CHECK(k.src_offset + k.size <= (1u << 16));
    CHECK(k.dst_offset + k.size <= (1u << 16));
    if (k.overlapping) CHECK((k.src_offset < k.dst_offset + k.size && k.dst_offset < k.src_offset + k.size));
  }
  const Stream one = draw_stream(parse_distribution("size,count\n64,1\n", "one", "one.csv"), {1, 10, 4096});
  for (const StreamCall& k : one.calls) CHECK(k.size == 64);
  CHECK(one.bytes == 640);
}

TEST_CASE("streams: each worker of a point with threads makes the same calls, in an order of its own" *
          doctest::test_suite("model")) {
  const std::vector<uint32_t> own = worker_call_order(1000, 7, 0);
  for (uint32_t i = 0; i < 1000; ++i) REQUIRE(own[i] == i);  // worker 0: the stream's order
  const std::vector<uint32_t> one = worker_call_order(1000, 7, 1), two = worker_call_order(1000, 7, 2);
  CHECK(one == worker_call_order(1000, 7, 1));  // drawn again: the same
  CHECK(one != two);
  CHECK(one != worker_call_order(1000, 8, 1));  // another seed: another order
  for (const auto& order : {one, two}) {
    std::vector<uint32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == own);  // a permutation: every call once
    size_t in_place = 0;
    for (uint32_t i = 0; i < 1000; ++i) in_place += order[i] == i;
    CHECK(in_place < 20);  // not the stream's order (a random permutation leaves about 1 in place)
  }
  CHECK(worker_call_order(0, 1, 3).empty());
}
