#include "src/results/tune_file.hpp"

#include "src/core/error.hpp"
#include "src/model/tune_json.hpp"
#include "src/results/results.hpp"

namespace kex {

TuneRecord load_tune(const std::string& path) {
  const nlohmann::json doc = read_results_json(path);
  if (!doc.is_object() || !doc.contains("tune"))
    throw InputError(path + ": no tune section: a results file from `kex tune` is needed");
  return tune_from_json(doc["tune"], path + ": /tune");
}

}  // namespace kex
