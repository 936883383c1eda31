// What a call rejects as bad input: the error's text, "" when it throws none.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

#include "src/core/error.hpp"

/// The text of the `Error` `f` throws; "" when it returns. Other exceptions pass through.
template <class Error>
std::string error_text_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// The text of the kex::InputError `f` throws; "" when it returns.
inline std::string input_error_of(const std::function<void()>& f) { return error_text_of<kex::InputError>(f); }

/// The text of the std::invalid_argument `f` throws (the name parsers' error); "" when it returns.
inline std::string invalid_argument_of(const std::function<void()>& f) { return error_text_of<std::invalid_argument>(f); }
