// The segment table's name tables: one word per value, in enum order.
#include "src/model/segment_kinds.hpp"

#include "src/core/enum_words.hpp"

namespace kex {

namespace {

constexpr std::array<std::string_view, kSegRegs.size()> kSegRegWords = {"none", "fs", "gs"};
constexpr std::array<std::string_view, kSegVariants.size()> kSegVariantWords = {"baseline", "2006",       "mixed",
                                                                            "latency",  "throughput", "null-load"};
constexpr std::array<std::string_view, kSelectorKinds.size()> kSelectorKindWords = {
    "data", "ldt", "gdt-tls", "gdt-cpunode", "gdt-code64", "gdt-code32", "null", "none"};

/// Each table lists its enum's values in order (so a value's word is its index's).
template <class E, size_t N>
constexpr bool segment_words_in_order(const std::array<E, N>& all) {
  for (size_t i = 0; i < N; ++i)
    if (all[i] != E(i)) return false;
  return true;
}
static_assert(segment_words_in_order(kSegRegs) && size_t(SegReg::gs) + 1 == kSegRegs.size());
static_assert(segment_words_in_order(kSegVariants) && size_t(SegVariant::null_load) + 1 == kSegVariants.size());
static_assert(segment_words_in_order(kSelectorKinds) && size_t(SelectorKind::none) + 1 == kSelectorKinds.size());

}  // namespace

std::string_view to_string(SegReg v) { return kSegRegWords.at(size_t(v)); }
std::string_view to_string(SegVariant v) { return kSegVariantWords.at(size_t(v)); }
std::string_view to_string(SelectorKind v) { return kSelectorKindWords.at(size_t(v)); }

std::optional<SegReg> parse_seg_reg(std::string_view s) { return enum_from_word(kSegRegs, s); }
std::optional<SegVariant> parse_seg_variant(std::string_view s) { return enum_from_word(kSegVariants, s); }
std::optional<SelectorKind> parse_selector_kind(std::string_view s) { return enum_from_word(kSelectorKinds, s); }

const std::string& seg_reg_words() {
  static const std::string words = enum_word_list(kSegRegs);
  return words;
}
const std::string& seg_variant_words() {
  static const std::string words = enum_word_list(kSegVariants);
  return words;
}
const std::string& selector_kind_words() {
  static const std::string words = enum_word_list(kSelectorKinds);
  return words;
}

}  // namespace kex
