// A stream tune's composition step (issue 51): the neighbours tried around the current
// choice, beyond the config's grid.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/model/dispatch_kernel.hpp"
#include "src/model/spec.hpp"
#include "src/model/tune_compose.hpp"

using namespace kex;

namespace {
bool listed(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }
std::string canon(const std::string& name) { return spec_name(parse_spec_name(name)); }
}  // namespace

TEST_CASE("a spec with rep:N: its threshold moved, and dispatches of the loops left at the stream's bounds" *
          doctest::test_suite("tune")) {
  const std::string center = canon("copy/sse/overlap/small:overlap/rep:256");
  const std::string loop = canon("copy/sse/overlap/small:overlap");
  const std::string other = canon("copy/gpr/unroll:128");
  const auto n = compose_neighbours(center, {"memcpy", other, "rep_movsb"}, {16, 96});
  for (const char* r : {"rep:128", "rep:192", "rep:384", "rep:512"})
    CHECK_MESSAGE(listed(n, canon("copy/sse/overlap/small:overlap/" + std::string(r))), r);
  CHECK(listed(n, "dispatch:16:" + loop + ",rep_movsb"));
  CHECK(listed(n, "dispatch:96:" + loop + ",255:" + other + ",rep_movsb"));  // the center's rep threshold kept
  CHECK(listed(n, "dispatch:96:" + other + ",255:" + loop + ",rep_movsb"));
  CHECK(!listed(n, center));
  // Bounds below a loop's width make no row for it (gpr's 8 B; sse's 16 B).
  CHECK(std::none_of(n.begin(), n.end(), [&](const std::string& x) { return x.rfind("dispatch:8:", 0) == 0; }));
  for (const std::string& x : n)
    if (is_dispatch_name(x)) CHECK_NOTHROW(parse_dispatch_kernel(x));
}

TEST_CASE("a dispatch's neighbours move each bound to half and twice, keeping the rows ascending" *
          doctest::test_suite("tune")) {
  const std::string a = canon("copy/sse"), b = canon("copy/gpr");
  const std::string center = "dispatch:64:" + a + ",128:" + b + ",rep_movsb";
  const auto n = compose_neighbours(center, {}, {32});
  CHECK(n == std::vector<std::string>{"dispatch:32:" + a + ",128:" + b + ",rep_movsb",
                                      "dispatch:64:" + a + ",256:" + b + ",rep_movsb"});
}

TEST_CASE("finer levels move only the thresholds: by 2^(1/4), then 2^(1/8), rounded to whole bytes" *
          doctest::test_suite("tune")) {
  const std::string center = canon("copy/sse/overlap/small:overlap/rep:1024");
  const std::string other = canon("copy/gpr/unroll:128");
  CHECK(compose_neighbours(center, {other}, {96}, 1) ==
        std::vector<std::string>{canon("copy/sse/overlap/small:overlap/rep:861"), canon("copy/sse/overlap/small:overlap/rep:1218")});
  CHECK(compose_neighbours(center, {other}, {96}, 2) ==
        std::vector<std::string>{canon("copy/sse/overlap/small:overlap/rep:939"), canon("copy/sse/overlap/small:overlap/rep:1117")});
  const std::string a = canon("copy/sse"), b = canon("copy/gpr");
  CHECK(compose_neighbours("dispatch:1000:" + a + ",4000:" + b + ",rep_movsb", {}, {}, 1) ==
        std::vector<std::string>{"dispatch:841:" + a + ",4000:" + b + ",rep_movsb", "dispatch:1189:" + a + ",4000:" + b + ",rep_movsb",
                                 "dispatch:1000:" + a + ",3364:" + b + ",rep_movsb", "dispatch:1000:" + a + ",4757:" + b + ",rep_movsb"});
  CHECK(compose_neighbours(canon("copy/sse/overlap"), {other}, {96}, 1).empty());  // no threshold to move
  CHECK(compose_neighbours("rep_movsb", {other}, {96}, 1).empty());
}

TEST_CASE("rep movsb as the choice: the loops left below each bound, and names of no kernel give none" *
          doctest::test_suite("tune")) {
  const std::string loop = canon("copy/sse/overlap/small:overlap");
  CHECK(compose_neighbours("rep_movsb", {"memcpy", loop}, {48}) == std::vector<std::string>{"dispatch:48:" + loop + ",rep_movsb"});
  CHECK(compose_neighbours("memcpy", {loop}, {48}).empty());
  CHECK(compose_neighbours("glibc/__memcpy_erms", {loop}, {48}).empty());
  const std::string clear = canon("clear/sse");
  CHECK(compose_neighbours("rep_stosb", {clear}, {100}) == std::vector<std::string>{"dispatch:100:" + clear + ",rep_stosb"});
}

TEST_CASE("a step's loops: those ranked after the choice, then the candidates that left closest to the leader" *
          doctest::test_suite("tune")) {
  TuneVerdict v;
  v.dispatched = "rep_movsb";
  v.ranked = {"rep_movsb", "memcpy"};
  std::vector<RaceDrop> drops = {{0, "copy/sse", "rep_movsb", "", 1, {1.30, 1.2, 1.4, 5}},
                                 {0, "copy/gpr", "rep_movsb", "failed to verify", 1, {}},
                                 {0, "copy/avx", "rep_movsb", "", 2, {1.05, 1.03, 1.08, 10}},
                                 {0, "copy/avx512", "rep_movsb", "", 1, {0, 0, 0, 0}}};
  CHECK(compose_lower(v, drops) == std::vector<std::string>{"memcpy", "copy/avx", "copy/sse"});
}

TEST_CASE("a composition's bounds: the stream's 50th, 75th and 90th percentile sizes, each once" * doctest::test_suite("tune")) {
  const Distribution fleet = *shipped_distribution("Memcpy_Fleet");
  const std::vector<uint64_t> b = compose_bounds(fleet);
  REQUIRE(!b.empty());
  CHECK(b.front() == distribution_quantile(fleet, 0.5));
  CHECK(std::is_sorted(b.begin(), b.end()));
  CHECK(std::adjacent_find(b.begin(), b.end()) == b.end());
  CHECK(b.back() == distribution_quantile(fleet, 0.9));
}
