// Presets in sweeps: resolving names and sets, kex-harness kernel entries, and the
// seed-layout text for kex-harness results.
#include "src/run/sweep_presets.hpp"

#include "src/run/preset_select.hpp"

#include <cstdio>
#include <set>

#include "src/core/error.hpp"
#include "src/run/harness.hpp"
#include "src/run/results_build.hpp"

namespace kex {

void append_preset_kernels(const Config& c, std::vector<KernelEntry>& out) {
  if (c.presets.empty() || c.harness != "kex") return;
  PresetOptions opts;
  opts.fsave = c.preset_fsave;
  std::set<std::string> seen;
  for (const Preset* p : resolve_presets(c.presets, c.source)) {
    if (!seen.insert(p->id).second) continue;  // sets repeat kernels the seeds ran twice
    KernelEntry e;
    e.key = p->id;
    e.kind = "preset";
    e.op = p->op;
    e.params = {{"op", std::string(to_string(p->op))}, {"preset", p->id}, {"fsave", opts.fsave}};
    e.alignment = std::max<uint32_t>(1, p->alignment);
    e.size_multiple = std::max<uint32_t>(1, p->region);
    e.width = 8;
    e.unroll = std::max<uint32_t>(64, p->region);
    e.skip = preset_unsupported_reason(*p);
    std::vector<std::string> subs;
    try {
      subs = preset_substitutions(*p, opts);
    } catch (const std::exception& ex) {
      e.error = std::string("code generation failed: ") + ex.what();
    }
    e.extra = {{"preset", preset_json(*p, subs)}};
    e.emit = [p, opts](Xbyak::CodeGenerator& g) {
      std::vector<std::string> s;
      p->emit(g, opts, s);
    };
    out.push_back(std::move(e));
  }
}

std::string preset_seed_text(const nlohmann::ordered_json& doc) {
  std::string clear, copy;
  for (const auto& e : doc.at("benchmarks")) {
    if (e.value("kind", "") != "preset" || !e.contains("stats") || !e.contains("preset")) continue;
    if (e["size"].get<uint64_t>() != 4096) continue;
    const Preset* p = find_preset(e["kernel"].get<std::string>());
    if (!p) continue;
    double ticks = e["stats"]["ticks_per_page"].get<double>();
    double mbps = e["bytes_per_second"].get<double>() / (1 << 20);
    std::string line = format_seed_line(*p, Harness::kex, ticks, mbps);
    if (e["params"].value("cache", "warm") == "cold") line += "\t(cold)";
    (p->op == Op::clear ? clear : copy) += line + "\n";
  }
  if (clear.empty() && copy.empty()) return {};
  std::string s = "# kex harness: median of adaptive samples, one 4096-byte page per call; cycles are TSC ticks "
                  "(estimated core cycles are in the JSON and the plots); MB/s = 2^20 bytes/s as the seeds printed\n";
  std::set<std::string> subs;
  for (const auto& e : doc.at("benchmarks"))
    if (e.value("kind", "") == "preset" && e.contains("preset"))
      for (const auto& x : e["preset"].value("substitutions", nlohmann::ordered_json::array())) subs.insert(x.get<std::string>());
  for (const auto& x : subs) s += "# substitution on this CPU: " + x + "\n";
  if (!clear.empty()) s += "clear_page() tests\n" + clear;
  if (!copy.empty()) s += (clear.empty() ? "" : "\n") + std::string("copy_page() tests\n") + copy;
  return s;
}

}  // namespace kex
