// Writing output files: never overwrite what exists unless asked, and never
// leave a half-written file behind (temp file in the same directory + rename).
#pragma once
#include <string>

namespace kex {

/// Writes `text` to `path` atomically: a temp file beside it, fsync, then rename.
/// Throws UserError("<path>: exists: pass --force to overwrite") when `path`
/// exists and !force, and UserError naming the path and errno text when the
/// directory cannot be written. Either the whole new file is there, or nothing changed.
void write_file_atomic(const std::string& path, const std::string& text, bool force);

}  // namespace kex
