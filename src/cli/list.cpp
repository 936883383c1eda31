// `kex list`: register classes, parameters, presets (with the named kernels that
// are not available, and why) and glibc's own implementations.
#include <array>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "src/cli/cli.hpp"
#include "generators/presets/presets.hpp"
#include "src/model/distribution.hpp"
#include "src/core/output.hpp"
#include "src/core/units.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/spec.hpp"
#include "src/run/glibc_impls.hpp"

namespace kex {

namespace {

/// One line per register class: width, scratch registers, NT store, CPU features.
std::string list_classes_text() {
  std::string out = "register classes:\n";
  for (const auto& c : reg_classes())
    out += fmt::format("  {:<7} width {:>2} B, scratch up to {:>2}, non-temporal store: {:<3} needs: {}{}{}; {}\n",
                       c.name, c.width, c.max_scratch, c.has_nt ? "yes" : "no",
                       c.needs.empty() ? "-" : feature_list(c.needs), c.nt_needs.empty() ? "" : ", NT: ",
                       feature_list(c.nt_needs), c.instructions);
  return out;
}

/// The name tokens, with the ranges the parsers and validate() accept.
std::string list_params_text() {
  return fmt::format(
      "parameters (name tokens):\n"
      "  op            copy | clear (clear takes fill:0xNN)\n"
      "  regs          {}\n"
      "  unroll:N      bytes per iteration, a multiple of the width (string: element size 1|2|4|8)\n"
      "  scratch:N     registers loaded before they are stored\n"
      "  pf:KIND@D     prefetch {}, D bytes ahead, {}..{} (negative for\n"
      "                backward; load: D >= 0 forward, D <= 0 backward)\n"
      "  every:N       one prefetch per N bytes of an iteration, a multiple of 8 in {}..{} (default 64);\n"
      "                N at or above the unroll: one prefetch per iteration\n"
      "  t | nt        temporal or non-temporal stores (sfence after NT)\n"
      "  fwd | bwd     forward or backward traversal\n"
      "  aligned       aligned instructions (src and dst must be width-aligned)\n"
      "  overlap       edges as one unaligned width move overlapping moved bytes (default: bytes,\n"
      "                one at a time; not for the string class)\n"
      "  small:overlap below one width, two overlapping moves of the largest power of two (1, 2..3,\n"
      "                4..7, 8..15, 16..31, 32..63 B; default small:bytes; not for reads or string)\n"
      "  small:mask    below one width, one AVX-512BW masked load and store (needs avx512bw, vl)\n"
      "  small:rep     below one width, rep movsb / rep stosb\n"
      "  small:table   below one width, overlap's moves reached by one jump on the size class\n"
      "  rep:N         calls of N bytes or more: rep movsb / rep stosb (N >= the width; not for reads)\n"
      "  block:N@bwd   touch each N-byte block (one dword per line) before copying it\n",
      reg_class_names(" | "), prefetch_names("|"), -kMaxPfDistance, kMaxPfDistance, kMinPfEvery, kMaxPfEvery);
}

/// The presets with their origin, what they need and what is substituted here, then
/// the named kernels that are not available.
std::string list_presets_text() {
  std::string out = "presets (kex show ID for code and metadata; sets: ";
  for (const auto& n : preset_set_names()) out += n + (n == preset_set_names().back() ? ")\n" : ", ");
  for (const auto& p : presets()) {
    std::string feats;
    for (const auto& f : p.features) feats += (feats.empty() ? "" : ",") + f;
    std::string aliases;
    for (const auto& a : p.aliases) aliases += (aliases.empty() ? "" : ", ") + ("'" + a + "'");
    std::string subs;
    for (const auto& s : preset_substitutions(p)) subs += (subs.empty() ? "" : "; ") + s;
    const std::string why = preset_unsupported_reason(p);
    out += fmt::format("  {:<28} {:<5} '{}'{}{}\n", p.id, to_string(p.op), p.printed, aliases.empty() ? "" : " aka ",
                       aliases);
    out += fmt::format("      family {}, confidence {}{}, region {} B, alignment {}, needs {}\n", p.family,
                       to_string(p.confidence), p.confidence == Confidence::low ? " (reconstruction)" : "", p.region, p.alignment,
                       feats.empty() ? "-" : feats);
    out += "      origin: " + p.origin + "\n";
    if (!subs.empty()) out += "      substitutions here: " + subs + "\n";
    if (!why.empty()) out += "      not runnable here: " + why + "\n";
  }
  out += "  asami/unroll:U/scratch:N/every:P  copy  parametric `unroll` output (U multiple of 4 in 8..512, "
         "N 2|3, P multiple of 4 in 4..U)\n";
  for (const auto& u : unavailable_presets())
    out += fmt::format("  {:<28} not available: '{}' (family {}): {}\n", u.id, u.printed, u.family, u.reason);
  return out;
}

/// glibc's variants per function: usable or why not, and which one ifunc picked here.
std::string list_glibc_text() {
  const GlibcImpls& g = glibc_impls();
  std::string out = "glibc's implementations (its __libc_ifunc_impl_list; run them as glibc/SYMBOL or a set: ";
  for (const ImplSet& s : impl_sets()) out += s.name + (s.name == impl_sets().back().name ? ")\n" : ", ");
  if (!g.missing.empty()) return out + "  none: " + g.missing + "\n";
  for (const Function f : kFunctions) {
    const std::string pick = ifunc_pick(f);
    for (const GlibcImpl* i : g.of(f))
      out += fmt::format("  {:<8} {:<10} glibc/{}{}\n", to_string(f), i->facts.usable ? "usable" : "not usable", i->facts.symbol,
                         i->facts.symbol == pick ? "  (ifunc's pick)" : i->facts.usable ? "" : "  (" + i->facts.reason + ")");
  }
  return out;
}

/// The shipped distributions a stream draws from, with what each says of its calls.
std::string list_streams_text() {
  std::string out = "streams (kex run --stream NAME, or a file's path; configs/streams/README.md says where they come from):\n";
  out += fmt::format("  {:<14} {:>8} {:>9} {:>7} {:>7} {:>9} {:>9}  {}\n", "name", "sizes", "mean", "p50", "p90", "p99", "max",
                     "of");
  for (const std::string& name : shipped_distributions()) {
    const Distribution d = *shipped_distribution(name);
    const DistributionFacts f = distribution_facts(d);
    out += fmt::format("  {:<14} {:>8} {:>7.0f} B {:>7} {:>7} {:>9} {:>9}  {}{}\n", name, f.distinct, f.mean, format_bytes(f.p50),
                       format_bytes(f.p90), format_bytes(f.p99), format_bytes(f.max), to_string(*d.function),
                       d.overlap > 0 ? fmt::format(" ({:.2f}% overlap)", 100 * d.overlap) : "");
  }
  return out;
}

/// The topics of kex list in the order printed: each one's word and its text.
struct ListTopic {
  std::string_view word;
  std::string (*text)();
};
const std::array<ListTopic, 5> kListTopics{{{"classes", list_classes_text},
                                             {"params", list_params_text},
                                             {"presets", list_presets_text},
                                             {"glibc", list_glibc_text},
                                             {"streams", list_streams_text}}};

}  // namespace

std::vector<std::string> list_topic_words() {
  std::vector<std::string> w;
  for (const auto& t : kListTopics) w.emplace_back(t.word);
  w.emplace_back("all");
  return w;
}

Action add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List register classes, parameters (and presets)");
  auto what = std::make_shared<std::string>("all");
  std::string help;
  for (const auto& w : list_topic_words()) help += (help.empty() ? "" : " | ") + w;
  cmd->add_option("WHAT", *what, help)->check(one_of(list_topic_words()));
  return [what]() {
    std::string out;
    for (const auto& t : kListTopics)
      if (*what == "all" || *what == t.word) out += t.text();
    // One checked write: a full disk or a closed stdout fails with one line and status 2.
    write_stdout(out);
    return 0;
  };
}

}  // namespace kex
