// The segment section's one field table (src/model/segments.hpp), for the model's
// reader and writer only (src/model/context_json.cpp): the keys in the order
// `kex segments --json` writes them, each with what a reader accepts.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "src/model/json_fields.hpp"
#include "src/model/segments.hpp"

namespace kex::segment_fields {

/// Names, messages, CPU models: as written (each writer escapes them for its medium).
inline const TextRule kText{kMaxFreeTextBytes, nullptr, "", true};
/// "0x" and `lo` to `hi` lowercase hex digits, as the writer prints selectors and bases.
inline bool hex_text(const std::string& s, size_t lo, size_t hi) {
  return s.size() >= 2 + lo && s.size() <= 2 + hi && s.compare(0, 2, "0x") == 0 &&
         s.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
}
inline bool is_selector_text(const std::string& s) { return hex_text(s, 2, 4); }
inline bool is_address_text(const std::string& s) { return hex_text(s, 1, 16); }
/// A selector ("0x2b") and a segment base ("0x7f00..."), as the schema's patterns say.
inline const TextRule kSelector{6, is_selector_text, "0x and 2 to 4 hex digits (0-9, a-f)"};
inline const TextRule kAddress{18, is_address_text, "0x and 1 to 16 hex digits (0-9, a-f)"};
inline constexpr double kHuge = std::numeric_limits<double>::max();
inline constexpr size_t kMaxSelectors = 64;

template <class IO, class O>
void maybe_text(IO& io, const char* key, O& v) {
  if (io.has(key, v)) io.text(key, *v, kText);
}
template <class IO, class O>
void maybe_real(IO& io, const char* key, O& v) {
  if (io.has(key, v)) io.real(key, *v, 0, kHuge);
}
template <class IO, class O, class T>
void maybe_whole(IO& io, const char* key, O& v, T lo, T hi) {
  if (io.has(key, v)) io.whole(key, *v, lo, hi);
}

/// A word of a closed set (src/model/segment_kinds.hpp): written as its word; read as
/// a text (a number is "expected a string", as for any text) that must be one of `words`,
/// else "<path>: "<value>": allowed: <words>". A tolerant reader that finds no such
/// field leaves `v` as it was.
template <class IO, class V, class E>
void word(IO& io, const char* key, V& v, std::optional<E> (*parse)(std::string_view), const std::string& words) {
  std::string w(to_string(v));
  io.text(key, w, kText);
  if constexpr (IO::reading) {
    const std::optional<E> e = parse(w);
    if (!e) io.fail(key, w, "allowed: " + words);
    v = *e;
  }
}

/// An optional word: written when set, read when present (as `word`).
template <class IO, class O, class E>
void maybe_word(IO& io, const char* key, O& v, std::optional<E> (*parse)(std::string_view), const std::string& words) {
  if (io.has(key, v)) word(io, key, *v, parse, words);
}

template <class IO, class H>
void map_header(IO& io, H& h) {
  io.text("cpu_model", h.cpu_model, kText);
  io.real("mhz", h.mhz, 0, kHuge);
  maybe_real(io, "mhz_after", h.mhz_after);
  io.whole("family", h.family, 0, 0x10e);
  io.whole("model", h.model, 0, 255);
  io.whole("stepping", h.stepping, 0, 255);
  io.named_nullable_texts("selectors", h.selectors, kMaxSelectors, kSelector);
  maybe_text(io, "ldt_error", h.ldt_error);
  maybe_text(io, "gdt_error", h.gdt_error);
  if (io.has("entry_selectors", h.entry_selectors))
    io.named_nullable_texts("entry_selectors", *h.entry_selectors, kMaxSelectors, kSelector);
  maybe_text(io, "ldt_entry_error", h.ldt_entry_error);
  maybe_text(io, "gdt_entry_error", h.gdt_entry_error);
  io.text("timer", h.timer, kText);
  maybe_text(io, "seed_clock", h.seed_clock);
  io.real("tsc_hz", h.tsc_hz, 0, kHuge);
  maybe_whole(io, "iterations", h.iterations, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "repetitions", h.repetitions, 0, INT32_MAX);
  maybe_whole(io, "cpu", h.cpu, -1, 1 << 20);
  if (io.has("null_selector_clears_base", h.null_selector_clears_base))
    io.flag("null_selector_clears_base", *h.null_selector_clears_base);
  maybe_text(io, "base_restore", h.base_restore);
  io.others(h.unknown);
}

/// A measured case's figures (each absent in a skipped case; some in older files).
template <class IO, class C>
void map_figures(IO& io, C& c) {
  maybe_real(io, "ns_per_iteration", c.ns_per_iteration);
  maybe_real(io, "ticks_per_iteration", c.ticks_per_iteration);
  maybe_real(io, "est_cycles_per_iteration", c.est_cycles_per_iteration);
  maybe_text(io, "cycles_method", c.cycles_method);
  maybe_real(io, "cycles_per_tick", c.cycles_per_tick);
  maybe_whole(io, "repetitions", c.repetitions, 0, INT32_MAX);
  maybe_whole(io, "iterations_per_sample", c.iterations_per_sample, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "unroll", c.unroll, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "min_ticks", c.min_ticks, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "median_ticks", c.median_ticks, uint64_t(0), UINT64_MAX);
  maybe_real(io, "median_ns_per_iteration", c.median_ns_per_iteration);
  maybe_whole(io, "timed_iterations", c.timed_iterations, uint64_t(0), UINT64_MAX);
  maybe_whole(io, "cputime_ns", c.cputime_ns, uint64_t(0), UINT64_MAX);
}

/// Whether a case was skipped, and why: `skipped` is true or left out (as the schema
/// says), and a skipped case names its reason (skip_message, not empty).
template <class IO, class C>
void map_skip(IO& io, C& c) {
  if constexpr (IO::reading)  // null, false, 1 and "true" alike
    if (const nlohmann::json* x = io.raw("skipped"); x && *x != true)
      io.fail("skipped", *x, "allowed: true, or no key (a measured case)");
  if (io.has("skipped", c.skipped)) io.flag("skipped", c.skipped);
  if (io.has("skip_message", c.skipped)) io.text("skip_message", c.skip_message, kText);
  if constexpr (IO::reading)
    if (c.skipped) {
      io.required({"skip_message"});
      if (c.skip_message.empty()) io.fail("skip_message", c.skip_message, "a skipped case says why it was skipped");
    }
}

template <class IO, class C>
void map_case(IO& io, C& c) {
  io.text("name", c.name, kText);
  maybe_word(io, "segment", c.segment, parse_seg_reg, seg_reg_words());
  io.nullable_text("selector", c.selector, kSelector);
  maybe_word(io, "selector_kind", c.selector_kind, parse_selector_kind, selector_kind_words());
  maybe_word(io, "variant", c.variant, parse_seg_variant, seg_variant_words());
  if (io.has("entry_selector", c.entry_selector)) io.text("entry_selector", *c.entry_selector, kSelector);
  maybe_word(io, "entry_selector_kind", c.entry_selector_kind, parse_selector_kind, selector_kind_words());
  if (io.has("base", c.base)) io.text("base", *c.base, kAddress);
  maybe_text(io, "restored_selector", c.restored_selector);
  map_skip(io, c);
  map_figures(io, c);  // all optional: the printers pass over a case without its figure (an older kex's)
  io.others(c.unknown);
}

/// The section: header, cases, then `interrupted` when a stop cut it short.
template <class IO, class S>
void map_section(IO& io, S& s) {
  io.object("header", [&](auto& h) { map_header(h, s.header); });
  io.list("cases", s.cases, 0, size_t(1) << 20, [](auto& e, auto& c) { map_case(e, c); });
  if (io.has("interrupted", s.interrupted)) io.flag("interrupted", s.interrupted);
  io.others(s.unknown);
}

}  // namespace kex::segment_fields
