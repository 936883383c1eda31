// Size distributions (src/model/distribution.hpp): the shipped fleetbench files load and
// sum to 1; the three formats read; hostile files refused in one line naming file and line.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "src/core/error.hpp"
#include "src/core/embedded.hpp"
#include "src/model/distribution.hpp"

using namespace kex;

namespace {

std::string distribution_error(const std::string& text) {
  try {
    parse_distribution(text, "mine", "mine.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("distributions: every shipped file loads, sums to 1 within 1e-5 before normalizing, and says its function" *
          doctest::test_suite("model")) {
  REQUIRE(shipped_distributions().size() == 30);
  for (const std::string& name : shipped_distributions()) {
    INFO(name);
    const auto d = shipped_distribution(name);
    REQUIRE(d);
    CHECK(std::fabs(d->given_sum - 1) < 1e-5);
    CHECK(d->cumulative.back() == 1);
    CHECK(std::is_sorted(d->sizes.begin(), d->sizes.end()));
    REQUIRE(d->function);
    CHECK(name.rfind(name[3] == 'c' ? "Memcpy" : name[3] == 'm' ? "Memmove" : "Memset", 0) == 0);
  }
  const DistributionFacts f = distribution_facts(*shipped_distribution("Memcpy_Fleet"));
  CHECK(f.distinct == 1941);
  CHECK(f.p50 == 10);  // the fleet's median memcpy (configs/streams/README.md)
  CHECK(f.p90 == 75);
  CHECK(f.p99 == 1709);
  CHECK(f.max == 261126);
  CHECK(f.mean == doctest::Approx(135.3).epsilon(0.001));
  CHECK(shipped_distribution("Memmove_Fleet")->overlap == doctest::Approx(0.00834895));
  CHECK(shipped_distribution("Memcpy_Fleet")->alignments.size() == 7);
  CHECK(!shipped_distribution("Memcpy_9"));
}

TEST_CASE("distributions: llvm-libc's indexed line and a size,count histogram read as the same distribution" *
          doctest::test_suite("model")) {
  const Distribution a = parse_distribution("0,0.25,0,0.75,\n", "a", "a.csv");
  const Distribution b = parse_distribution("size,count\n1,1\n3,3\n", "b", "b.csv");
  const Distribution c = parse_distribution("1:0.25,3:0.75\n", "c", "c.csv");
  for (const Distribution* d : {&a, &b, &c}) {
    CHECK(d->sizes == std::vector<uint64_t>{1, 3});
    CHECK(d->cumulative[0] == doctest::Approx(0.25));
    CHECK(!d->function);
  }
  CHECK(distribution_quantile(a, 0.25) == 1);
  CHECK(distribution_quantile(a, 0.26) == 3);
}

TEST_CASE("distributions: a hostile file is one line naming the file and line" * doctest::test_suite("model")) {
  CHECK(distribution_error("") == "mine.csv: empty: expected a distribution of call sizes");
  CHECK(distribution_error("1:0.5,2:-0.5\n") == "mine.csv:1: probability '-0.5': expected a finite number >= 0");
  CHECK(distribution_error("\n1:nan\n") == "mine.csv:2: probability 'nan': expected a finite number >= 0");
  CHECK(distribution_error("1:0.5,2:0.4\n").find("mine.csv:1: the sizes' probabilities add up to 0.9") == 0);
  CHECK(distribution_error("1:0.5,1:0.5\n") == "mine.csv:1: value 1 given twice");
  CHECK(distribution_error("2147483648:1\n").find("mine.csv:1: value '2147483648'") == 0);
  CHECK(distribution_error("1:1\n0:1\n3:1\n") == "mine.csv:3: alignment 3: expected a power of two");
  CHECK(distribution_error("1:1\n2:1\n").find("mine.csv:2: value '2'") == 0);  // overlap: 0 or 1
  CHECK(distribution_error("size,count\n5,0\n") == "mine.csv: no calls (every line 'size,count' with a count above 0 adds some)");
  CHECK(distribution_error("0,0,0\n") == "mine.csv:1: the sizes' probabilities add up to 0.000000, not 1");
  CHECK(distribution_error("1:1\n0:1\n1:1\n1:1\n") == "mine.csv:4: a fourth line: expected at most sizes, overlap and alignment");
}
