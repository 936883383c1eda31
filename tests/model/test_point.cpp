// Point names: every coordinate that differs from its default is in the name,
// and the name parses back to the same point.
#include <doctest/doctest.h>

#include "src/model/config.hpp"
#include "src/model/expand.hpp"
#include <stdexcept>

#include "src/model/kernel_names.hpp"
#include "src/model/axis.hpp"
#include "src/model/point.hpp"
#include "tests/support/input_error.hpp"

using namespace kex;

TEST_CASE("point names round-trip over every coordinate" * doctest::test_suite("model")) {
  Axes a;
  a.sizes = {1, 4096, 1 << 26};
  a.src_offsets = {0, 63};
  a.distances = {std::nullopt, -4096, 0, 1048591};
  a.huge_pages = {true, false};
  a.caches = {CacheMode::warm, CacheMode::cold};
  a.chunks = {0, 4096};
  a.prefills = {std::nullopt, uint8_t(0), uint8_t(0xab)};
  a.consumes = {false, true};
  size_t n = 0;
  for (const char* kernel : {"copy/avx/unroll:128/scratch:4/t/fwd", "fastc/faster_copy", "memcpy",
                             "asami/unroll:96/scratch:2/every:32"})
    for (Coords c : coordinate_product(a)) {
      for (Harness h : {Harness::kex, Harness::fastc}) {
        c.harness = h;
        const Point p{kernel, c};
        const std::string name = point_name(p);
        CHECK_MESSAGE(parse_point_name(name) == p, name);
        CHECK(point_name(parse_point_name(name)) == name);
        ++n;
      }
    }
  CHECK(n == 4 * 3 * 2 * 4 * 2 * 2 * 2 * 3 * 2 * 2);
  Point p{"copy/avx512/unroll:256/t/fwd", {}};
  p.at.size = 4096;
  p.at.layout.distance = 1048591;
  p.at.cache = CacheMode::cold;
  CHECK(point_name(p) == "copy/avx512/unroll:256/t/fwd/4096/dist:1048591/cold");
  p.at.layout = {};
  p.at.layout.dst_offset = 15;
  p.at.chunk = 4096;
  p.at.prefill = 0;
  p.at.consume = true;
  p.at.pass = 2;
  p.at.harness = Harness::hahn;
  CHECK(point_name(p) == "copy/avx512/unroll:256/t/fwd/4096/dst:15/chunk:4096/prefill:0x00/consume/cold/harness:hahn/pass:2");
}

TEST_CASE("point names: bad tokens are refused with the token and what is allowed" * doctest::test_suite("model")) {
  auto error = [](const char* n) { return invalid_argument_of([&] { parse_point_name(n); }); };
  CHECK(error("copy/sse").find("needs a kernel and then a size") != std::string::npos);
  CHECK(error("4096").find("needs a kernel") != std::string::npos);
  CHECK(error("memcpy/4096/warp").find("unknown coordinate 'warp'") != std::string::npos);
  CHECK(error("memcpy/4096/cold/dist:4").find("out of order") != std::string::npos);
  CHECK(error("memcpy/4096/cold/cold").find("repeated") != std::string::npos);
  CHECK(error("memcpy/4096/dist:+4").find("decimal integer") != std::string::npos);
  CHECK(error("memcpy/4096/dist:04").find("decimal integer") != std::string::npos);
  CHECK(error("memcpy/4096/dist:-0").find("decimal integer") != std::string::npos);
  CHECK(error("memcpy/4096/dist:9223372036854775808").find("out of range") != std::string::npos);
  CHECK(error("memcpy/4096/dist:-9223372036854775808").empty());
  CHECK(error("memcpy/4096/src:0").find("out of range") != std::string::npos);  // a default is never written
  CHECK(error("memcpy/4096/prefill:0xAB").find("prefill:0xNN") != std::string::npos);
  CHECK(error("memcpy/4096/cold:1").find("takes no value") != std::string::npos);
  CHECK(error("memcpy/4096/harness:kex").find("allowed harness:fastc") != std::string::npos);
  CHECK(error("memcpy/4096/pass:1").find("out of range") != std::string::npos);
}

TEST_CASE("swept axes and axis values" * doctest::test_suite("model")) {
  Coords a, b;
  a.size = b.size = 4096;
  b.layout.distance = 64;
  b.cache = CacheMode::cold;
  CHECK(swept_axes({a, b}) == std::vector<Axis>{Axis::distance, Axis::cache});
  CHECK(axis_value(a, Axis::distance) == "none");
  CHECK(axis_value(b, Axis::distance) == "64");
  CHECK(axis_value(b, Axis::chunk) == "whole");
  CHECK(!parse_axis("nonsense"));
  for (const AxisRow& r : axis_rows()) CHECK(parse_axis(r.name) == r.axis);
}

