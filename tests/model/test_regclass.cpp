// The register-class table is the only list of classes: the enum, the emitters,
// the config schema and the messages all follow it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>


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
  CHECK(classes.size() == kRegClassCount);
  CHECK(reg_class_names().rfind("gpr, mmx, ", 0) == 0);  // the words joined, in table order
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

/// Whether the first match of `pattern` in the file `rel` (from the source root) has
/// `want` as its group 2 (group 1 and 3 are kept around it). KEX_UPDATE_GOLDEN=1 rewrites
/// the group in the file instead (the lists of a new class or prefetch kind), as goldens are.
bool list_synced(const std::string& rel, const std::string& pattern, const std::string& want) {
  const std::string text = slurp_source(rel);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) {
    MESSAGE(std::string(rel + ": no list matches " + pattern));
    return false;
  }
  if (m[2].str() == want) return true;
  if (!std::getenv("KEX_UPDATE_GOLDEN")) {
    MESSAGE(std::string(rel + ": " + m[2].str() + " is not the table's " + want + " (KEX_UPDATE_GOLDEN=1 rewrites it)"));
    return false;
  }
  std::ofstream(std::string(KEX_SOURCE_DIR) + "/" + rel)
      << text.substr(0, size_t(m.position(2))) << want << text.substr(size_t(m.position(2) + m.length(2)));
  return true;
}

/// The words as a list: each between `quote`s, joined by `sep`.
template <class Rows>
std::string joined_rows(const Rows& rows, const std::string& quote, const std::string& sep) {
  std::string s;
  for (const auto& r : rows) s += (s.empty() ? "" : sep) + quote + r.name + quote;
  return s;
}
}  // namespace

TEST_CASE("the schema's, README's and DESIGN.md's lists of classes and prefetch kinds are the tables' "
          "(a list that drifts fails; KEX_UPDATE_GOLDEN=1 rewrites them)" *
          doctest::test_suite("spec")) {
  // The config schema's word list of a class, one word a line.
  CHECK(list_synced("configs/schema/config.schema.json", R"(("regs1": \{\s*"enum": \[\s*)([^\]]*?)(\s*\]))",
                    joined_rows(reg_classes(), "\"", ",\n        ")));
  // The config schema's prefetch pattern: none, or a kind with a distance.
  const std::string with_distance = prefetch_names("|").substr(prefetch_names("|").find('|') + 1);
  CHECK(list_synced("configs/schema/config.schema.json", R"(("prefetch1": \{\s*"type": "string",\s*"pattern": "\^\(none\|\()([a-z0-9|]+)(\)@))",
                    with_distance));
  // The README's name diagram ("Kernel and point names").
  CHECK(list_synced("README.md", "(\n\u2502    \u2514 )([a-z0-9]+(?: \\| [a-z0-9]+)+)(\n)", reg_class_names(" | ")));
  CHECK(list_synced("README.md", "(prefetch )([a-z0-9]+(?:\\|[a-z0-9]+)+)(,)", prefetch_names("|")));
  // DESIGN.md's parameter table: each word in backquotes, in table order.
  CHECK(list_synced("docs/DESIGN.md", "(\\| `regs` \\(register class\\) \\| )((?:`\\w+`(?:, )?)+)( \\|)",
                    joined_rows(reg_classes(), "`", ", ")));
  CHECK(list_synced("docs/DESIGN.md", "(\\| `prefetch` \\| )((?:`\\w+`(?:, )?)+)( )", joined_rows(prefetch_kinds(), "`", ", ")));
}

