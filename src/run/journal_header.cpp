#include "src/run/journal_header.hpp"

#include <nlohmann/json.hpp>

#include "src/core/enum_words.hpp"
#include "src/core/error.hpp"
#include "src/model/filter.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/protocol_fields.hpp"
#include "src/model/results_format.hpp"

namespace kex {

namespace {

const TextRule kBuild{64};
const TextRule kRunId{16, is_run_id, "16 lowercase hex digits"};
const TextRule kOutputName{255, is_file_name, "a file name without a directory"};

/// The header's one field table: to_json and journal_header_from both run it.
template <class IO, class H>
void map_header(IO& io, H& h) {
  io.text("kex_version", h.kex_version, kBuild);
  io.text("git_commit", h.git_commit, kBuild);
  io.text("run_id", h.request.run_id, kRunId);
  io.text("machine", h.machine, TextRule{1024});
  io.choice("format", h.request.format, [](std::string_view w) { return enum_from_word(kResultsFormats, w); },
            [](ResultsFormat f) { return to_string(f); }, "json, gbench, csv");
  io.object("shard", [&](auto& s) {
    s.whole("index", h.request.shard_index, size_t(0), size_t(99999));
    s.whole("count", h.request.shard_count, size_t(1), size_t(100000));
  });
  io.text("filter", h.request.filter);
  io.flag("drew_figures", h.drew_figures);
  if (io.has("report", !h.wrote_report)) io.flag("report", h.wrote_report);  // written only when false
  io.text("output_name", h.output_name, kOutputName);
  io.object("protocol", [&](auto& p) { map_protocol(p, h.request.protocol); });
  io.list("configs", h.request.configs, 1, 1000, [](auto& e, auto& c) {
    e.text("source", c.source);
    e.object_value("config", c.raw);
  });
  if (io.has("tune", h.tune)) io.object("tune", [&](auto& t) { map_tune_request(t, *h.tune); });
}

}  // namespace

bool is_file_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos;
}

bool is_run_id(const std::string& s) {
  if (s.size() != 16) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

nlohmann::json to_json(const JournalHeader& h) {
  nlohmann::json j;
  FieldWriter w(j);
  map_header(w, h);
  return j;
}

JournalHeader journal_header_from(const nlohmann::json& j, const std::string& where) {
  JournalHeader h;
  FieldReader r(j, where);
  map_header(r, h);
  r.finish();
  if (h.request.shard_index >= h.request.shard_count)
    throw InputError(where + "/shard/index", std::to_string(h.request.shard_index) + ": expected below the count, " +
                                                 std::to_string(h.request.shard_count));
  if (!h.request.filter.empty()) (void)parse_name_filter(h.request.filter, where + "/filter");
  // Each config as a config file is read, once, from the header's JSON: its errors follow
  // the config's place here.
  for (size_t i = 0; i < h.request.configs.size(); ++i) {
    Config& c = h.request.configs[i];
    const std::string source = c.source;
    c = config_from_json(std::move(c.raw), where + "/configs/" + std::to_string(i) + "/config");
    c.source = source;
  }
  return h;
}

}  // namespace kex
