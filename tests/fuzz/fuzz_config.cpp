// libFuzzer target: kex::parse_config on arbitrary text (tests/fuzz/run.sh).
// An InputError is the expected refusal; any other exception, a crash, a hang or a
// sanitizer report is a finding. An accepted config must hold only valid kernels
// whose names parse back to the same spec (docs/STYLE.md rule 10).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kex::Config c;
  try {
    c = kex::parse_config(text, "fuzz.json");
  } catch (const kex::InputError&) {
    return 0;
  }
  auto ascending = [](const std::vector<uint64_t>& v) {  // sizes: ascending, unique, > 0 (config.hpp)
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == 0 || (i > 0 && v[i - 1] >= v[i])) return false;
    return true;
  };
  if (!ascending(c.axes.sizes)) std::abort();
  for (const auto& g : c.grids) {
    if (!ascending(g.axes.sizes)) std::abort();
    for (const auto& k : g.specs) {
      if (!kex::validate(k).empty()) std::abort();
      if (!(kex::parse_spec_name(kex::spec_name(k)) == k)) std::abort();
    }
  }
  return 0;
}
