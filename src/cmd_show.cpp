// `kex show NAME`: the generated code of a spec, as hex and disassembly.
#include <cstdio>

#include "cli.hpp"
#include "disasm.hpp"
#include "emit.hpp"
#include "jit.hpp"

namespace kex {

Action add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Show the generated code of a kernel: hex bytes and disassembly");
  auto name = std::make_shared<std::string>();
  cmd->add_option("NAME", *name, "Kernel name, e.g. copy/sse/unroll:128/scratch:4/pf:nta@256/nt/fwd")->required();
  return [name]() {
    KernelSpec s;
    try {
      s = parse_spec_name(*name);
    } catch (const std::invalid_argument& e) {
      throw UserError(std::string("show: ") + e.what());
    }
    if (auto why = validate(s); !why.empty()) throw UserError("show: '" + *name + "': " + why);
    CodeArena arena;
    size_t i = arena.add([&](Xbyak::CodeGenerator& g) { emit_kernel(g, s); });
    arena.finalize();
    CodeRef r = arena.ref(i);
    std::printf("# %s\n# %zu bytes, fnv1a %016llx%s\n", spec_name(s).c_str(), r.size,
                static_cast<unsigned long long>(r.hash),
                cpu_unsupported_reason(s).empty() ? "" : ("  (not runnable here: " + cpu_unsupported_reason(s) + ")").c_str());
    std::fputs(format_listing(disassemble(r.code, r.size)).c_str(), stdout);
    return 0;
  };
}

}  // namespace kex
