#include "src/results/tune_file.hpp"

#include <new>

#include "src/core/limits.hpp"

#include "src/model/result_json.hpp"
#include "src/model/tune_json.hpp"
#include "src/results/results.hpp"

namespace kex {

TuneRecord load_tune(const std::string& path) {
  try {
    return tune_section_from_json(read_results_json(path), path);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

nlohmann::ordered_json tune_results_json(const TuneRun& run) {
  RunDoc doc = run.doc;
  doc.context.interrupted = doc.context.interrupted || run.interrupted;
  nlohmann::ordered_json j = to_json(doc);
  j["tune"] = to_json(run.tune);
  return j;
}

}  // namespace kex
