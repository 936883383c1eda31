// Output files: never overwrite without --force, always written atomically.
#pragma once
#include <string>

namespace kex {

/// Writes `text` to `path` through a temporary file in the same directory and
/// rename(2), so readers never see a partial file. Throws InputError (one line:
/// path and reason) when `path` exists and !force, or on any I/O error; the
/// existing file is then untouched. Creates no directories.
void write_file_atomic(const std::string& path, const std::string& text, bool force);

/// The checks write_file_atomic makes, without writing: InputError when `path` exists
/// and !force, when it exists and is not a regular file (a device, a directory, a
/// symlink: never replaced, even with force), or when its directory is missing or
/// not writable. Call it before long work so a bad path fails first.
void check_output_path(const std::string& path, bool force);

}  // namespace kex
