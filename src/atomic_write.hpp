// Output files: never overwrite without --force, always written atomically.
#pragma once
#include <string>

namespace kex {

/// Writes `text` to `path` through a temporary file in the same directory and
/// rename(2), so readers never see a partial file. Throws UserError (one line:
/// path and reason) when `path` exists and !force, or on any I/O error; the
/// existing file is then untouched. Creates no directories.
void write_file_atomic(const std::string& path, const std::string& text, bool force);

}  // namespace kex
