// llvm-mca run live on a generated kernel's main loop, where llvm-mca is installed:
// the marked loop reaches it, its summary comes back, and the string class (no marked
// loop) and a missing tool are said in one line each, never an error.
#include <doctest/doctest.h>

#include "src/run/machine.hpp"
#include "src/run/mca.hpp"

using namespace kex;

TEST_CASE("mca: the marked loop of copy/avx/unroll:256" * doctest::test_suite("run")) {
  const std::string s = marked_loop_source(parse_spec_name("copy/avx/unroll:256"));
  CHECK(s.find("# LLVM-MCA-BEGIN kex_copy_avx_unroll_256_scratch_4_t_fwd\n") != std::string::npos);
  CHECK(s.find("# LLVM-MCA-END") != std::string::npos);
  CHECK(marked_loop_source(parse_spec_name("copy/string/unroll:8")) == "");
}

TEST_CASE("mca: a live prediction where llvm-mca is installed" * doctest::test_suite("run")) {
  if (mca_tool().path.empty()) {
    CHECK(mca_tool().missing.find("llvm-mca not found") == 0);
    return;
  }
  // A Zen 3 core: the model is the CPU's own on LLVM 12 and later.
  const McaPrediction p = predict_loop(parse_spec_name("copy/avx/unroll:256"), "AuthenticAMD", 0x19, 0x21);
  REQUIRE_MESSAGE(p.why.empty(), p.why);
  CHECK(p.mcpu == "znver3");
  CHECK(p.bytes_per_iteration == 256);
  CHECK(p.summary.iterations == 100);
  CHECK(p.summary.instructions == 100 * 21);  // 8 loads, 8 stores, 5 loop instructions
  CHECK(p.summary.cycles_per_iteration() > 4);
  CHECK(p.summary.cycles_per_iteration() < 20);
  const McaPrediction rep = predict_loop(parse_spec_name("copy/string/unroll:8"), "AuthenticAMD", 0x19, 0x21);
  CHECK(rep.why == "no marked loop: a rep string instruction is its own loop");
  const McaPrediction old = predict_loop(parse_spec_name("copy/avx"), "AuthenticAMD", 0x15, 0x02);
  CHECK(old.why == "no LLVM model for AMD family 0x15 (Zen is 0x17-0x1a)");
}
