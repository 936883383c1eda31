// What a call rejects as bad input: the InputError's text, "" when it throws none.
#pragma once
#include <functional>
#include <string>

#include "src/core/error.hpp"

/// The text of the kex::InputError `f` throws; "" when it returns. Other exceptions pass through.
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const kex::InputError& e) {
    return e.what();
  }
  return "";
}
