// The field tables of a config (src/model/config.hpp): its names, axes, kernel grids,
// presets, baselines, loads, measurement policy, segment table and outputs. The config
// reader (src/model/config.cpp) and writer (src/model/config_json.cpp) both run them, so
// a key, its form, its range and when it is written are said once; the values' forms are
// in config_forms.hpp. A config's sections are Keys::partial records: a key a writer
// leaves out (io.when) keeps its default when read. Model layer only.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/config_forms.hpp"
#include "src/model/json_fields.hpp"
#include "src/core/enum_words.hpp"

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

/// "name" and "description" (any text), and "$schema" (read and passed over).
template <class IO, class C>
void map_names(IO& io, C& c) {
  const TextRule any{kMaxConfigBytes, nullptr, "", /*controls=*/true};
  std::string schema;
  if (io.when(false)) io.text("$schema", schema, any);
  if (io.when(!c.name.empty())) io.text("name", c.name, any);
  if (io.when(!c.description.empty())) io.text("description", c.description, any);
}

/// A "sizes" range: from, to, and one of factor, step and steps_per_octave (read only:
/// a writer writes the sizes).
struct SizeRange {
  uint64_t from = 0, to = 0;
  std::optional<double> factor;
  std::optional<uint64_t> step;
  std::optional<uint32_t> steps_per_octave;
};

/// A range's keys; the reader checks that it has from, to and exactly one step kind.
template <class IO>
void map_size_range(IO& io, SizeRange& r, uint64_t hi) {
  using namespace config_forms;
  io.value("from", r.from, ByteSize{1, hi});
  io.value("to", r.to, ByteSize{1, hi});
  io.value("factor", r.factor, Real{1.0001, 1024});
  io.value("steps_per_octave", r.steps_per_octave, Whole<uint32_t>{1, 64});
  io.value("step", r.step, ByteSize{1, hi});
}

/// Whether any layout axis of `a` differs from `base`'s (a "layout" object is written).
inline bool layout_differs(const Axes& a, const Axes& base) {
  return a.src_offsets != base.src_offsets || a.dst_offsets != base.dst_offsets || a.distances != base.distances ||
         a.huge_pages != base.huge_pages;
}

/// The "layout" object's axes over `base`'s; offsets and distances within `hi` bytes.
template <class IO, class A>
void map_layout(IO& io, A& a, const Axes& base, uint64_t hi) {
  using namespace config_forms;
  const Signed distance{-static_cast<int64_t>(hi), static_cast<int64_t>(hi)};
  if (io.when(a.src_offsets != base.src_offsets)) io.one_or_list("src_offset", a.src_offsets, ByteSize{0, hi});
  if (io.when(a.dst_offsets != base.dst_offsets)) io.one_or_list("dst_offset", a.dst_offsets, ByteSize{0, hi});
  if (io.when(a.distances != base.distances))
    io.one_or_list("distance", a.distances, OrToken{nlohmann::json(nullptr), std::optional<int64_t>(), distance});
  if (io.when(a.huge_pages != base.huge_pages)) io.one_or_list("huge_pages", a.huge_pages, Flag{});
}

/// The coordinate axes of a config's top level (over Axes{}) or of a grid (over the top
/// level's): a value or a list each, written as a list where it differs from `base`.
/// A reader lists each value once after (read_axes).
template <class IO, class A>
void map_axes(IO& io, A& a, const Axes& base) {
  using namespace config_forms;
  const uint64_t hi = IO::reading ? max_config_size() : 0;  // a writer checks nothing
  if (io.when(a.sizes != base.sizes)) io.one_or_list("sizes", a.sizes, SizesForm{hi});
  if (io.when(layout_differs(a, base))) io.object("layout", [&](auto& l) { map_layout(l, a, base, hi); });
  if (io.when(a.caches != base.caches)) io.one_or_list("cache", a.caches, Word<CacheMode>{parse_cache_mode, enum_word_list(kCacheModes)});
  if (io.when(a.chunks != base.chunks))
    io.one_or_list("chunk", a.chunks, OrToken{nlohmann::json("none"), uint64_t(0), ByteSize{1, hi}});
  if (io.when(a.prefills != base.prefills))
    io.one_or_list("prefill", a.prefills, OrToken{nlohmann::json("none"), std::optional<uint8_t>(), PrefillByte{}});
  if (io.when(a.consumes != base.consumes)) io.one_or_list("consume", a.consumes, Flag{});
  if (io.when(a.threads != base.threads)) io.one_or_list("threads", a.threads, Threads{});
  if (io.when(a.streams != base.streams)) io.one_or_list("streams", a.streams, StreamSource{});
  if (io.when(a.footprints != base.footprints)) io.one_or_list("footprint", a.footprints, FootprintForm{hi});
  if (io.has("stream_seed", a.stream_seed != base.stream_seed))
    io.whole("stream_seed", a.stream_seed, uint64_t(0), uint64_t(INT64_MAX));
  if (io.has("stream_calls", a.stream_calls != base.stream_calls))
    io.whole("stream_calls", a.stream_calls, uint32_t(1), kMaxStreamCalls);
}

