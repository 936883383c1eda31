// `kex show NAME`: the generated code of a spec or preset, of a glibc variant
// (glibc/SYMBOL) or of loaded code (lib/NAME, asm/NAME with its --load; asm:PATH:SYMBOL), as a listing (metadata, hex
// and disassembly), a GNU as source that reassembles to the same bytes, hex, or the raw
// bytes.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "generators/disasm.hpp"
#include "generators/disasm_ext.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "generators/presets/presets.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/result_json.hpp"
#include "src/model/load_spec.hpp"
#include "src/run/code_extent.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/object_code.hpp"
#include "src/run/shared_objects.hpp"

namespace kex {

namespace {

using Format = CodeFormat;

struct ShowOptions {
  std::string name;
  std::vector<std::string> loads;  ///< --load NAME=PATH:SYMBOL[:copy|move|clear], as kex run takes it
  bool no_fsave = false;
  Syntax syntax = Syntax::intel;
  Format format = Format::listing;
};

/// Prints one kernel's code in the chosen format. `name` (preset id or spec name) gives
/// the .s symbol; `header` is the listing's metadata block, or the .s file's leading
/// comments (one line each); hex and bin print only the code. `loop`, the main loop's
/// bytes, is marked for llvm-mca in the .s form.
int print_code(const ShowOptions& o, const CodeRef& r, const std::string& name, const std::vector<std::string>& header,
               const std::optional<LoopRange>& loop = std::nullopt) {
  switch (o.format) {
    case Format::bin:
      write_stdout(std::string_view(reinterpret_cast<const char*>(r.code), r.size));
      return 0;
    case Format::hex:
      write_stdout(format_hex(r.code, r.size));
      return 0;
    case Format::s: {
      const std::string symbol = kernel_symbol(name);
      std::optional<McaRegion> region;
      if (loop) region = McaRegion{loop->begin, loop->end, symbol};
      write_stdout(format_asm(disassemble_all(r.code, r.size, o.syntax), r.code, r.size, o.syntax, symbol, header, region));
      return 0;
    }
    case Format::listing:
      for (const auto& line : header) std::printf("%s\n", line.c_str());
      write_stdout(format_listing(disassemble_all(r.code, r.size, o.syntax)));
      return 0;
  }
  return 0;
}

std::string size_line(const CodeRef& r, const std::string& why) {
  char buf[96];
  snprintf(buf, sizeof buf, "%zu bytes, fnv1a %016llx", r.size, static_cast<unsigned long long>(r.hash));
  return std::string(buf) + (why.empty() ? "" : "  (not runnable here: " + why + ")");
}

int show_preset(const ShowOptions& o, const Preset& p) {
  std::vector<std::string> subs;
  CodeArena arena;
  size_t i = arena.add([&](Xbyak::CodeGenerator& g) { p.emit(g, PresetOptions{!o.no_fsave}, subs); });
  arena.finalize();
  CodeRef r = arena.ref(i);
  std::vector<std::string> header;
  if (o.format == Format::listing) {
    header.push_back("# preset " + p.id);
    header.push_back(to_json(preset_facts(p, subs, !o.no_fsave)).dump(2));
    header.push_back("# " + size_line(r, preset_unsupported_reason(p)));
  } else {
    header.push_back("preset " + p.id + " ('" + p.printed + "', " + std::string(to_string(p.op)) + ", region " +
                     std::to_string(p.region) + " B), confidence " + std::string(to_string(p.confidence)));
    header.push_back("origin: " + p.origin);
    for (const auto& s : subs) header.push_back("substitution here: " + s);
    header.push_back(size_line(r, preset_unsupported_reason(p)));
  }
  return print_code(o, r, p.id, header);
}

int show_spec(const ShowOptions& o, const KernelSpec& s) {
  CodeArena arena;
  std::optional<LoopRange> loop;
  size_t i = arena.add([&](Xbyak::CodeGenerator& g) { loop = emit_kernel(g, s); });
  arena.finalize();
  CodeRef r = arena.ref(i);
  const std::string line = size_line(r, cpu_unsupported_reason(s));
  if (o.format == Format::listing) return print_code(o, r, spec_name(s), {"# " + spec_name(s), "# " + line});
  std::vector<std::string> header = {spec_name(s), line};
  if (loop && o.format == Format::s) header.push_back("the main loop is marked for llvm-mca (LLVM-MCA-BEGIN/END)");
  return print_code(o, r, spec_name(s), header, loop);
}

constexpr size_t kGlibcShowCap = 16384;  // bytes of a glibc variant read at most

/// glibc/SYMBOL: the variant's code in this process, from its address to its first ret
/// no earlier branch jumps past (its symbol has no size).
int show_glibc(const ShowOptions& o, const ImplName& n, const std::string& first_line = "") {
  const GlibcImpls& impls = glibc_impls();
  if (!impls.missing.empty()) throw InputError("show: '" + o.name + "': " + impls.missing);
  const GlibcImpl* impl = impls.find(n.symbol);
  if (!impl) throw InputError("show: '" + o.name + "': glibc lists no variant '" + n.symbol + "' (see kex list)");
  const FunctionCode f = function_code(impl->fn, kGlibcShowCap);
  const CodeRef r{f.bytes.data(), f.bytes.size(), fnv1a(f.bytes.data(), f.bytes.size())};
  const std::string usable = impl->facts.usable ? "usable here" : "not usable here: " + impl->facts.reason;
  std::vector<std::string> header = {impl_name(n) + " (glibc's " + std::string(to_string(impl->facts.function)) + ", " + usable + ")",
                                     "disassembled " + f.how + " (glibc's symbols carry no size here)"};
  if (!first_line.empty()) header.insert(header.begin(), first_line);
  if (o.format == Format::listing)
    for (auto& h : header) h = "# " + h;
  return print_code(o, r, impl_name(n), header);
}

/// The baseline memcpy or memset: the variant libc's own definition resolved to here, which
/// the timed loop calls at its address as it calls glibc/SYMBOL (src/run/outside_plan.hpp).
int show_libc(const ShowOptions& o, const BaselineName& b) {
  const Function f = *parse_function(b.base);
  const std::string pick = ifunc_pick(f);
  if (pick == "unknown")
    throw InputError("show: '" + o.name + "': this C library's " + b.base +
                     " is not one of glibc's listed variants; kex calls it at its address, but has no code of it to show");
  return show_glibc(o, {Source::glibc, pick, b.fill},
                    b.base + ": libc's own " + b.base + " as ifunc resolved it here, glibc/" + pick +
                        "; the timed loop calls it at this address, as it calls glibc/" + pick);
}

/// Loaded object code: the blob the object-code loader lays out (src/run/object_code.hpp)
/// from `source`'s `symbol`, shown as `shown` (asm/NAME, or asm_SYMBOL for asm:PATH:SYMBOL),
/// with its pieces, the references it resolved and the file's SHA-256.
int show_object(const ShowOptions& o, const std::string& source, const std::string& symbol, const std::string& shown) {
  const ObjectCode code = load_object_symbol(source, symbol);
  const CodeRef r{code.bytes.data(), code.bytes.size(), fnv1a(code.bytes.data(), code.bytes.size())};
  std::vector<std::string> header = {symbol + " from " + source + ", sha256 " + code.sha256 + ", entry at " +
                                     std::to_string(code.entry)};
  for (const auto& p : code.pieces)
    header.push_back("piece " + p.object + " " + p.section + " at " + std::to_string(p.offset) + ", " +
                     std::to_string(p.size) + " bytes");
  for (const auto& x : code.relocations)
    header.push_back("resolved " + x.type + " against " + x.symbol + " in " + x.object + " at " +
                     std::to_string(x.offset) + ": " + std::to_string(x.value));
  for (auto& h : header) h = terminal_text(h);
  if (o.format == Format::listing)
    for (auto& h : header) h = "# " + h;
  return print_code(o, r, shown, header);
}

/// asm:PATH:SYMBOL: loaded object code named by its file and symbol.
int show_object_path(const ShowOptions& o, const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon <= 4 || colon + 1 == spec.size())
    throw InputError("show: '" + o.name +
                     "': asm:PATH:SYMBOL is needed (e.g. asm:/usr/lib/x86_64-linux-musl/libc.a(memmove.lo):memmove)");
  const std::string symbol = spec.substr(colon + 1);
  return show_object(o, spec.substr(4, colon - 4), symbol, "asm_" + symbol);
}

/// lib/NAME: the symbol's code in the shared object, read in a child that opens it (its
/// constructors never run in kex's process), up to its first ret no branch jumps past.
int show_shared(const ShowOptions& o, const LoadSpec& l) {
  const std::string sha = file_sha256(l.path, kMaxLoadedFile, "shared object");  // checked before dlopen sees it
  SharedObjects objects;  // show's own: nothing of it runs in kex's process
  const FunctionCode f = objects.code(l.path, l.symbol, kGlibcShowCap);
  const CodeRef r{f.bytes.data(), f.bytes.size(), fnv1a(f.bytes.data(), f.bytes.size())};
  std::vector<std::string> header = {
      terminal_text(load_kernel(l) + " (" + l.symbol + " from " + l.path + ", " + std::string(to_string(l.function)) +
                    "'s signature, sha256 " + sha + ")"),
      "disassembled " + f.how};
  if (o.format == Format::listing)
    for (auto& h : header) h = "# " + h;
  return print_code(o, r, load_kernel(l), header);
}

/// lib/NAME or asm/NAME: the code its --load names (the names a run uses).
int show_loaded(const ShowOptions& o, const ImplName& n) {
  std::vector<LoadSpec> loads;
  for (const std::string& text : o.loads) loads.push_back(parse_load_option(text, "--load"));
  check_load_names(loads, "--load");
  const auto it = std::find_if(loads.begin(), loads.end(), [&](const LoadSpec& l) { return l.name == n.symbol; });
  const std::string kind(source_row(n.source).what);
  if (it == loads.end())
    throw InputError("show: '" + o.name + "' names " + kind + ": give its --load " + n.symbol +
                     "=PATH:SYMBOL[:copy|move|clear], as the run that raced it did");
  if (load_kernel(*it) != impl_name({n.source, n.symbol, 0}))
    throw InputError("show: '" + o.name + "': --load " + n.symbol + " loads " + load_kernel(*it) +
                     " (the path's form says which: x.so for lib/, x.s, x.o or lib.a(member) for asm/)");
  if (source_row(n.source).reach == Reach::bytes) return show_object(o, it->path, it->symbol, load_kernel(*it));
  return show_shared(o, *it);
}

}  // namespace

