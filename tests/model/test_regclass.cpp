// The register-class table is the only list of classes: the enum, the emitters,
// the config schema and the messages all follow it.
#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "generators/emit.hpp"
#include "src/model/spec.hpp"

using namespace kex;

TEST_CASE("one register-class table: enum order, emitters, schema and messages agree" * doctest::test_suite("spec")) {
  const auto& classes = reg_classes();
  for (size_t i = 0; i < classes.size(); ++i) {
    CHECK_MESSAGE(static_cast<size_t>(classes[i].cls) == i, classes[i].name);
    CHECK(reg_class_info(classes[i].cls).name == std::string(classes[i].name));
    CHECK(parse_reg_class(classes[i].name) == classes[i].cls);
    CHECK(default_spec(Op::copy, classes[i].cls).unroll == classes[i].default_unroll);
    CHECK(validate(default_spec(Op::copy, classes[i].cls)) == "");
  }
  CHECK(class_emitter_count() == classes.size());
  std::ifstream f(std::string(KEX_SOURCE_DIR) + "/configs/schema/config.schema.json");
  const auto schema = nlohmann::json::parse(f);
  std::vector<std::string> words;
  for (const auto& w : schema["$defs"]["regs1"]["enum"]) words.push_back(w.get<std::string>());
  std::vector<std::string> names;
  for (const auto& c : classes) names.push_back(c.name);
  CHECK(words == names);
  CHECK(reg_class_names() == "gpr, mmx, x87, sse, avx, avx512, string");
  // The CPU gate reads the table's features.
  CHECK(spec_needs(default_spec(Op::copy, RegClass::avx512)).has(Feature::avx512f));
  KernelSpec nt = default_spec(Op::copy, RegClass::mmx);
  nt.store = Store::nontemporal;
  CHECK(spec_needs(nt).has(Feature::mmxext));
  CHECK(spec_needs(nt).has(Feature::sse));  // sfence
}

namespace {
std::string slurp_source(const std::string& rel) {
  std::ifstream f(std::string(KEX_SOURCE_DIR) + "/" + rel);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

TEST_CASE("the README's and DESIGN.md's lists of classes and prefetch kinds are the tables' (a list that drifts fails)" *
          doctest::test_suite("spec")) {
  const std::string readme = slurp_source("README.md"), design = slurp_source("docs/DESIGN.md");
  REQUIRE(!readme.empty());
  REQUIRE(!design.empty());
  // The name diagram of "Kernel and point names".
  CHECK_MESSAGE(readme.find("\u2514 " + reg_class_names(" | ") + "\n") != std::string::npos, reg_class_names(" | "));
  CHECK_MESSAGE(readme.find("prefetch " + prefetch_names("|") + ",") != std::string::npos, prefetch_names("|"));
  // DESIGN.md's parameter table: each word in backquotes, in table order.
  std::string classes, kinds;
  for (const auto& c : reg_classes()) classes += (classes.empty() ? "`" : ", `") + std::string(c.name) + "`";
  for (const auto& p : prefetch_kinds()) kinds += (kinds.empty() ? "`" : ", `") + std::string(p.name) + "`";
  CHECK_MESSAGE(design.find("| " + classes + " |") != std::string::npos, classes);
  CHECK_MESSAGE(design.find("| " + kinds + " ") != std::string::npos, kinds);
}
