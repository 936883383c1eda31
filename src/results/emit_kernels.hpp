// Kernels as source for another program (`kex emit`): each kernel's code bytes with
// the facts its typed wrapper and its provenance comment need. The writers are
// emit_gas (GNU as) and emit_c (C); this file resolves names, emits the code and
// gathers the facts.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/cpu_features.hpp"

#include "generators/disasm.hpp"
#include "generators/presets/presets.hpp"
#include "src/model/context.hpp"
#include "src/model/dispatch.hpp"
#include "src/model/load_spec.hpp"
#include "src/model/plan.hpp"

namespace kex {

/// What `kex emit --format` writes: a GNU as source (emit_gas) or C arrays (emit_c).
enum class SourceFormat { gas, c };
inline std::string_view to_string(SourceFormat f) { return f == SourceFormat::c ? "c" : "gas"; }
inline constexpr std::array kSourceFormats{SourceFormat::gas, SourceFormat::c};

/// One kernel to write. Its wrapper `symbol` has the C library's signature
/// (void *symbol(void *dst, const void *src, size_t n) for copies, void *symbol(void
/// *dst, int c, size_t n) for clears) and returns dst; it calls the code when n, dst,
/// src and c fit what the code promises (wrapper_fits) and libc's memcpy/memset otherwise.
struct SourceKernel {
  std::string name;        ///< the kernel's key: spec name, preset id or baseline name
  std::string symbol;      ///< kernel_symbol(name)
  Op op = Op::copy;
  uint8_t fill = 0;        ///< clears: the byte the code writes (another c goes to memset)
  uint32_t alignment = 1;  ///< dst and src must be multiples of this (else libc)
  uint64_t region = 1;     ///< n must be a multiple of this (page presets: 4096; else libc)
  bool libc = false;       ///< the libc baseline "memcpy"/"memset": no code and no wrapper; a dispatch calls libc
  bool loaded = false;     ///< object code kex loaded (asm/NAME): written as its bytes, never reassembled
  bool keeps_rax = false;  ///< the code leaves rax alone (keeps_rax): a wrapper sets rax = dst and jumps to it
  std::vector<uint8_t> code;            ///< the kernel with kex's ABI (rdi dst, rsi src, rdx n; no return value)
  FeatureSet needs;                     ///< CPU features its code needs (a spec's; presets and libc: none said)
  std::vector<std::string> provenance;  ///< header comment lines (raw: writers pass them through comment_text)
};

/// The dispatch function to write: `symbol` with the C library's signature of `op`,
/// sending each n to the wrapper of the table's kernel for it.
struct SourceDispatch {
  DispatchTable table;
  Op op = Op::copy;
  std::string symbol;  ///< "kex_memcpy"
};

/// The plan of one kernel name for `where` (an option or argument): a spec name, a
/// preset (id, printed name or alias), a baseline (rep_movsb, rep_stosb; with
/// `allow_libc`, memcpy and memset: a dispatch row that calls libc) or asm/NAME when
/// `loads` (the command line's --load, never a file's) loads NAME from object code.
/// InputError naming `where` and the name for anything else (lib/ and glibc/ code, which
/// kex calls through an address it has only at run time; a lib/ or asm/ name without its
/// --load), a spec that does not validate, a preset set or an emission failure.
KernelPlan source_plan(const std::string& name, const PresetOptions& opts, const std::string& where,
                       bool allow_libc = false, const std::vector<LoadSpec>& loads = {});

/// Emits the plan's code and gathers its facts and provenance: the kernel, the spec
/// or preset (origin, substitutions), the CPU features it needs, whether this CPU can
/// run it, and what the wrapper sends to libc.
SourceKernel source_kernel(const KernelPlan& plan);

/// Appends to k.provenance the figures `runs` (read from `file`) hold for k.name: one
/// line per measured point (size, GB/s, condition), at most `max_lines`, and whether
/// the code measured was this code (fnv1a). "no measured entry" when there is none.
void add_measured(SourceKernel& k, const std::vector<RunDoc>& runs, const std::string& file, size_t max_lines = 40);

/// The comment lines at the top of a file: kex's version and git commit, this CPU
/// (brand, family/model/stepping), the command's job.
std::vector<std::string> source_file_header();

/// Whether the wrapper can call the code for every n, dst, src (and, for clears, only
/// needs c == fill): false when a region or an alignment is required.
inline bool any_size_any_alignment(const SourceKernel& k) { return k.region <= 1 && k.alignment <= 1; }

/// What the wrapper sends to libc, as one comment line ("" when only c != fill for a
/// clear of any size): "n not a multiple of 4096 or dst, src not 16-byte aligned -> memcpy".
std::string fallback_text(const SourceKernel& k);

/// `text` safe inside a C block comment and after '#' on a GNU as line: printable
/// ASCII kept, every other byte as \xHH, and "*/", "/*" broken up as "*\/", "/\*".
std::string comment_text(std::string_view text);

/// One line of a kernel's code as the writers give it bytes: an instruction (its offset,
/// bytes and disassembly), a run of int3 padding as one line ("int3 x59: padding"), or up
/// to 16 bytes Capstone did not decode ("not decoded").
struct CodeLine {
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
  std::string text;
};
std::vector<CodeLine> code_lines(const SourceKernel& k, Syntax syntax);

/// std::logic_error when a row's kernel is not among `kernels` (by name).
void check_dispatch_kernels(const SourceDispatch& d, const std::vector<SourceKernel>& kernels);

/// InputError when two kernels, or a kernel and the dispatch symbol, would get the
/// same symbol (SYMBOL, SYMBOL_kernel, SYMBOL_nocheck, SYMBOL_code); `extra` are symbols the file also
/// defines. libc kernels define none.
void check_symbols(const std::vector<SourceKernel>& kernels, const std::vector<std::string>& extra);

}  // namespace kex
