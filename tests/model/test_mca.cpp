// llvm-mca's model of the core: the -mcpu chosen per CPU family and model (the nearest
// model named when LLVM is older than the CPU), and the parse of a recorded llvm-mca
// output (tests/data/mca-copy-avx-unroll256-znver3.txt), of broken ones and of recorded
// failures (tests/data/mca-failure-invalid-mnemonic.txt, mca-unknown-mcpu-znver9.txt).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "src/model/mca.hpp"

using namespace kex;

namespace {

std::string slurp_data(const std::string& name) {
  std::ifstream in(std::string(KEX_SOURCE_DIR) + "/tests/data/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string recorded() { return slurp_data("mca-copy-avx-unroll256-znver3.txt"); }

}  // namespace

TEST_CASE("mca: -mcpu from the CPU's family and model, the nearest model named" * doctest::test_suite("model")) {
  const std::string amd = "AuthenticAMD", intel = "GenuineIntel";
  CHECK(mca_cpu(amd, 0x17, 0x01, 14).mcpu == "znver1");
  CHECK(mca_cpu(amd, 0x17, 0x31, 14).mcpu == "znver2");
  CHECK(mca_cpu(amd, 0x17, 0x31, 14).note == "");
  CHECK(mca_cpu(amd, 0x19, 0x21, 14).mcpu == "znver3");
  const McaCpu zen4 = mca_cpu(amd, 0x19, 0x61, 14);
  CHECK(zen4.mcpu == "znver3");
  CHECK(zen4.note == "LLVM 14 has no Zen 4 model: znver3 used");
  CHECK(mca_cpu(amd, 0x19, 0x61, 16).mcpu == "znver4");
  CHECK(mca_cpu(amd, 0x19, 0x61, 16).note == "");
  const McaCpu zen5 = mca_cpu(amd, 0x1A, 0x02, 14);
  CHECK(zen5.mcpu == "znver3");
  CHECK(zen5.note == "LLVM 14 has no Zen 5 model: znver3 used");
  CHECK(mca_cpu(amd, 0x1A, 0x02, 17).note == "LLVM 17 has no Zen 5 model: znver4 used");
  CHECK(mca_cpu(amd, 0x1A, 0x02, 19).mcpu == "znver5");
  CHECK(mca_cpu(amd, 0x15, 0x02, 14).mcpu == "");
  CHECK(mca_cpu(amd, 0x15, 0x02, 14).note == "no LLVM model for AMD family 0x15 (Zen is 0x17-0x1a)");
  CHECK(mca_cpu(intel, 6, 0x55, 14).mcpu == "skylake-avx512");
  CHECK(mca_cpu(intel, 6, 0x9E, 14).mcpu == "skylake");
  CHECK(mca_cpu(intel, 6, 0x8F, 14).mcpu == "sapphirerapids");
  CHECK(mca_cpu(intel, 6, 0x8F, 11).note == "LLVM 11 has no sapphirerapids model (from LLVM 12)");
  CHECK(mca_cpu(intel, 6, 0xAD, 14).note == "no LLVM model known to kex for Intel family 6 model 0xad");
  CHECK(mca_cpu("HygonGenuine", 0x18, 0, 14).note == "no LLVM model chosen for CPU vendor 'HygonGenuine'");
  CHECK(mca_cpu(amd, 0x19, 0x21, 0).note == "llvm-mca's LLVM version is unknown");
}

TEST_CASE("mca: Zen 4 and Zen 5 on LLVM 14 get znver3, named as nearest, and an unknown family none" *
          doctest::test_suite("model")) {
  const std::string amd = "AuthenticAMD";
  struct Row {
    int family, model;
    const char* mcpu;
    const char* note;
  };
  const Row rows[] = {
      {0x19, 0x01, "znver3", ""},  // Zen 3: Milan
      {0x19, 0x21, "znver3", ""},  // Vermeer
      {0x19, 0x50, "znver3", ""},  // Cezanne
      {0x19, 0x10, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},  // Zen 4: Genoa
      {0x19, 0x1f, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},
      {0x19, 0x61, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},  // Raphael
      {0x19, 0x7f, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},
      {0x19, 0xa0, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},  // Bergamo
      {0x19, 0xaf, "znver3", "LLVM 14 has no Zen 4 model: znver3 used"},
      {0x1a, 0x02, "znver3", "LLVM 14 has no Zen 5 model: znver3 used"},  // Turin
      {0x1a, 0x44, "znver3", "LLVM 14 has no Zen 5 model: znver3 used"},  // Granite Ridge
      {0x1b, 0x00, "", "no LLVM model for AMD family 0x1b (Zen is 0x17-0x1a)"},
      {0x10, 0x04, "", "no LLVM model for AMD family 0x10 (Zen is 0x17-0x1a)"},
  };
  for (const Row& r : rows) {
    const McaCpu c = mca_cpu(amd, r.family, r.model, 14);
    INFO("family " << r.family << " model " << r.model);
    CHECK(c.mcpu == r.mcpu);
    CHECK(c.note == r.note);
  }
}

TEST_CASE("mca: an AVX-512 kernel on a model without AVX-512: Zen 5 a caveat, any other CPU no prediction" *
          doctest::test_suite("model")) {
  // LLVM 14's znver3 takes zmm instructions and costs them as ymm ones (tried: a zmm load
  // and non-temporal store loop gives the same 1.0 cycles per iteration as its ymm twin).
  const McaAvx512 zen5 = mca_avx512("znver3", 0x1A, true);
  CHECK(zen5.note == "znver3 has no AVX-512: llvm-mca costs its zmm instructions as ymm ones (Zen 5's 512-bit "
                     "datapath does too)");
  CHECK(zen5.refusal == "");
  const McaAvx512 zen4 = mca_avx512("znver3", 0x19, true);
  CHECK(zen4.note == "");
  CHECK(zen4.refusal ==
        "znver3 has no AVX-512: llvm-mca costs its zmm instructions as ymm ones, which this CPU does not: no prediction");
  CHECK(mca_avx512("alderlake", 6, true).refusal != "");
  CHECK(mca_avx512("znver4", 0x19, true).refusal == "");
  CHECK(mca_avx512("znver4", 0x19, true).note == "");
  CHECK(mca_avx512("skylake-avx512", 6, true).refusal == "");
  CHECK(mca_avx512("znver3", 0x19, false).refusal == "");
  CHECK(mca_avx512("znver3", 0x19, false).note == "");
}

TEST_CASE("mca: a failed llvm-mca's reason is its error line, or its first line" *
          doctest::test_suite("model")) {
  const std::string failed = slurp_data("mca-failure-invalid-mnemonic.txt");
  REQUIRE(!failed.empty());
  CHECK(mca_failure_line(failed) == "/tmp/kex-mca-Qx3v9a.s:1:1: error: invalid instruction mnemonic 'foo'");
  CHECK(mca_failure_line("") == "no output");
  CHECK(mca_failure_line("Segmentation fault\n") == "Segmentation fault");
  CHECK(mca_failure_line(std::string(300, 'x')).size() == 200);
  // llvm-mca 14 given an -mcpu it lacks (-mcpu=znver9) warns twice and exits 1: the warning is the reason.
  CHECK(mca_failure_line(slurp_data("mca-unknown-mcpu-znver9.txt")) ==
        "'znver9' is not a recognized processor for this target (ignoring processor)");
}

TEST_CASE("mca: the recorded llvm-mca output of copy/avx/unroll:256 parses" * doctest::test_suite("model")) {
  const std::string out = recorded();
  REQUIRE(!out.empty());
  std::string why;
  const std::optional<McaSummary> s = parse_mca(out, &why);
  REQUIRE_MESSAGE(s, why);
  CHECK(s->iterations == 100);
  CHECK(s->instructions == 2100);
  CHECK(s->total_cycles == 811);
  CHECK(s->block_rthroughput == 8.0);
  CHECK(s->cycles_per_iteration() == doctest::Approx(8.11));
}

TEST_CASE("mca: outputs without the summary, or with two regions, are refused" * doctest::test_suite("model")) {
  const std::string out = recorded();
  std::string why;
  CHECK_FALSE(parse_mca("", &why));
  CHECK(why == "llvm-mca output: no 'Iterations:' line");
  CHECK_FALSE(parse_mca(out + out, &why));
  CHECK(why == "llvm-mca output: more than one 'Iterations:' line (one code region expected)");
  std::string bad = out;
  bad.replace(bad.find("Total Cycles:      811"), 22, "Total Cycles:      8x1");
  CHECK_FALSE(parse_mca(bad, &why));
  CHECK(why == "llvm-mca output: an unreadable 'Total Cycles:' line");
  bad = out;
  bad.replace(bad.find("Block RThroughput: 8.0"), 22, "Block RThroughput: nan");
  CHECK_FALSE(parse_mca(bad, &why));
  CHECK(why == "llvm-mca output: no readable 'Block RThroughput:' line");
}

TEST_CASE("mca: the LLVM major version from llvm-mca --version" * doctest::test_suite("model")) {
  CHECK(parse_llvm_major("Debian LLVM version 14.0.6\n  Optimized build.\n") == 14);
  CHECK(parse_llvm_major("LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n") == 19);
  CHECK(parse_llvm_major("garbage") == 0);
}
