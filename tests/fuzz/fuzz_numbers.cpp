// libFuzzer target, differential: a prefetch distance must read the same in a
// kernel name ("copy/sse/pf:nta@D") and in a config ("prefetch": "nta@D"): both
// accept it with the same value, or both refuse it for the same reason
// (src/core/numbers.hpp). A difference, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/model/config.hpp"
#include "src/model/spec.hpp"

namespace {

struct Outcome {
  bool ok = false;
  int32_t distance = 0;
  std::string error;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string d(reinterpret_cast<const char*>(data), size);
  if (d.find('/') != std::string::npos) return 0;  // a '/' starts the next name token
  for (unsigned char ch : d)
    if (ch < 0x20 || ch == 0x7f) return 0;  // names refuse control bytes as a whole (spec.cpp)
  std::string config;
  try {
    nlohmann::json j = {{"sizes", {4096}}, {"kernels", {{{"op", "copy"}, {"regs", "sse"}, {"prefetch", "nta@" + d}}}}};
    config = j.dump();
  } catch (const nlohmann::json::exception&) {
    return 0;  // not UTF-8: no JSON string holds it
  }
  Outcome n, c;
  try {
    n.distance = kex::parse_spec_name("copy/sse/pf:nta@" + d).pf_distance;
    n.ok = true;
  } catch (const std::invalid_argument& e) {
    n.error = e.what();
  }
  try {
    kex::Config cfg = kex::parse_config(config, "f.json");
    if (cfg.grids.size() != 1 || cfg.grids[0].specs.size() != 1) std::abort();
    c.distance = cfg.grids[0].specs[0].pf_distance;
    c.ok = true;
  } catch (const kex::InputError& e) {
    c.error = e.what();
  }
  if (n.ok != c.ok || n.distance != c.distance) std::abort();
  if (!n.ok) {  // the same reason behind each path's own location
    const std::string prefix = "name token 'pf:nta@" + d + "': ";
    if (n.error.compare(0, prefix.size(), prefix) != 0) std::abort();
    const std::string tail = ": the distance after @: " + n.error.substr(prefix.size());
    if (c.error.size() < tail.size() || c.error.compare(c.error.size() - tail.size(), tail.size(), tail) != 0) std::abort();
  }
  return 0;
}
