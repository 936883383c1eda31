// Errors that stop a run. Only input, I/O and internal errors are exceptions; a
// kernel that cannot run or fails is a Status inside its Result (docs/STYLE.md rule 3).
#pragma once
#include <stdexcept>
#include <string>

namespace kex {

/// Bad input from the user (config, option, file) or an I/O failure the user can
/// fix: main() prints "kex: <what>" on one line and exits with status 2. `where`
/// is "file:/json/pointer", "--option" or a path; nothing has been written when it
/// is thrown for bad input.
struct InputError : std::runtime_error {
  InputError(const std::string& where, const std::string& message) : std::runtime_error(where + ": " + message) {}
  explicit InputError(const std::string& line) : std::runtime_error(line) {}
};

}  // namespace kex
