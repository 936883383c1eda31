#include "src/results/tune_file.hpp"

#include "src/model/tune_json.hpp"
#include "src/results/results.hpp"

namespace kex {

TuneRecord load_tune(const std::string& path) {
  return tune_section_from_json(read_results_json(path), path);
}

}  // namespace kex
