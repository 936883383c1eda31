// llvm-mca's model of the core: the -mcpu chosen per CPU family and model (the nearest
// model named when LLVM is older than the CPU), and the parse of a recorded llvm-mca
// output (tests/data/mca-copy-avx-unroll256-znver3.txt) and of broken ones.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "src/model/mca.hpp"

using namespace kex;

namespace {

std::string recorded() {
  std::ifstream in(std::string(KEX_SOURCE_DIR) + "/tests/data/mca-copy-avx-unroll256-znver3.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

TEST_CASE("mca: an AVX-512 kernel on a model without AVX-512 carries a caveat" * doctest::test_suite("model")) {
  CHECK(mca_avx512_note("znver3", true) ==
        "znver3 has no AVX-512: its zmm instructions are scheduled as its generic vector classes");
  CHECK(mca_avx512_note("znver4", true) == "");
  CHECK(mca_avx512_note("znver3", false) == "");
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
