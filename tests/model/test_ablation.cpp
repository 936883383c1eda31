// The neighbour set of `kex explain`: for a handful of kernels, the exact names of the
// specs one coordinate away, the label of each change, and the ones refused with why.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/model/ablation.hpp"

using namespace kex;

namespace {

/// "coordinate from -> to: name" or "...: name refused: why", one per neighbour.
std::vector<std::string> lines(const std::vector<Neighbour>& ns) {
  std::vector<std::string> out;
  for (const Neighbour& n : ns)
    out.push_back(n.coordinate + " " + n.from + " -> " + n.to + ": " + spec_name(n.spec) +
                  (n.refused.empty() ? "" : " refused: " + n.refused));
  return out;
}

std::vector<std::string> of(const std::string& name) { return lines(neighbours(parse_spec_name(name))); }

std::string no_avx512(FeatureSet need) { return need.has(Feature::avx512f) ? "avx512f" : ""; }

}  // namespace

TEST_CASE("ablation: a plain sse copy's neighbours, one coordinate each" * doctest::test_suite("model")) {
  CHECK(of("copy/sse") ==
        std::vector<std::string>{
            "store t -> nt: copy/sse/unroll:64/scratch:4/nt/fwd",
            "align unaligned -> aligned: copy/sse/unroll:64/scratch:4/t/fwd/aligned",
            "edges bytes -> overlap: copy/sse/unroll:64/scratch:4/t/fwd/overlap",
            "small bytes -> overlap: copy/sse/unroll:64/scratch:4/t/fwd/small:overlap",
            "unroll 64 -> 32 (scratch 2): copy/sse/unroll:32/scratch:2/t/fwd",
            "unroll 64 -> 128: copy/sse/unroll:128/scratch:4/t/fwd",
            "scratch 4 -> 2: copy/sse/unroll:64/scratch:2/t/fwd",
            "scratch 4 -> 8: copy/sse/unroll:64/scratch:8/t/fwd refused: scratch 8 exceeds the registers one "
            "iteration of unroll 64 uses (4)",
            "regs sse -> gpr: copy/gpr/unroll:64/scratch:4/t/fwd",
            "direction forward -> backward: copy/sse/unroll:64/scratch:4/t/bwd",
        });
}

TEST_CASE("ablation: prefetch off, its distance halved and doubled, the other instruction, a CPU without the class" *
          doctest::test_suite("model")) {
  std::vector<Neighbour> ns = neighbours(parse_spec_name("copy/avx512/pf:nta@512/nt"));
  mark_unrunnable(ns, &no_avx512);
  const std::string lacks = " refused: this CPU lacks avx512f";
  CHECK(lines(ns) ==
        std::vector<std::string>{
            "store nt -> t: copy/avx512/unroll:256/scratch:4/pf:nta@512/t/fwd" + lacks,
            "align unaligned -> aligned: copy/avx512/unroll:256/scratch:4/pf:nta@512/nt/fwd/aligned" + lacks,
            "edges bytes -> overlap: copy/avx512/unroll:256/scratch:4/pf:nta@512/nt/fwd/overlap" + lacks,
            "small bytes -> overlap: copy/avx512/unroll:256/scratch:4/pf:nta@512/nt/fwd/small:overlap" + lacks,
            "prefetch nta@512 -> none: copy/avx512/unroll:256/scratch:4/nt/fwd" + lacks,
            "prefetch distance 512 -> 256: copy/avx512/unroll:256/scratch:4/pf:nta@256/nt/fwd" + lacks,
            "prefetch distance 512 -> 1024: copy/avx512/unroll:256/scratch:4/pf:nta@1024/nt/fwd" + lacks,
            "prefetch instruction nta -> t0: copy/avx512/unroll:256/scratch:4/pf:t0@512/nt/fwd" + lacks,
            "unroll 256 -> 128 (scratch 2): copy/avx512/unroll:128/scratch:2/pf:nta@512/nt/fwd" + lacks,
            "unroll 256 -> 512: copy/avx512/unroll:512/scratch:4/pf:nta@512/nt/fwd" + lacks,
            "scratch 4 -> 2: copy/avx512/unroll:256/scratch:2/pf:nta@512/nt/fwd" + lacks,
            // validate's reason comes first: the CPU is asked only about what can be generated
            "scratch 4 -> 8: copy/avx512/unroll:256/scratch:8/pf:nta@512/nt/fwd refused: scratch 8 exceeds the "
            "registers one iteration of unroll 256 uses (4)",
            "regs avx512 -> avx: copy/avx/unroll:256/scratch:4/pf:nta@512/nt/fwd",
            "direction forward -> backward: copy/avx512/unroll:256/scratch:4/pf:nta@512/nt/bwd" + lacks,
        });
}

TEST_CASE("ablation: validate's refusals stay in the list with the reason" * doctest::test_suite("model")) {
  // A load prefetch turned backward keeps its positive distance: validate refuses it.
  const std::vector<std::string> load = of("copy/sse/pf:load@256");
  CHECK(load.back() == "direction forward -> backward: copy/sse/unroll:64/scratch:4/pf:load@256/t/bwd refused: a "
                       "load prefetch of a backward loop needs a distance <= 0 (got 256)");
  // No non-temporal store in x87: no store neighbour at all.
  for (const std::string& l : of("copy/x87")) CHECK(l.rfind("store", 0) != 0);
  // Scratch 16 doubled is past sse's 16 registers; gpr has 8, and the label says scratch followed.
  const std::vector<std::string> wide = of("copy/sse/unroll:512/scratch:16");
  CHECK(std::find(wide.begin(), wide.end(),
                  "scratch 16 -> 32: copy/sse/unroll:512/scratch:32/t/fwd refused: scratch 32 is out of range for sse "
                  "(1..16)") != wide.end());
  CHECK(std::find(wide.begin(), wide.end(), "regs sse -> gpr (scratch 8): copy/gpr/unroll:512/scratch:8/t/fwd") !=
        wide.end());
}

TEST_CASE("ablation: rep kernels change element and direction, clears their fill byte" *
          doctest::test_suite("model")) {
  CHECK(of("copy/string/unroll:1") == std::vector<std::string>{
                                          "element movsb -> movsq: copy/string/unroll:8/t/fwd",
                                          "direction forward -> backward: copy/string/unroll:1/t/bwd",
                                      });
  CHECK(of("clear/string/bwd") ==
        std::vector<std::string>{
            "element stosq -> stosb: clear/string/unroll:1/t/bwd",
            "direction backward -> forward: clear/string/unroll:8/t/fwd",
            "fill 0x00 -> 0xff: clear/string/unroll:8/t/bwd/fill:0xff",
        });
}

TEST_CASE("ablation: a read has no store kind or edges to flip, and keeps its class's read scratch" *
          doctest::test_suite("model")) {
  CHECK(of("read/sse") ==
        std::vector<std::string>{
            "align unaligned -> aligned: read/sse/unroll:64/scratch:4/fwd/aligned",
            "unroll 64 -> 32 (scratch 2): read/sse/unroll:32/scratch:2/fwd",
            "unroll 64 -> 128: read/sse/unroll:128/scratch:4/fwd",
            "scratch 4 -> 2: read/sse/unroll:64/scratch:2/fwd",
            "scratch 4 -> 8: read/sse/unroll:64/scratch:8/fwd refused: scratch 8 exceeds the registers one "
            "iteration of unroll 64 uses (4)",
            "regs sse -> gpr: read/gpr/unroll:64/scratch:4/fwd",
            "direction forward -> backward: read/sse/unroll:64/scratch:4/bwd",
        });
}
