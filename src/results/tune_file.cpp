#include "src/results/tune_file.hpp"

#include <algorithm>
#include <new>
#include <set>
#include <utility>

#include "src/core/limits.hpp"

#include "src/model/result_json.hpp"
#include "src/model/tune_json.hpp"
#include "src/results/results.hpp"

namespace kex {

TuneRecord load_tune(const std::string& path) {
  try {
    return tune_section_from_json(read_results_json(path), path);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

ResultsFile load_results_file(const std::string& path) {
  try {
    const nlohmann::json doc = read_results_json(path);
    ResultsFile f;
    f.runs = results_from_json(doc, path);
    if (doc.is_object() && doc.contains("tune") && f.runs.size() == 1) f.tune = tune_section_from_json(doc, path);
    return f;
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

RunTotals tune_totals(std::optional<RunTotals> totals, const TuneRecord& tune, size_t points) {
  RunTotals t = totals.value_or(RunTotals{});
  t.elapsed_s = tune.used_s;
  t.points_planned = t.points_written = points;
  return t;
}

RunDoc race_view(const RunDoc& run, const TuneRecord& tune) {
  std::set<std::pair<uint64_t, std::string>> dropped;
  for (const RaceDrop& d : tune.drops)
    if (d.why.empty()) dropped.emplace(d.size, d.kernel);  // a point not measured stays: its status says why
  RunDoc view;
  view.context = run.context;
  std::copy_if(run.results.begin(), run.results.end(), std::back_inserter(view.results), [&](const Result& r) {
    return !dropped.count({r.point.at.size, r.point.kernel});
  });
  view.context.totals = tune_totals(run.context.totals, tune, run.results.size());
  return view;
}

nlohmann::ordered_json tune_results_json(const TuneRun& run) {
  RunDoc doc = run.doc;
  doc.context.interrupted = doc.context.interrupted || run.interrupted;
  doc.context.totals = tune_totals(doc.context.totals, run.tune, doc.results.size());
  nlohmann::ordered_json j = to_json(doc);
  for (auto& entry : j["benchmarks"])
    if (entry.contains("reps"))
      for (auto& rep : entry["reps"])
        if (rep.contains("samples_ticks")) rep["samples_ticks"] = nlohmann::ordered_json::array();
  j["tune"] = to_json(run.tune);
  return j;
}

}  // namespace kex
