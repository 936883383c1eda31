// Reading the `tune` section of a results file written by `kex tune`.
#pragma once
#include <string>

#include "src/model/tune.hpp"

namespace kex {

/// The tune record of `path`. InputError("<path>...: ...") when the file cannot be read,
/// is not JSON, has no tune section, or the section is malformed (naming its JSON path).
TuneRecord load_tune(const std::string& path);

}  // namespace kex
