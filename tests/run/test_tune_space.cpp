// kex tune's candidates: the space's specs this CPU runs, once each, and never the rep
// reference's own code under a second name.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/spec.hpp"
#include "src/run/tune.hpp"

namespace {

std::vector<std::string> names(const std::vector<kex::KernelSpec>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(kex::spec_name(s));
  return out;
}

}  // namespace

TEST_CASE("tune candidates: forward rep movsb/stosb is the reference, the other string forms race" *
          doctest::test_suite("tune")) {
  const kex::Config c = kex::parse_config(
      R"({"sizes": [4096], "kernels": [
           {"op": ["copy", "clear"], "regs": "string", "unroll": [1, 8], "direction": ["forward", "backward"]},
           {"op": "copy", "regs": "gpr", "unroll": 64},
           {"op": "copy", "regs": "gpr", "unroll": 64}]})",
      "space.json");
  CHECK(names(kex::tune_candidates(c, kex::Op::copy)) ==
        std::vector<std::string>{"copy/string/unroll:8/t/fwd", "copy/string/unroll:1/t/bwd",
                                 "copy/string/unroll:8/t/bwd", "copy/gpr/unroll:64/scratch:8/t/fwd"});
  CHECK(names(kex::tune_candidates(c, kex::Op::clear)) ==
        std::vector<std::string>{"clear/string/unroll:8/t/fwd", "clear/string/unroll:1/t/bwd",
                                 "clear/string/unroll:8/t/bwd"});
}
