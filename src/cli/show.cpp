// `kex show NAME`: the generated code of a spec or preset, as hex and disassembly.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "generators/disasm.hpp"
#include "generators/disasm_ext.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "generators/presets/presets.hpp"

namespace kex {

namespace {

int show_preset(const Preset& p, const PresetOptions& opts) {
  std::vector<std::string> subs;
  CodeArena arena;
  size_t i = arena.add([&](Xbyak::CodeGenerator& g) { p.emit(g, opts, subs); });
  arena.finalize();
  CodeRef r = arena.ref(i);
  std::printf("# preset %s\n", p.id.c_str());
  std::printf("%s\n", preset_json(p, subs).dump(2).c_str());
  std::string why = preset_unsupported_reason(p);
  std::printf("# %zu bytes, fnv1a %016llx%s\n", r.size, static_cast<unsigned long long>(r.hash),
              why.empty() ? "" : ("  (not runnable here: " + why + ")").c_str());
  write_stdout(format_listing(disassemble_all(r.code, r.size)));
  return 0;
}

}  // namespace

Action add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Show the generated code of a kernel: hex bytes and disassembly");
  auto name = std::make_shared<std::string>();
  cmd->add_option("NAME", *name,
                  "Kernel name, e.g. copy/sse/unroll:128/scratch:4/pf:nta@256/nt/fwd, or a preset (id, printed name "
                  "or alias, e.g. fastc/faster_copy, 'xmm_clear', asami/unroll:64/scratch:3/every:32)")
      ->required();
  auto no_fsave = std::make_shared<bool>(false);
  cmd->add_flag("--no-fsave", *no_fsave, "Presets: drop the fsave/frstor pair the originals timed");
  return [name, no_fsave]() {
    KernelSpec s;
    try {
      s = parse_spec_name(*name);
    } catch (const std::invalid_argument& e) {
      if (const Preset* p = find_preset(*name)) return show_preset(*p, PresetOptions{!*no_fsave});
      throw InputError(std::string("show: ") + e.what() + " (and no preset is called '" + *name + "'; see kex list presets)");
    }
    if (auto why = validate(s); !why.empty()) throw InputError("show: '" + *name + "': " + why);
    CodeArena arena;
    size_t i = arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); });
    arena.finalize();
    CodeRef r = arena.ref(i);
    std::printf("# %s\n# %zu bytes, fnv1a %016llx%s\n", spec_name(s).c_str(), r.size,
                static_cast<unsigned long long>(r.hash),
                cpu_unsupported_reason(s).empty() ? "" : ("  (not runnable here: " + cpu_unsupported_reason(s) + ")").c_str());
    write_stdout(format_listing(disassemble(r.code, r.size)));
    return 0;
  };
}

}  // namespace kex
