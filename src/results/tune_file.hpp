// The results file of `kex tune`: written from a TuneRun, its `tune` section read back.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/tune.hpp"
#include "src/run/tune.hpp"

namespace kex {

/// The tune record of `path`. InputError("<path>...: ...") when the file cannot be read,
/// is not JSON, has no tune section, or the section is malformed (naming its JSON path).
TuneRecord load_tune(const std::string& path);

/// The file `kex tune` writes: the run's results with a `tune` section. Its
/// context.interrupted is the run's: a stop in any phase (the race or the validation of
/// the tunables after it) marks the file, not only a stop inside a stage.
nlohmann::ordered_json tune_results_json(const TuneRun& run);

}  // namespace kex