/// A kernel grid's spec keys: each axis's values in the order given (empty: not given).
/// A grid kex writes gives one value each, every one a spec has (config_json).
struct GridKeys {
  std::vector<Op> ops;
  std::vector<RegClass> regs;
  std::vector<uint32_t> unrolls, scratches;
  std::vector<config_forms::PrefetchAt> prefetches;
  std::vector<uint32_t> pf_every;
  std::vector<Store> stores;
  std::vector<Direction> directions;
  std::vector<Align> aligns;
  std::vector<Edges> edges;
  std::vector<Small> smalls;
  std::vector<uint32_t> rep_aboves;
  std::vector<BlockPrefetch> blocks;
  std::vector<uint8_t> fills;
  bool skip_invalid = false;  ///< drop the invalid combinations instead of refusing the grid
};

/// A grid's spec keys, each a value or a list (a lone value written as itself), in the
/// order they apply (src/model/config_grid.cpp), then skip_invalid.
template <class IO, class G>
void map_grid(IO& io, G& g) {
  using namespace config_forms;
  auto axis = [&](const char* key, auto& v, const auto& form) {
    if (io.when(!v.empty())) io.one_or_list(key, v, form, Listed::when_many);
  };
  axis("op", g.ops, Word<Op>{parse_op, op_names()});
  axis("regs", g.regs, Word<RegClass>{parse_reg_class, reg_class_names()});
  axis("unroll", g.unrolls, Whole<uint32_t>{1, 8192});
  axis("scratch", g.scratches, Whole<uint32_t>{1, 32});
  axis("prefetch", g.prefetches, PrefetchForm{});
  axis("pf_every", g.pf_every, Whole<uint32_t>{kMinPfEvery, kMaxPfEvery});
  axis("store", g.stores, Word<Store>{store_alias, "temporal, nontemporal"});
  axis("direction", g.directions, Word<Direction>{dir_alias, "forward, backward"});
  axis("align", g.aligns, Word<Align>{parse_align, "aligned, unaligned"});
  axis("edges", g.edges, Word<Edges>{parse_edges, "bytes, overlap"});
  axis("small", g.smalls, Word<Small>{parse_small, small_names()});
  axis("rep_above", g.rep_aboves, Whole<uint32_t>{0, kMaxRepAbove});
  axis("block", g.blocks, BlockForm{});
  axis("fill", g.fills, Whole<uint8_t>{0, 255});
  if (io.when(g.skip_invalid)) io.flag("skip_invalid", g.skip_invalid);
}

/// A grid's "block" object: its bytes (required) and order.
template <class IO, class B>
void map_block(IO& io, B& b) {
  io.value("bytes", b.bytes, config_forms::ByteSize{64, 1 << 20});
  io.value("order", b.order, config_forms::Word<Direction>{config_forms::dir_alias, "forward, backward"});
}

/// The presets, and their harness, repeat and options (written only with presets).
template <class IO, class C>
void map_presets(IO& io, C& c) {
  using namespace config_forms;
  const bool any = !c.presets.empty();
  if (io.when(any)) io.one_or_list("presets", c.presets, Text{});
  if (io.when(any && (c.harness != Harness::kex || c.repeat != 1)))
    io.value("harness", c.harness, Word<Harness>{parse_harness, enum_word_list(kHarnesses)});
  if (io.when(any && c.repeat != 1)) io.value("repeat", c.repeat, Whole<uint32_t>{1, 1000});
  if (io.when(any && !c.preset_fsave)) io.object("preset_options", [&](auto& o) { map_preset_options(o, c); });
}

/// The "load" list (src/model/load_spec.hpp's records, at most 64).
template <class IO, class C>
void map_loads(IO& io, C& c) {
  if (io.when(!c.loads.empty()))
    io.list("load", c.loads, 1, 64, [](auto& f, auto& l) { map_load(f, l); });
}

/// The segment table's section and the outputs.
template <class IO, class C>
void map_sections(IO& io, C& c) {
  if (io.when(c.segments.enabled)) io.value("segments", c.segments, config_forms::SegmentsForm{});
  if (io.when(!c.out_json.empty() || !c.plot_dir.empty() || c.seed_exact || !c.graph_dir.empty()))
    io.object("outputs", [&](auto& o) { map_outputs(o, c); });
}

/// A config's top level, every section (what config_json writes; a reader names its keys
/// with it, then reads the sections in order with its checks between them, parse_config).
/// The protocol's knobs are read by ProtocolRequest::read ("protocol", and "repetitions"
/// at the top level) and written as one "protocol" object.
template <class IO, class C>
void map_config(IO& io, C& c) {
  map_names(io, c);
  map_axes(io, c.axes, Axes{});
  if (io.when(!c.grids.empty())) io.value("kernels", c.grids, config_forms::KernelsForm{c.axes});
  map_presets(io, c);
  io.value("baselines", c.baselines, config_forms::BaselinesForm{});
  map_loads(io, c);
  map_policy(io, c.policy);
  if constexpr (IO::reading) {
    io.has("repetitions", true);
    io.has("protocol", true);
  } else if (io.has("protocol", !c.protocol.knobs().empty())) {
    io.object_value("protocol", c.protocol.knobs());
  }
  map_sections(io, c);
}

}  // namespace kex::config_fields
