// The formats a results file is written in (`kex run --format`, the journal header's
// "format"): kex's own JSON, Google Benchmark's JSON, CSV.
#pragma once
#include <array>
#include <string_view>

namespace kex {

enum class ResultsFormat { json, gbench, csv };
/// "json", "gbench", "csv".
inline std::string_view to_string(ResultsFormat f) {
  switch (f) {
    case ResultsFormat::json: return "json";
    case ResultsFormat::gbench: return "gbench";
    case ResultsFormat::csv: return "csv";
  }
  return "?";
}
inline constexpr std::array kResultsFormats{ResultsFormat::json, ResultsFormat::gbench, ResultsFormat::csv};

}  // namespace kex
