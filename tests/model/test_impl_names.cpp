// Implementations kex did not generate: their names (glibc/SYMBOL[/fill:0xNN]), their
// facts in results files (written, read back equal, checked as data) and the context's
// record of ifunc's picks.
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/result_json.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

TEST_CASE("implementation names: glibc/SYMBOL with an optional fill, a C identifier, round trip" *
          doctest::test_suite("model")) {
  const auto n = parse_impl_name("glibc/__memset_avx2_unaligned_erms/fill:0xaa");
  REQUIRE(n);
  CHECK(n->symbol == "__memset_avx2_unaligned_erms");
  CHECK(n->fill == 0xaa);
  CHECK(impl_name(*n) == "glibc/__memset_avx2_unaligned_erms/fill:0xaa");
  CHECK(impl_name({Source::glibc, "__memcpy_erms", 0}) == "glibc/__memcpy_erms");
  for (const char* bad : {"glibc/", "glibc", "glibc/9abc", "glibc/a-b", "glibc/a/fill:0x00", "glibc/a/fill:0xAA",
                          "musl/memcpy", "glibc/a/b", "glibc/a b"})
    CHECK_MESSAGE(!parse_impl_name(bad), bad);
  CHECK(!parse_impl_name("glibc/" + std::string(129, 'a')));
  CHECK(!kernel_name_error(KernelKind::implementation, "glibc/__memmove_avx_unaligned_erms"));
  CHECK(kernel_name_error(KernelKind::implementation, "glibc/x;rm")->find("not an implementation name") == 0);
  CHECK(find_impl_set("glibc-clear")->function == Function::memset);
  CHECK(find_impl_set("glibc") == nullptr);
}

namespace {

Result impl_entry(uint8_t fill) {
  Result r;
  r.kind = KernelKind::implementation;
  r.op = fill ? Op::clear : Op::copy;
  r.impl = ImplFacts{Source::glibc, fill ? Function::memset : Function::memmove, fill ? "__memset_erms" : "__memmove_avx_unaligned_rtm",
                     fill, !fill ? false : true, !fill ? "needs RTM: not usable on this CPU" : "", "", ""};
  r.point.kernel = impl_name({Source::glibc, r.impl->symbol, fill});
  r.point.at.size = 4096;
  if (!fill) r.status = {StatusKind::skipped, r.impl->reason};
  return r;
}

}  // namespace

TEST_CASE("results: an implementation's entry reads back equal, and a name in a file is only data" *
          doctest::test_suite("model")) {
  RunDoc d = golden::run();
  const double tsc_hz = d.results.at(0).tsc_hz;
  d.results = {impl_entry(0), impl_entry(0xaa)};
  for (Result& r : d.results) r.tsc_hz = tsc_hz;
  d.context.ifunc = IfuncRecord{"__memmove_avx512_unaligned_erms", "__memmove_avx512_unaligned_erms", "unknown", {}};
  const nlohmann::json j = to_json(d);
  CHECK(j["benchmarks"][1]["implementation"].dump() ==
        R"({"function":"memset","source":"glibc","symbol":"__memset_erms","usable":true})");
  CHECK(j["benchmarks"][1]["params"]["fill"] == 0xaa);
  CHECK(j["context"]["ifunc"]["memset"] == "unknown");
  const RunDoc back = docs_from_json(j, "f.json").at(0);
  CHECK(back.results == d.results);
  CHECK(back.context.ifunc == d.context.ifunc);
  CHECK(back.results[1].fill() == 0xaa);

  nlohmann::json bad = j;  // the facts must name the entry's own symbol
  bad["benchmarks"][1]["implementation"]["symbol"] = "__memset_other";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("implementation: names glibc/__memset_other"),
                       InputError);
  bad = j;
  bad["benchmarks"][0]["implementation"]["reason"] = "\x1b[2Jgone";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("reason: \"\\u001b[2Jgone\": a control character: not allowed in a text"),
                       InputError);
  bad = j;
  bad["benchmarks"][0].erase("implementation");
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("implementation: missing"), InputError);
  bad = j;
  bad["benchmarks"][0]["implementation"]["function"] = "strcpy";
  CHECK_THROWS_WITH_AS(docs_from_json(bad, "f.json"), doctest::Contains("function: \"strcpy\": allowed: memcpy, memmove, memset"),
                       InputError);

  nlohmann::json old = j;  // a file from before the record
  old["context"].erase("ifunc");
  CHECK(!docs_from_json(old, "f.json").at(0).context.ifunc);
}

TEST_CASE("config: baselines take glibc's sets and glibc/SYMBOL names by their form, others are refused" *
          doctest::test_suite("model")) {
  const Config c = parse_config(R"({"sizes": [4096], "baselines": ["memcpy", "glibc-copy", "glibc/__memset_erms"]})", "c.json");
  CHECK(c.baselines == std::vector<std::string>{"memcpy", "glibc-copy", "glibc/__memset_erms"});
  CHECK_THROWS_WITH_AS(parse_config(R"({"sizes": [4096], "baselines": ["glibc/a b"]})", "c.json"),
                       doctest::Contains("c.json: /baselines/0"), InputError);
  CHECK_THROWS_WITH_AS(parse_config(R"({"sizes": [4096], "baselines": ["glibc-all"]})", "c.json"),
                       doctest::Contains("glibc-copy, glibc-move, glibc-clear, glibc/SYMBOL"), InputError);
}

TEST_CASE("overlap: only memcpy implementations of a copy are left out where src and dst overlap" *
          doctest::test_suite("model")) {
  const auto impl = [](Op op, const char* function) {
    KernelPlan k;
    k.kind = KernelKind::implementation;
    k.op = op;
    k.impl = ImplFacts{};
    k.impl->function = *parse_function(function);
    return k;
  };
  CHECK(overlap_refusal(impl(Op::copy, "memcpy")) ==
        "left out where src and dst overlap: it implements memcpy, which does not promise memmove's result "
        "(glibc-move and :move loads run there)");
  CHECK(overlap_refusal(impl(Op::copy, "memmove")).empty());
  CHECK(overlap_refusal(impl(Op::clear, "memset")).empty());  // a clear moves no source bytes
  KernelPlan generated;  // kex's own kernels are verified at each overlapping point instead
  CHECK(overlap_refusal(generated).empty());
  KernelPlan libc;
  libc.kind = KernelKind::baseline;
  libc.libc = LibcFacts{Function::memcpy, 0};
  CHECK(overlap_refusal(libc).empty());
}
