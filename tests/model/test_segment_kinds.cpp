// The segment table's closed sets (src/model/segment_kinds.hpp): one word per value,
// the words the schema lists, and a results file with another word refused by path.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/enum_words.hpp"
#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "src/model/segment_kinds.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/seed_golden.hpp"

using namespace kex;

namespace {

/// The words configs/schema/segments.schema.json allows for a case's `field`.
std::vector<std::string> schema_words(const char* field) {
  std::ifstream in(std::string(KEX_SOURCE_DIR) + "/configs/schema/segments.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json* found = nullptr;  // the cases' properties sit some levels down: found by name
  auto walk = [&](auto& self, const nlohmann::json& j) -> void {
    if (found || !j.is_structured()) return;
    if (j.is_object() && j.contains(field) && j[field].is_object() && j[field].contains("enum")) {
      found = &j[field]["enum"];
      return;
    }
    for (const auto& v : j) self(self, v);
  };
  walk(walk, schema);
  REQUIRE(found);
  return found->get<std::vector<std::string>>();
}

/// The golden run with the fixed segment section (tests/golden/segments-section.json), as a results file.
nlohmann::json run_with_segments() {
  RunDoc d = golden::run();
  d.context.segments =
      segment_section_from_json(nlohmann::json::parse(golden::read("segments-section.json")), "segments-section.json");
  return nlohmann::json(to_json(d));
}

}  // namespace

TEST_CASE("segment words: every value's word parses back to it, and the words are the schema's" *
          doctest::test_suite("model")) {
  for (SegReg v : kSegRegs) CHECK(parse_seg_reg(to_string(v)) == v);
  for (SegVariant v : kSegVariants) CHECK(parse_seg_variant(to_string(v)) == v);
  for (SelectorKind v : kSelectorKinds) CHECK(parse_selector_kind(to_string(v)) == v);
  CHECK(to_string(SegVariant::loop2006) == "2006");
  CHECK(to_string(SegVariant::null_load) == "null-load");
  CHECK(to_string(SelectorKind::gdt_tls) == "gdt-tls");
  CHECK_FALSE(parse_seg_variant("loop2006"));
  CHECK_FALSE(parse_selector_kind("gdt_tls"));
  CHECK_FALSE(parse_seg_reg(""));
  CHECK(enum_words(kSegRegs) == schema_words("segment"));
  CHECK(enum_words(kSegVariants) == schema_words("variant"));
  CHECK(enum_words(kSelectorKinds) == schema_words("selector_kind"));
  CHECK(seg_variant_words() == "baseline, 2006, mixed, latency, throughput, null-load");
}

TEST_CASE("segment words: a results file's words read as enums and write back as they were, another word names its "
          "path and the allowed words" *
          doctest::test_suite("model")) {
  const nlohmann::json doc = run_with_segments();
  const RunDoc back = docs_from_json(doc, "f.json").at(0);
  REQUIRE(back.context.segments);
  const auto& cases = back.context.segments->cases;
  CHECK(cases.at(0).segment == SegReg::none);
  CHECK(cases.at(0).variant == SegVariant::baseline);
  CHECK(cases.at(1).segment == SegReg::fs);
  CHECK(cases.at(1).variant == SegVariant::loop2006);
  CHECK(cases.at(1).entry_selector_kind == SelectorKind::null);
  CHECK(nlohmann::json(to_json(back)) == doc);
  auto error = [&](const char* at, const nlohmann::json& v) {
    nlohmann::json bad = doc;
    bad[nlohmann::json::json_pointer(at)] = v;
    try {
      docs_from_json(bad, "f.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("/context/segments/cases/1/variant", "2007") ==
        "f.json: context/segments/cases/1/variant: \"2007\": allowed: baseline, 2006, mixed, latency, throughput, "
        "null-load");
  CHECK(error("/context/segments/cases/1/segment", "es") ==
        "f.json: context/segments/cases/1/segment: \"es\": allowed: none, fs, gs");
  const std::string kinds = "allowed: data, ldt, gdt-tls, gdt-cpunode, gdt-code64, gdt-code32, null, none";
  CHECK(error("/context/segments/cases/2/selector_kind", "gdt") ==
        "f.json: context/segments/cases/2/selector_kind: \"gdt\": " + kinds);
  CHECK(error("/context/segments/cases/2/entry_selector_kind", "") ==
        "f.json: context/segments/cases/2/entry_selector_kind: \"\": " + kinds);
  CHECK(error("/context/segments/cases/2/variant", 2006) ==
        "f.json: context/segments/cases/2/variant: 2006: expected a string");

  nlohmann::json bare = doc;  // a file from elsewhere that leaves the words out
  for (const char* key : {"segment", "selector_kind", "variant", "entry_selector_kind"})
    bare["context"]["segments"]["cases"][1].erase(key);
  const RunDoc read = docs_from_json(bare, "f.json").at(0);
  const SegmentCase& c = read.context.segments->cases.at(1);
  CHECK_FALSE(c.segment);
  CHECK_FALSE(c.selector_kind);
  CHECK_FALSE(c.variant);
  CHECK_FALSE(c.entry_selector_kind);
  CHECK(word_or_empty(c.variant) == "");
  CHECK(nlohmann::json(to_json(read)) == bare);
}

TEST_CASE("segment cases: skipped true or absent, a reason when skipped, selectors and bases in hex (the schema)" *
          doctest::test_suite("model")) {
  const nlohmann::json doc = run_with_segments();
  auto error = [&](auto&& edit) {
    nlohmann::json bad = doc;
    edit(bad["context"]["segments"]["cases"][1]);
    try {
      docs_from_json(bad, "f.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string at = "f.json: context/segments/cases/1/";
  CHECK(error([](nlohmann::json& c) { c["skipped"] = false; }) ==
        at + "skipped: false: allowed: true, or no key (a measured case)");
  CHECK(error([](nlohmann::json& c) { c["skipped"] = nullptr; }) ==
        at + "skipped: null: allowed: true, or no key (a measured case)");
  CHECK(error([](nlohmann::json& c) { c["skipped"] = 1; }) == at + "skipped: 1: allowed: true, or no key (a measured case)");
  CHECK(error([](nlohmann::json& c) { c["skipped"] = "true"; }) ==
        at + "skipped: \"true\": allowed: true, or no key (a measured case)");
  CHECK(error([](nlohmann::json& c) { c["skipped"] = true; }) == at + "skip_message: missing");
  CHECK(error([](nlohmann::json& c) {
          c["skipped"] = true;
          c["skip_message"] = "";
        }) == at + "skip_message: \"\": a skipped case says why it was skipped");
  CHECK(error([](nlohmann::json& c) {
          c["skipped"] = true;
          c["skip_message"] = nullptr;
        }) == at + "skip_message: null: a value is required");
  // Selectors and bases as the schema's patterns have them.
  CHECK(error([](nlohmann::json& c) { c["base"] = "0X10"; }) == at + "base: \"0X10\": allowed: 0x and 1 to 16 hex digits (0-9, a-f)");
  CHECK(error([](nlohmann::json& c) { c["base"] = "0x" + std::string(17, 'f'); }) ==
        at + "base: \"0x" + std::string(17, 'f') + "\": longer than 18 bytes");
  CHECK(error([](nlohmann::json& c) { c["selector"] = "0x2B"; }) ==
        at + "selector: \"0x2B\": allowed: 0x and 2 to 4 hex digits (0-9, a-f)");
  CHECK(error([](nlohmann::json& c) { c["selector"] = "43"; }) ==
        at + "selector: \"43\": allowed: 0x and 2 to 4 hex digits (0-9, a-f)");
  // A skipped case with its reason, and no figures, reads and writes back as it was.
  nlohmann::json skipped = doc;
  nlohmann::json& c = skipped["context"]["segments"]["cases"][1];
  for (const char* key : {"ns_per_iteration", "ticks_per_iteration", "est_cycles_per_iteration", "cycles_method",
                          "cycles_per_tick", "repetitions", "iterations_per_sample", "unroll", "min_ticks",
                          "median_ticks", "median_ns_per_iteration", "timed_iterations", "cputime_ns"})
    c.erase(key);
  c["skipped"] = true;
  c["skip_message"] = "no LDT on this kernel";
  const RunDoc read = docs_from_json(skipped, "f.json").at(0);
  CHECK(read.context.segments->cases.at(1).skipped);
  CHECK(nlohmann::json(to_json(read)) == skipped);
}
