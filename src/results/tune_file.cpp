#include "src/results/tune_file.hpp"

#include <new>

#include "src/core/limits.hpp"

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

}  // namespace kex
