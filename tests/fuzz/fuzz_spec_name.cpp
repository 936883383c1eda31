// libFuzzer target: kex::parse_spec_name on arbitrary bytes (tests/fuzz/run.sh).
// std::invalid_argument (and InputError) are the expected refusals; anything else,
// a crash, a hang or a sanitizer report is a finding. A valid spec's canonical name
// must parse back to the same spec (docs/STYLE.md rule 10).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "src/core/error.hpp"
#include "src/model/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  kex::KernelSpec s;
  try {
    s = kex::parse_spec_name(name);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const kex::InputError&) {
    return 0;
  }
  (void)kex::validate(s);
  if (kex::validate(s).empty() && !(kex::parse_spec_name(kex::spec_name(s)) == s)) std::abort();
  return 0;
}