TEST_CASE("the axes table: each axis's text, number and default, for a point off every default" *
          doctest::test_suite("model")) {
  const Point p = parse_point_name(
      "memcpy/8192/stream:Memcpy_Fleet/footprint:65536/src:64/dst:128/dist:-4160/nohuge/chunk:512/prefill:0x5a/consume/cold/"
      "threads:2");
  std::vector<std::string> texts;
  std::vector<std::optional<double>> numbers;
  for (const AxisRow& r : axis_rows()) {
    texts.push_back(r.text(p.at));
    numbers.push_back(r.number(p.at));
  }
  CHECK(texts == std::vector<std::string>{"8192", "64", "128", "-4160", "false", "cold", "512", "0x5a", "true", "2", "kex",
                                          "Memcpy_Fleet", "65536"});
  CHECK(numbers == std::vector<std::optional<double>>{8192, 64, 128, -4160, std::nullopt, std::nullopt, 512, std::nullopt,
                                                      std::nullopt, 2, std::nullopt, std::nullopt, 65536});
  // Each axis's reset puts the point back on that axis's default, and on no other.
  Coords all = p.at;
  for (const AxisRow& r : axis_rows()) {
    Coords one = p.at;
    r.reset(one);
    CHECK(r.text(one) == r.text(Coords{}));
    // (the harness is the only axis p is on the default of)
    CHECK(swept_axes({one, p.at}) == (r.axis == Axis::harness ? std::vector<Axis>{} : std::vector<Axis>{r.axis}));
    r.reset(all);
  }
  CHECK(all == Coords{});
  // The axes a heatmap may show are the axes of bytes: they have a unit.
  std::vector<Axis> bytes;
  for (const AxisRow& r : axis_rows())
    if (r.unit) bytes.push_back(r.axis);
  CHECK(bytes == std::vector<Axis>{Axis::size, Axis::src_offset, Axis::dst_offset, Axis::distance, Axis::chunk, Axis::footprint});
}

TEST_CASE("every harness's name parses back to it, the programs' file names are accepted too" *
          doctest::test_suite("point")) {
  for (Harness h : {Harness::kex, Harness::fastc, Harness::hahn, Harness::xmm64, Harness::mem_cp}) {
    REQUIRE(parse_harness(to_string(h)));
    CHECK(*parse_harness(to_string(h)) == h);
  }
  CHECK(to_string(Harness::xmm64) == "xmm64");
  CHECK(parse_harness("xmm64.c") == Harness::xmm64);
  CHECK(parse_harness("fast.c") == Harness::fastc);
  CHECK(parse_harness("athlon.c") == Harness::hahn);
  CHECK(parse_harness("mem_cp") == Harness::mem_cp);
  CHECK(parse_harness("mem_cp.c") == Harness::mem_cp);
  CHECK_FALSE(parse_harness("xmm"));
  CHECK_FALSE(parse_harness("XMM64"));
  CHECK_FALSE(parse_harness(""));
}

TEST_CASE("point names with a seed harness round-trip, harness:kex and file names are not tokens" *
          doctest::test_suite("point")) {
  for (Harness h : {Harness::fastc, Harness::hahn, Harness::xmm64, Harness::mem_cp}) {
    Point p{"xmm64/xmm_clear", {}};
    p.at.size = 4096;
    p.at.harness = h;
    const std::string n = point_name(p);
    CHECK(n == "xmm64/xmm_clear/4096/harness:" + std::string(to_string(h)));
    CHECK(parse_point_name(n) == p);
    p.at.pass = 2;
    CHECK(point_name(p) == n + "/pass:2");
    CHECK(parse_point_name(point_name(p)) == p);
  }
  Point plain{"fastc/faster_copy", {}};
  plain.at.size = 4096;
  CHECK(point_name(plain) == "fastc/faster_copy/4096");  // kex is the default: no token
  CHECK_THROWS_AS(parse_point_name("fastc/faster_copy/4096/harness:kex"), std::invalid_argument);
  CHECK_THROWS_AS(parse_point_name("fastc/faster_copy/4096/harness:xmm64.c"), std::invalid_argument);
  try {
    parse_point_name("fastc/faster_copy/4096/harness:lahaise");
    FAIL("no throw");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("harness:xmm64, harness:mem_cp") != std::string::npos);
  }
}

TEST_CASE("baseline names: memset and rep_stosb with a fill byte, in the point grammar and back" * doctest::test_suite("point")) {
  const auto m = parse_baseline_name("memset/fill:0xaa");
  REQUIRE(m.has_value());
  CHECK(m->base == "memset");
  CHECK(m->fill == 0xaa);
  CHECK(baseline_name("rep_stosb", 0x5c) == "rep_stosb/fill:0x5c");
  CHECK(baseline_name("memset", 0) == "memset");
  CHECK(parse_baseline_name("memset")->fill == 0);
  for (const char* bad : {"memcpy/fill:0xaa", "memset/fill:0x00", "memset/fill:0xAA", "memset/fill:aa", "memset/x",
                          "rep_movsb/fill:0x01", "memset/fill:0xaaa", "nope"})
    CHECK_MESSAGE(!parse_baseline_name(bad), bad);
  CHECK_FALSE(kernel_name_error(KernelKind::baseline, "memset/fill:0xaa").has_value());
  CHECK(kernel_name_error(KernelKind::baseline, "memset/fill:0x00").has_value());
  const Point p = parse_point_name("rep_stosb/fill:0x5c/4096/cold");
  CHECK(p.kernel == "rep_stosb/fill:0x5c");
  CHECK(p.at.size == 4096);
  CHECK(point_name(p) == "rep_stosb/fill:0x5c/4096/cold");
}
