// The closed sets of the segment-override table (`kex segments`, docs/seed-kernels.md §8):
// the register a case goes through, the loop it runs and the kind of selector it loads or
// holds on entry. One name table each (segment_kinds.cpp): the JIT loops
// (generators/segments.hpp), the section's field table (src/model/segments_fields.hpp),
// the table printers and the figures use these values, and their words are the ones
// configs/schema/segments.schema.json lists.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace kex {

/// The segment register a case goes through: none (no prefix, the `<none>` loop), fs or gs.
enum class SegReg { none, fs, gs };
/// The loop a case runs: the 2006 loop without segment work (baseline), the 2006 loop,
/// its mixed variant, and the modern costs (load latency, load throughput, null loads).
enum class SegVariant { baseline, loop2006, mixed, latency, throughput, null_load };
/// The kind of selector a case loads, or its register holds on entry to the loop: the
/// data selector, kex's LDT entry, kex's set_thread_area GDT entry, the GDT's CPU/node,
/// 64-bit and 32-bit code selectors, null; none for a plain load (no selector).
enum class SelectorKind { data, ldt, gdt_tls, gdt_cpunode, gdt_code64, gdt_code32, null, none };

/// Every value in table order (enum_words and enum_word_list give their words).
inline constexpr std::array kSegRegs{SegReg::none, SegReg::fs, SegReg::gs};
inline constexpr std::array kSegVariants{SegVariant::baseline, SegVariant::loop2006,   SegVariant::mixed,
                                         SegVariant::latency,  SegVariant::throughput, SegVariant::null_load};
inline constexpr std::array kSelectorKinds{SelectorKind::data,        SelectorKind::ldt,        SelectorKind::gdt_tls,
                                           SelectorKind::gdt_cpunode, SelectorKind::gdt_code64, SelectorKind::gdt_code32,
                                           SelectorKind::null,        SelectorKind::none};

/// "none", "fs", "gs".
std::string_view to_string(SegReg);
/// "baseline", "2006", "mixed", "latency", "throughput", "null-load".
std::string_view to_string(SegVariant);
/// "data", "ldt", "gdt-tls", "gdt-cpunode", "gdt-code64", "gdt-code32", "null", "none".
std::string_view to_string(SelectorKind);
/// The value whose word is `s`; nullopt for any other text.
std::optional<SegReg> parse_seg_reg(std::string_view s);
std::optional<SegVariant> parse_seg_variant(std::string_view s);
std::optional<SelectorKind> parse_selector_kind(std::string_view s);

/// "none, fs, gs" and the like: the allowed words of each set, for a one-line error.
const std::string& seg_reg_words();
const std::string& seg_variant_words();
const std::string& selector_kind_words();

/// The word of `v`, or "" when there is none (a results file that left the field out).
template <class E>
std::string word_or_empty(const std::optional<E>& v) {
  return v ? std::string(to_string(*v)) : std::string();
}

}  // namespace kex
