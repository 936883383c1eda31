// The size dispatch table: parsing, its text form, and the errors that name the item.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/dispatch.hpp"

using namespace kex;

namespace {
std::string dispatch_error(const std::string& text) {
  try {
    parse_dispatch(text, "--dispatch");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a dispatch table parses, and its text parses back to it" * doctest::test_suite("dispatch")) {
  const DispatchTable t = parse_dispatch("256:rep_movsb,4K:copy/avx/unroll:128,64KiB:linux/copy_page,copy/avx/nt", "x");
  REQUIRE(t.entries.size() == 4);
  CHECK(t.entries[0] == DispatchEntry{256, "rep_movsb"});
  CHECK(t.entries[1] == DispatchEntry{4096, "copy/avx/unroll:128"});
  CHECK(t.entries[2] == DispatchEntry{65536, "linux/copy_page"});
  CHECK(t.entries[3] == DispatchEntry{kDispatchRest, "copy/avx/nt"});
  CHECK(dispatch_text(t) == "256:rep_movsb,4096:copy/avx/unroll:128,65536:linux/copy_page,copy/avx/nt");
  CHECK(parse_dispatch(dispatch_text(t), "x") == t);
  // One row: every size to one kernel; a name with ':' (asami ids) as the last row.
  CHECK(parse_dispatch("asami/unroll:96/scratch:2/every:32", "x").entries ==
        std::vector<DispatchEntry>{{kDispatchRest, "asami/unroll:96/scratch:2/every:32"}});
  CHECK(parse_dispatch("0:memcpy,memset", "x").entries[0].max_bytes == 0);
}

TEST_CASE("dispatch errors name the option, the item and what is allowed" * doctest::test_suite("dispatch")) {
  CHECK(dispatch_error("") == "--dispatch: an empty item; allowed: SIZE:NAME,...,NAME");
  CHECK(dispatch_error("256:a,,b") == "--dispatch: an empty item; allowed: SIZE:NAME,...,NAME");
  CHECK(dispatch_error("4096:a,256:b,c") ==
        "--dispatch: '256:b': the bound 256 is not above the previous one (4096); bounds must ascend");
  CHECK(dispatch_error("256:a,256:b,c") ==
        "--dispatch: '256:b': the bound 256 is not above the previous one (256); bounds must ascend");
  CHECK(dispatch_error("256:a,4096:b") ==
        "--dispatch: '4096:b': the last item is the kernel for every larger size: NAME without SIZE:");
  // A bound too large is named so, with the largest there is (a tune file's dispatch reads the same range).
  for (const char* big : {"1152921504606846977:a,b", "4611686018427387904:a,b", "18446744073709551615:a,b",
                          "99999999999999999999:a,b", "2097152TiB:a,b"}) {
    CAPTURE(big);
    CHECK(dispatch_error(big) == "--dispatch: '" + std::string(big).substr(0, std::string(big).find(',')) +
                                     "': the bound is above the largest, 1152921504606846976 bytes (2^60)");
  }
  CHECK(parse_dispatch("1152921504606846976:a,b", "--dispatch").entries[0].max_bytes == kMaxDispatchBound);
  CHECK(dispatch_error("copy/sse/unroll:64,memcpy") ==
        "--dispatch: 'copy/sse/unroll:64': expected SIZE:NAME (SIZE in bytes or 4K, 64KiB, ...); only the last "
        "item is a NAME alone");
  CHECK(dispatch_error("256:,memcpy") == "--dispatch: '256:': no kernel name after the size");
  CHECK(dispatch_error("4KB:a,b").find("'4KB:a': expected SIZE:NAME") != std::string::npos);  // ambiguous unit refused
}
