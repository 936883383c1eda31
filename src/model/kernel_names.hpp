// Names of kernels as results files carry them, and the grammar a name read from a
// file must follow: spec names, baseline names and preset ids. Results files come
// from other people, and their names reach plots, tables and file names.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/plan.hpp"

namespace kex {

/// The baseline kernels, by their names in results and configs: libc "memcpy",
/// "memset", and "rep_movsb", "rep_stosb".
const std::vector<std::string>& baseline_names();

/// A baseline name split: the baseline ("memset") and the fill byte a clear baseline
/// writes ("memset/fill:0xaa" and "rep_stosb/fill:0xaa" name the clears of 0xaa, with
/// the byte in two lower-case hex digits, not 00); nullopt for any other name.
struct BaselineName {
  std::string base;
  uint8_t fill = 0;
};
std::optional<BaselineName> parse_baseline_name(std::string_view name);

/// The name of a baseline with a fill byte: `base`, or `base`/fill:0xNN when `fill` is not 0.
std::string baseline_name(const std::string& base, uint8_t fill);

/// Whether `s` is the NAME of a loaded implementation (lib/NAME, asm/NAME; `--load
/// NAME=...`): 1 to 64 letters, digits, _ and -, not starting with -.
bool is_load_label(std::string_view s);

/// An implementation's name split: "glibc/__memset_avx2_unaligned_erms/fill:0xaa" is the
/// source glibc, the symbol (a C identifier of at most 128 bytes) and the fill byte a
/// memset variant writes (as in baseline names: two lower-case hex digits, not 00).
/// "lib/new" and "asm/musl-memcpy" are loaded code: `symbol` holds the user's NAME
/// (is_load_label), not the symbol loaded.
struct ImplName {
  Source source = Source::glibc;
  std::string symbol;  ///< glibc: the variant's symbol; lib, asm: the user's NAME
  uint8_t fill = 0;
  bool operator==(const ImplName&) const = default;
};
std::optional<ImplName> parse_impl_name(std::string_view name);

/// The kernel name of an implementation: SOURCE/SYMBOL, then /fill:0xNN when fill is not 0.
std::string impl_name(const ImplName& n);

/// A name that races every implementation of one function from one source.
struct ImplSet {
  std::string name;      ///< "glibc-copy"
  Source source;
  Function function;
};
/// The sets: glibc-copy (memcpy's variants), glibc-move (memmove's, run as copies; also
/// where src and dst overlap, where memcpy's are left out: overlap_refusal, plan.hpp) and
/// glibc-clear (memset's).
const std::vector<ImplSet>& impl_sets();
/// The set called `name`, or null.
const ImplSet* find_impl_set(std::string_view name);

/// Whether `id` has the form of a preset id: a family of lower-case letters and
/// digits, then one or more '/'-separated tokens of letters, digits and _ . : + -
/// ("fastc/faster_copy", "asami/unroll:96/scratch:2/every:32"), at most 128 bytes.
bool is_preset_id(std::string_view id);

/// Whether `kernel` is a name of a kernel of `kind` (a spec name that parses, a
/// baseline name, a preset id): nullopt when it is, else the reason, naming what is
/// allowed.
std::optional<std::string> kernel_name_error(KernelKind kind, std::string_view kernel);

/// The symbol kex writes a kernel under in assembler and C sources: "kex_" + the name
/// lower-cased, every run of characters outside [a-z0-9] as one '_', no trailing '_'
/// ("copy/sse/unroll:128" -> "kex_copy_sse_unroll_128"). Different names can give the
/// same symbol; writers check.
std::string kernel_symbol(std::string_view name);

/// Whether `kernel` is a kernel name of any kind (a journal's repetition names its
/// point, not its kind).
bool is_kernel_name(std::string_view kernel);

}  // namespace kex