Action add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Show the generated code of a kernel: hex bytes and disassembly");
  auto o = std::make_shared<ShowOptions>();
  cmd->add_option("NAME", o->name,
                  "Kernel name, e.g. copy/sse/unroll:128/scratch:4/pf:nta@256/nt/fwd, or a preset (id, printed name "
                  "or alias, e.g. fastc/faster_copy, 'xmm_clear', asami/unroll:64/scratch:3/every:32), a glibc "
                  "variant (glibc/__memmove_avx_unaligned_erms) or loaded code (lib/NAME or asm/NAME with its --load, "
                  "or asm:PATH:SYMBOL, PATH a .s, .S, .o or lib.a(member))")
      ->required();
  cmd->add_option("--load", o->loads,
                  "NAME=PATH:SYMBOL[:copy|move|clear], as kex run takes it: what lib/NAME or asm/NAME names "
                  "(repeatable; a shared object is opened in a child process, never in kex's own)");
  cmd->add_flag("--no-fsave", o->no_fsave, "Presets: drop the fsave/frstor pair the originals timed");
  auto syntax = std::make_shared<std::string>("intel");
  cmd->add_option("--syntax", *syntax, "Disassembly syntax: intel (default) or att (Capstone's AT&T)")
      ->check(one_of(enum_words(kSyntaxes)));
  auto format = std::make_shared<std::string>("listing");
  cmd->add_option("--format", *format,
                  "listing (default: metadata, offsets, bytes, disassembly); s (a GNU as source with labels that "
                  "as/llvm-mc/llvm-mca take and that reassembles to the same bytes); hex (32 bytes a line, xxd -p "
                  "layout); bin (the raw code bytes)")
      ->check(one_of(enum_words(kCodeFormats)));
  return [o, syntax, format]() {
    o->syntax = enum_from_word(kSyntaxes, *syntax).value_or(Syntax::intel);
    o->format = enum_from_word(kCodeFormats, *format).value_or(Format::listing);
    if (o->name.rfind("asm:", 0) == 0) return show_object_path(*o, o->name);
    if (auto impl = parse_impl_name(o->name); impl && !source_row(impl->source).loaded) return show_glibc(*o, *impl);
    if (auto b = parse_baseline_name(o->name); b && parse_function(b->base)) return show_libc(*o, *b);
    if (auto impl = parse_impl_name(o->name)) return show_loaded(*o, *impl);
    if (!o->loads.empty()) throw InputError("--load", "given, but '" + o->name + "' is not lib/NAME or asm/NAME");
    KernelSpec s;
    try {
      s = parse_spec_name(o->name);
    } catch (const std::invalid_argument& e) {
      const Preset* p = nullptr;
      try {
        p = find_preset(o->name);
      } catch (const InputError& amb) {
        throw InputError(std::string("show: ") + amb.what());
      }
      if (p) return show_preset(*o, *p);
      if (const UnavailablePreset* u = find_unavailable_preset(o->name))
        throw InputError("show: '" + o->name + "'" + (o->name == u->id ? "" : " (" + u->id + ")") +
                         " is not available: " + u->reason);
      throw InputError(std::string("show: ") + e.what() + " (and no preset is called '" + o->name +
                       "'; see kex list presets)");
    }
    if (auto why = validate(s); !why.empty()) throw InputError("show: '" + o->name + "': " + why);
    return show_spec(*o, s);
  };
}

}  // namespace kex
