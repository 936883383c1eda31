// `kex list`: register classes, parameters, and presets (with the named kernels that
// are not available, and why).
#include <cstdio>

#include "src/cli/cli.hpp"
#include "generators/presets/presets.hpp"
#include "src/model/spec.hpp"

namespace kex {

Action add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List register classes, parameters (and presets)");
  auto what = std::make_shared<std::string>("all");
  cmd->add_option("WHAT", *what, "classes | params | presets | all")
      ->check(CLI::IsMember({"classes", "params", "presets", "all"}));
  return [what]() {
    if (*what == "classes" || *what == "all") {
      std::printf("register classes:\n");
      for (const auto& c : reg_classes())
        std::printf("  %-7s width %2u B, scratch up to %2u, non-temporal store: %-3s needs: %s%s%s; %s\n", c.name,
                    c.width, c.max_scratch, c.has_nt ? "yes" : "no",
                    c.needs.empty() ? "-" : feature_list(c.needs).c_str(), c.nt_needs.empty() ? "" : ", NT: ",
                    feature_list(c.nt_needs).c_str(), c.instructions);
    }
    if (*what == "params" || *what == "all") {
      std::printf(
          "parameters (name tokens):\n"
          "  op            copy | clear (clear takes fill:0xNN)\n"
          "  regs          gpr | mmx | x87 | sse | avx | avx512 | string\n"
          "  unroll:N      bytes per iteration, a multiple of the width (string: element size 1|2|4|8)\n"
          "  scratch:N     registers loaded before they are stored\n"
          "  pf:KIND@D     prefetch none|nta|t0|t1|t2|w|load, D bytes ahead, %d..%d (negative for\n"
          "                backward; load: D >= 0 forward, D <= 0 backward)\n"
          "  every:N       one prefetch per N bytes of an iteration, a multiple of 8 in %u..%u (default 64)\n"
          "  t | nt        temporal or non-temporal stores (sfence after NT)\n"
          "  fwd | bwd     forward or backward traversal\n"
          "  aligned       aligned instructions (src and dst must be width-aligned)\n"
          "  block:N@bwd   touch each N-byte block (one dword per line) before copying it\n",
          -kMaxPfDistance, kMaxPfDistance, kMinPfEvery, kMaxPfEvery);
    }
    if (*what == "presets" || *what == "all") {
      std::printf("presets (kex show ID for code and metadata; sets: ");
      for (const auto& n : preset_set_names()) std::printf("%s%s", n.c_str(), n == preset_set_names().back() ? ")\n" : ", ");
      for (const auto& p : presets()) {
        std::string feats;
        for (const auto& f : p.features) feats += (feats.empty() ? "" : ",") + f;
        std::string aliases;
        for (const auto& a : p.aliases) aliases += (aliases.empty() ? "" : ", ") + ("'" + a + "'");
        std::string subs;
        for (const auto& s : preset_substitutions(p)) subs += (subs.empty() ? "" : "; ") + s;
        std::string why = preset_unsupported_reason(p);
        std::printf("  %-28s %-5s '%s'%s%s\n", p.id.c_str(), std::string(to_string(p.op)).c_str(), p.printed.c_str(),
                    aliases.empty() ? "" : " aka ", aliases.c_str());
        std::printf("      family %s, confidence %s%s, region %u B, alignment %u, needs %s\n", p.family.c_str(),
                    p.confidence.c_str(), p.confidence == "low" ? " (reconstruction)" : "", p.region, p.alignment,
                    feats.empty() ? "-" : feats.c_str());
        std::printf("      origin: %s\n", p.origin.c_str());
        if (!subs.empty()) std::printf("      substitutions here: %s\n", subs.c_str());
        if (!why.empty()) std::printf("      not runnable here: %s\n", why.c_str());
      }
      std::printf("  asami/unroll:U/scratch:N/every:P  copy  parametric `unroll` output (U multiple of 4 in 8..512, "
                  "N 2|3, P multiple of 4 in 4..U)\n");
      for (const auto& u : unavailable_presets())
        std::printf("  %-28s not available: '%s' (family %s): %s\n", u.id.c_str(), u.printed.c_str(),
                    u.family.c_str(), u.reason.c_str());
    }
    return 0;
  };
}

}  // namespace kex
