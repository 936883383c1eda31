// The field tables of a results entry's records (src/model/result.hpp, plan.hpp), for the
// model's reader and writer only (src/model/result_json.cpp). Entries come from every kex
// so far and from Google Benchmark: they are read with Keys::tolerant, and `required`
// names the fields no entry of any kex lacked.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "src/core/stats.hpp"
#include "src/model/config_forms.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/plan.hpp"
#include "src/model/result.hpp"
#include "src/model/spec.hpp"

namespace kex::result_fields {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Text kept as kex or the measuring process wrote it (a stop reason, a point name, a
/// note): at most kMaxFreeTextBytes; every writer escapes it for its medium.
inline const TextRule kKept{kMaxFreeTextBytes, nullptr, "", true};

bool printable_ascii_128(const std::string& s);
bool printable_ascii_4096(const std::string& s);
bool is_c_identifier(const std::string& s);
bool is_sha256_or_empty(const std::string& s);
bool is_preset_id_text(const std::string& s);
/// "fnv1a": 1 to 16 hex digits, and back (16 digits, zero-padded).
std::optional<uint64_t> parse_hex64(std::string_view s);
std::string hex64(uint64_t v);

/// The printed names label bars and name Asami's graph files: one line of printable ASCII.
inline const TextRule kPrinted{128, printable_ascii_128,
                               "at most 128 printable ASCII characters (the name a seed program printed)", false};
inline const TextRule kPresetId{kMaxFreeTextBytes, is_preset_id_text, "a preset id (FAMILY/NAME, e.g. fastc/faster_copy)",
                                false};
inline const TextRule kSymbol{kMaxFreeTextBytes, is_c_identifier, "a C identifier of at most 128 bytes", false};
/// Text shown in tables: one line of printable ASCII.
inline const TextRule kTableText{kMaxFreeTextBytes, printable_ascii_4096, "at most 4096 printable ASCII characters",
                                 false};
inline const TextRule kSha256{64, is_sha256_or_empty, "64 lower-case hex digits", false};

/// TSC ticks per operation over a repetition's samples (the repetition's own object).
template <class IO, class S>
void map_tick_stats(IO& io, S& s) {
  io.required({"n", "min_ticks", "p10_ticks", "median_ticks", "p90_ticks", "max_ticks", "ci95_low_ticks",
               "ci95_high_ticks", "ci_rel_halfwidth"});
  io.whole("n", s.n, size_t(0), SIZE_MAX);
  io.real("min_ticks", s.min, -kInf, kInf);
  io.real("p10_ticks", s.p10, -kInf, kInf);
  io.real("median_ticks", s.median, -kInf, kInf);
  io.real("p90_ticks", s.p90, -kInf, kInf);
  io.real("max_ticks", s.max, -kInf, kInf);
  io.real("ci95_low_ticks", s.ci_low, -kInf, kInf);
  io.real("ci95_high_ticks", s.ci_high, -kInf, kInf);
  io.real("ci_rel_halfwidth", s.ci_rel, -kInf, kInf);
}

/// One repetition: its statistics in ticks, how it stopped, where it ran in the run's
/// order, counters and workers when there were any, and its raw samples.
template <class IO, class R>
void map_repetition(IO& io, R& r) {
  io.required({"calls_per_sample"});
  io.whole("calls_per_sample", r.calls_per_sample, uint32_t(0), UINT32_MAX);
  map_tick_stats(io, r.per_call);
  io.text("stop_reason", r.stop_reason, kKept);
  io.real("cycles_per_tick", r.cycles_per_tick, -kInf, kInf);
  io.text("cycles_method", r.cycles_method, kKept);
  io.whole("context_switches", r.context_switches, uint64_t(0), UINT64_MAX);
  io.whole("cpu_migrations", r.migrations, uint64_t(0), UINT64_MAX);
  io.real("seconds", r.seconds, -kInf, kInf);
  io.real("steal_s", r.steal_s, -kInf, kInf);
  io.whole("order", r.order, uint64_t(0), UINT64_MAX);
  if (io.has("round", r.round != 0)) io.whole("round", r.round, uint64_t(0), UINT64_MAX);
  io.text("previous", r.previous, kKept);
  io.flag("disturbed", r.disturbed);
  if (io.has("counters", !r.counters.empty()))
    io.named_list("counters", r.counters, 4096, &CounterReading::name, kKept, [](auto& c, auto& v) {
      c.real("per_op", v.per_op, -kInf, kInf);
      c.real("running", v.running, -kInf, kInf);
    });
  if (io.has("threads", !r.threads.empty())) {
    io.list("threads", r.threads, 0, size_t(1) << 20, [](auto& t, auto& f) {
      t.required({"cpu", "median_ticks", "min_ticks"});
      t.whole("cpu", f.cpu, -1, (1 << 20) - 1);
      t.real("median_ticks", f.median_ticks, -kInf, kInf);
      t.real("min_ticks", f.min_ticks, -kInf, kInf);
    });
    io.real("start_spread_ticks", r.start_spread_ticks, -kInf, kInf);
  }
  if (io.has("harness_ticks", r.harness_ticks != 0)) io.real("harness_ticks", r.harness_ticks, 0, 1e30);
  io.wholes("samples_ticks", r.sample_ticks, size_t(1) << 28, uint64_t(0), UINT64_MAX);
}

/// A measured entry's "stats": the repetitions' statistics in ns, GB/s (1e9 bytes/s) and
/// per 4 KiB page (EntryFigures). Written for readers of the file; kex reads an entry's
/// figures back from its "reps" (an earlier kex's stats: LegacyStats).
template <class IO, class F>
void map_entry_stats(IO& io, F& f) {
  auto& a = f.a;
  io.whole("repetitions", a.repetitions, size_t(0), SIZE_MAX);
  io.whole("disturbed_repetitions", a.disturbed, size_t(0), SIZE_MAX);
  io.whole("n", a.samples, size_t(0), SIZE_MAX);
  for (auto [key, v] : {std::pair{"median_ns", &a.median_ns}, std::pair{"min_ns", &a.min_ns},
                        std::pair{"p10_ns", &a.p10_ns}, std::pair{"p90_ns", &a.p90_ns}, std::pair{"max_ns", &a.max_ns},
                        std::pair{"ci95_low_ns", &a.ci_low_ns}, std::pair{"ci95_high_ns", &a.ci_high_ns},
                        std::pair{"ci_rel_halfwidth", &a.ci_rel}, std::pair{"mean_ns", &a.mean_ns},
                        std::pair{"stddev_ns", &a.stddev_ns}, std::pair{"cv", &a.cv}, std::pair{"mad_ns", &a.mad_ns}})
    io.real(key, *v, -kInf, kInf);
  io.text("stop_reason", a.stop_reason, kKept);
  for (auto [key, v] : {std::pair{"gbps", &f.gbps}, std::pair{"gbps_best", &f.gbps_best},
                        std::pair{"gbps_p10", &f.gbps_p10}, std::pair{"gbps_p90", &f.gbps_p90},
                        std::pair{"bytes_read_written", &f.bytes_read_written},
                        std::pair{"gbps_read_written", &f.gbps_read_written},
                        std::pair{"bytes_with_write_allocate", &f.bytes_with_write_allocate},
                        std::pair{"gbps_with_write_allocate", &f.gbps_with_write_allocate},
                        std::pair{"est_cycles", &f.est_cycles}, std::pair{"bytes_per_cycle", &f.bytes_per_cycle},
                        std::pair{"cycles_per_page", &f.cycles_per_page}, std::pair{"ticks_per_page", &f.ticks_per_page},
                        std::pair{"cycles_per_tick", &a.cycles_per_tick}})
    io.real(key, *v, -kInf, kInf);
  io.text("cycles_method", a.cycles_method, kKept);
  if (io.has("harness_ns", a.harness_ns != 0)) {
    io.real("harness_ns", a.harness_ns, -kInf, kInf);
    io.real("harness_cycles", f.harness_cycles, -kInf, kInf);
  }
  if (io.has("counters_per_op", !f.counters_per_op.empty())) {
    io.named_reals("counters_per_op", f.counters_per_op, 4096, -kInf, kInf, kKept);
    io.named_reals("counters_per_byte", f.counters_per_byte, 4096, -kInf, kInf, kKept);
  }
}

/// A generated kernel's typed parameters (the first fields of an entry's "params").
template <class IO, class K>
void map_spec(IO& io, K& s) {
  io.required({"op", "regs", "unroll", "scratch", "prefetch", "pf_distance", "pf_every", "store", "direction",
               "align"});
  io.choice("op", s.op, parse_op, [](Op v) { return to_string(v); }, op_names().c_str());
  io.choice("regs", s.regs, parse_reg_class, [](RegClass v) { return to_string(v); },
            "a register class of `kex list classes`");
  io.whole("unroll", s.unroll, uint32_t(0), UINT32_MAX);
  io.whole("scratch", s.scratch, uint32_t(0), UINT32_MAX);
  io.choice("prefetch", s.prefetch, parse_prefetch, [](Prefetch v) { return to_string(v); },
            prefetch_names(", ").c_str());
  io.whole("pf_distance", s.pf_distance, INT32_MIN, INT32_MAX);
  io.whole("pf_every", s.pf_every, uint32_t(0), UINT32_MAX);
  io.choice("store", s.store, parse_store, [](Store v) { return to_string(v); }, "temporal, nontemporal");
  io.choice("direction", s.direction, parse_direction, [](Direction v) { return to_string(v); },
            "forward, backward");
  io.choice("align", s.align, parse_align, [](Align v) { return to_string(v); }, "aligned, unaligned");
  // Files of a kex before the edges axis have no "edges": their kernels moved bytes.
  io.choice("edges", s.edges, parse_edges, [](Edges v) { return to_string(v); }, "bytes, overlap");
  // Files of a kex before the small axis have no "small": their kernels' small path was bytes.
  if (io.has("small", s.small != Small::bytes))
    io.choice("small", s.small, parse_small, [](Small v) { return to_string(v); }, "bytes, overlap, mask, rep, table");
  if (io.has("rep_above", s.rep_above != 0)) io.whole("rep_above", s.rep_above, uint32_t(1), kMaxRepAbove);
  io.whole("block_bytes", s.block.bytes, uint32_t(0), UINT32_MAX);
  io.choice("block_order", s.block.order, parse_direction, [](Direction v) { return to_string(v); },
            "forward, backward");
  io.whole("fill", s.fill, uint8_t(0), uint8_t(255));
}

/// What an entry's "params" say beside the spec: the op (when no spec says it), the
/// preset and its fsave, a baseline's or an implementation's kind ("libc", "glibc",
/// "lib", "asm"), function and fill.
struct ParamFacts {
  std::optional<Op> op;
  std::string preset;
  bool fsave = true;
  std::string impl, function;
  uint8_t fill = 0;
};

template <class IO, class P>
void map_param_facts(IO& io, P& p) {
  if (io.has("op", p.op)) io.choice("op", *p.op, parse_op, [](Op v) { return to_string(v); }, "copy, clear, read");
  if (io.has("preset", !p.preset.empty())) io.text("preset", p.preset, kKept);
  if (io.has("fsave", !p.preset.empty())) io.flag("fsave", p.fsave);
  if (io.has("impl", !p.impl.empty())) io.text("impl", p.impl, kKept);
  if (io.has("function", !p.impl.empty())) io.text("function", p.function, kKept);
  if (io.has("fill", p.fill != 0)) io.whole("fill", p.fill, uint8_t(0), uint8_t(255));
}

/// A point's coordinates but its size, in an entry's "params" (written for readers of
/// the file; kex reads them from the entry's name): a missing distance or prefill is null,
/// threads and pass appear when not 1.
template <class IO, class C>
void map_coords(IO& io, C& c) {
  using config_forms::PrefillByte;
  using config_forms::Signed;
  io.whole("src_offset", c.layout.src_offset, uint64_t(0), UINT64_MAX);
  io.whole("dst_offset", c.layout.dst_offset, uint64_t(0), UINT64_MAX);
  io.value("distance", c.layout.distance,
           OrToken{nlohmann::json(nullptr), std::optional<int64_t>{}, Signed{INT64_MIN, INT64_MAX}});
  io.flag("huge_pages", c.layout.huge_pages);
  io.choice("cache", c.cache, parse_cache_mode, [](CacheMode v) { return std::string(to_string(v)); }, "warm, cold");
  io.whole("chunk", c.chunk, uint64_t(0), UINT64_MAX);
  io.value("prefill", c.prefill, OrToken{nlohmann::json(nullptr), std::optional<uint8_t>{}, PrefillByte{}});
  io.flag("consume", c.consume);
  if (io.has("threads", c.threads != 1)) io.whole("threads", c.threads, uint32_t(1), UINT32_MAX);
  io.choice("harness", c.harness, parse_harness, [](Harness v) { return std::string(to_string(v)); },
            "kex, fastc, hahn, xmm64, mem_cp");
  if (io.has("pass", c.pass != 1)) io.whole("pass", c.pass, uint32_t(1), UINT32_MAX);
  if (io.has("stream", !c.stream.empty())) {
    io.text("stream", c.stream, kKept);
    io.whole("footprint", c.footprint, uint64_t(0), UINT64_MAX);
    io.whole("stream_seed", c.stream_seed, uint64_t(0), UINT64_MAX);
    io.whole("stream_calls", c.stream_calls, uint32_t(1), kMaxStreamCalls);
  }
}

/// A preset's facts (an entry's "preset" object): where it comes from and how sure.
template <class IO, class P>
void map_preset(IO& io, P& p) {
  io.required({"id", "printed", "confidence"});
  io.text("id", p.id, kPresetId);
  io.text("printed", p.printed, kPrinted);
  if constexpr (IO::reading) p.hahn_printed = p.printed;
  if (io.has("printed_hahn", !p.hahn_printed.empty() && p.hahn_printed != p.printed))
    io.text("printed_hahn", p.hahn_printed, kPrinted);
  io.texts("aliases", p.aliases, 4096, kKept);
  io.text("family", p.family, kKept);
  io.text("origin", p.origin, kKept);
  io.choice("confidence", p.confidence, parse_confidence, [](Confidence v) { return to_string(v); },
            "high, medium, low");
  io.texts("features", p.features, 4096, kKept);
  io.texts("substitutions", p.substitutions, 4096, kKept);
  io.text("notes", p.notes, kKept);
  io.whole("region", p.region, uint32_t(0), UINT32_MAX);
  io.whole("alignment", p.alignment, uint32_t(0), UINT32_MAX);
}

/// An implementation kex did not generate (an entry's "implementation" object).
template <class IO, class F>
void map_impl(IO& io, F& f) {
  io.required({"source", "function", "symbol"});
  io.choice("source", f.source, parse_impl_source, [](Source v) { return to_string(v); }, "glibc, lib, asm");
  io.choice("function", f.function, parse_function, [](Function v) { return to_string(v); }, "memcpy, memmove, memset");
  io.text("symbol", f.symbol, kSymbol);
  io.flag("usable", f.usable);
  if (io.has("reason", !f.reason.empty())) io.text("reason", f.reason, kTableText);
  if (io.has("path", !f.path.empty())) io.text("path", f.path, kTableText);
  if (io.has("sha256", !f.sha256.empty())) io.text("sha256", f.sha256, kSha256);
  if (io.has("label", !f.label.empty())) io.text("label", f.label, kKept);
  if (io.has("pieces", f.pieces != 0)) io.whole("pieces", f.pieces, size_t(0), SIZE_MAX);
}

/// What a seed program printed for the point and how it measured (an entry's "seed").
template <class IO, class S>
void map_seed(IO& io, S& s) {
  io.whole("pages", s.pages, uint64_t(0), UINT64_MAX);
  io.whole("divisor", s.divisor, uint64_t(0), UINT64_MAX);
  io.whole("printed_ticks", s.printed_ticks, INT64_MIN, INT64_MAX);
  io.real("mb_per_s", s.mb_per_s, -kInf, kInf);
  io.real("mhz", s.mhz, -kInf, kInf);
  io.whole("buffer_offset", s.buffer_offset, uint64_t(0), UINT64_MAX);
  io.whole("buffer_bytes", s.buffer_bytes, uint64_t(0), UINT64_MAX);
  io.whole("src_minus_dst", s.src_minus_dst, uint64_t(0), UINT64_MAX);
  io.flag("warm_up_pass", s.warm_up_pass);
  io.real("sleep_before_s", s.sleep_before_s, -kInf, kInf);
  io.text("label", s.label, kKept);
  io.text("note", s.note, kKept);
}

/// The code's size and hash (an entry's "code").
template <class IO, class C>
void map_code(IO& io, C& c) {
  io.required({"bytes", "fnv1a"});
  io.whole("bytes", c.bytes, size_t(0), SIZE_MAX);
  io.choice("fnv1a", c.fnv1a, parse_hex64, hex64, "1 to 16 hex digits");
}

/// Where a point's buffers really were (fields of an entry's "params"); a reader starts
/// from the offsets the point's layout names.
template <class IO, class P>
void map_placement(IO& io, P& pl) {
  io.required({"src_page_offset", "dst_page_offset", "relative_offset"});
  io.whole("src_offset_used", pl.src_offset, INT64_MIN, INT64_MAX);
  io.whole("dst_offset_used", pl.dst_offset, INT64_MIN, INT64_MAX);
  io.whole("src_page_offset", pl.src_page_offset, uint32_t(0), UINT32_MAX);
  io.whole("dst_page_offset", pl.dst_page_offset, uint32_t(0), UINT32_MAX);
  io.whole("relative_offset", pl.relative_offset, uint32_t(0), UINT32_MAX);
  if (io.has("offsets_rounded_up_to_alignment", pl.rounded_to > 1))
    io.whole("offsets_rounded_up_to_alignment", pl.rounded_to, uint32_t(0), UINT32_MAX);
}

/// Skipped, failed (its message, signal and fault offset) or ok: Google Benchmark's
/// "skipped" and "error_occurred" flags, which a file may also write as false.
template <class IO, class S>
void map_status(IO& io, S& st) {
  bool skipped = st.kind == StatusKind::skipped, failed = st.kind == StatusKind::error;
  if (io.has("skipped", skipped)) io.flag("skipped", skipped);
  if (skipped) {
    io.text("skip_message", st.message, kKept);
  } else {
    if (io.has("error_occurred", failed)) io.flag("error_occurred", failed);
    if (failed) {
      io.text("error_message", st.message, kKept);
      if (io.has("signal", st.signal != 0)) io.whole("signal", st.signal, 0, 1024);
      if (io.has("fault_offset", st.fault_offset)) io.whole("fault_offset", *st.fault_offset, INT64_MIN, INT64_MAX);
    }
  }
  if constexpr (IO::reading) st.kind = skipped ? StatusKind::skipped : failed ? StatusKind::error : StatusKind::ok;
}

}  // namespace kex::result_fields
