// `kex list`: register classes and parameters.
#include <cstdio>

#include "cli.hpp"
#include "spec.hpp"

namespace kex {

Action add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List register classes, parameters (and presets)");
  auto what = std::make_shared<std::string>("all");
  cmd->add_option("WHAT", *what, "classes | params | all")->check(CLI::IsMember({"classes", "params", "all"}));
  return [what]() {
    if (*what == "classes" || *what == "all") {
      std::printf("register classes:\n");
      for (const auto& c : reg_classes())
        std::printf("  %-7s width %2u B, scratch up to %2u, non-temporal store: %-3s needs: %s\n", c.name, c.width,
                    c.max_scratch, c.has_nt ? "yes" : "no", c.features);
    }
    if (*what == "params" || *what == "all") {
      std::printf(
          "parameters (name tokens):\n"
          "  op            copy | clear (clear takes fill:0xNN)\n"
          "  regs          gpr | mmx | x87 | sse | avx | avx512 | string\n"
          "  unroll:N      bytes per iteration, a multiple of the width (string: element size 1|2|4|8)\n"
          "  scratch:N     registers loaded before they are stored\n"
          "  pf:KIND@D     prefetch none|nta|t0|t1|t2|w|load, D bytes ahead (negative for backward)\n"
          "  every:N       one prefetch per N bytes of an iteration (default 64)\n"
          "  t | nt        temporal or non-temporal stores (sfence after NT)\n"
          "  fwd | bwd     forward or backward traversal\n"
          "  aligned       aligned instructions (src and dst must be width-aligned)\n"
          "  block:N@bwd   touch each N-byte block (one dword per line) before copying it\n");
    }
    return 0;
  };
}

}  // namespace kex
