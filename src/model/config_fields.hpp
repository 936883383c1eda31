// The field tables of a config's plain records (src/model/config.hpp): the measurement
// policy, the preset options, the segment table's options and the outputs. The config
// reader (src/model/config.cpp) and writer (src/model/config_json.cpp) both run them, so
// a key, its range and its default are said once. Model layer only.
#pragma once
#include <cstdint>

#include "src/model/config.hpp"
#include "src/model/json_fields.hpp"

namespace kex::config_fields {

/// The policy's keys at a config's top level; a writer writes those that differ from Policy{}.
template <class IO, class P>
void map_policy(IO& io, P& p) {
  const Policy d;
  if (io.has("precision", p.precision != d.precision)) io.real("precision", p.precision, 0.0001, 0.5);
  if (io.has("max_time_per_point", p.max_time_per_point != d.max_time_per_point))
    io.real("max_time_per_point", p.max_time_per_point, 0.001, 3600);
  if (io.has("min_time_per_point", p.min_time_per_point != d.min_time_per_point))
    io.real("min_time_per_point", p.min_time_per_point, 0, 3600);
  if (io.has("min_samples", p.min_samples != d.min_samples)) io.whole("min_samples", p.min_samples, 3u, 1000000u);
  if (io.has("max_samples", p.max_samples != d.max_samples)) io.whole("max_samples", p.max_samples, 3u, 1000000u);
  if (io.has("sample_us", p.sample_us != d.sample_us)) io.real("sample_us", p.sample_us, 20, 1000);
}

/// "preset_options": {"fsave": false} drops the fsave/frstor pair the originals timed.
template <class IO, class C>
void map_preset_options(IO& io, C& c) {
  io.flag("fsave", c.preset_fsave);
}

/// The "segments" object's options (the section may also be true or false).
template <class IO, class S>
void map_segments(IO& io, S& s) {
  io.whole("iterations", s.iterations, uint64_t(1000), uint64_t(1) << 32);
  io.flag("mixed", s.mixed);
  io.flag("modern", s.modern);
}

/// "outputs": file and directory names as written; a writer writes those set.
template <class IO, class C>
void map_outputs(IO& io, C& c) {
  if (io.has("json", !c.out_json.empty())) io.text("json", c.out_json);
  if (io.has("plot_dir", !c.plot_dir.empty())) io.text("plot_dir", c.plot_dir);
  if (io.has("seed_exact", c.seed_exact)) io.flag("seed_exact", c.seed_exact);
  if (io.has("graph_dir", !c.graph_dir.empty())) io.text("graph_dir", c.graph_dir);
}

}  // namespace kex::config_fields
