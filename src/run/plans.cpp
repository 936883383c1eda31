#include "src/run/plans.hpp"

#include <cstring>
#include <map>
#include <set>

#include "generators/emit.hpp"
#include "src/core/error.hpp"

namespace kex {

namespace {
// noinline + a runtime size: the compiler emits a call to glibc's ifunc-selected memcpy/memset.
__attribute__((noinline)) void libc_memcpy(void* d, const void* s, size_t n) {
  std::memcpy(d, s, n);
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void libc_memset(void* d, const void*, size_t n) {
  std::memset(d, 0, n);
  asm volatile("" ::: "memory");
}
}  // namespace

std::vector<const Preset*> resolve_presets(const std::vector<std::string>& names, const std::string& source) {
  std::vector<const Preset*> out;
  for (size_t i = 0; i < names.size(); ++i) {
    auto set = preset_set(names[i]);
    if (!set.empty()) {
      out.insert(out.end(), set.begin(), set.end());
      continue;
    }
    if (const Preset* p = find_preset(names[i])) {
      out.push_back(p);
      continue;
    }
    std::string sets;
    for (const auto& s : preset_set_names()) sets += (sets.empty() ? "" : ", ") + s;
    throw InputError(source + ": /presets/" + std::to_string(i) + ": \"" + names[i] +
                     "\": unknown preset (see `kex list presets`; sets: " + sets + ")");
  }
  return out;
}

KernelPlan spec_plan(const KernelSpec& s) {
  KernelPlan k;
  k.key = spec_name(s);
  k.kind = KernelKind::generated;
  k.op = s.op;
  k.fill = s.fill;
  k.alignment = required_alignment(s);
  k.width = reg_class_info(s.regs).width;
  k.unroll = s.unroll;
  k.spec = s;
  k.skip = cpu_unsupported_reason(s);
  k.emit = [s](Xbyak::CodeGenerator& g) { emit_kernel(g, s); };
  return k;
}

KernelPlan preset_plan(const Preset& p, const PresetOptions& opts) {
  KernelPlan k;
  k.key = p.id;
  k.kind = KernelKind::preset;
  k.op = p.op;
  k.alignment = std::max<uint32_t>(1, p.alignment);
  k.region = std::max<uint32_t>(1, p.region);
  k.width = 8;
  k.unroll = std::max<uint32_t>(64, p.region);
  k.skip = preset_unsupported_reason(p);
  std::vector<std::string> subs;
  try {
    subs = preset_substitutions(p, opts);
  } catch (const std::exception& e) {
    k.error = std::string("code generation failed: ") + e.what();
  }
  k.preset = preset_facts(p, subs, opts.fsave);
  const Preset* pp = &p;
  k.emit = [pp, opts](Xbyak::CodeGenerator& g) {
    std::vector<std::string> s;
    pp->emit(g, opts, s);
  };
  return k;
}

std::optional<KernelPlan> baseline_plan(const std::string& name) {
  if (name == "memcpy" || name == "memset") {
    KernelPlan k;
    k.key = name;
    k.kind = KernelKind::baseline;
    k.op = name == "memcpy" ? Op::copy : Op::clear;
    k.libc = LibcFacts{name};
    k.libc_fn = name == "memcpy" ? libc_memcpy : libc_memset;
    return k;
  }
  if (name == "rep_movsb" || name == "rep_stosb") {
    KernelSpec s = default_spec(name == "rep_movsb" ? Op::copy : Op::clear, RegClass::string);
    s.unroll = 1;
    KernelPlan k = spec_plan(s);
    k.key = name;
    k.kind = KernelKind::baseline;
    return k;
  }
  return std::nullopt;
}

ConfigPlans config_plans(const Config& c) {
  ConfigPlans out;
  std::map<std::string, size_t> by_key;
  auto add = [&](KernelPlan k) {
    auto [it, fresh] = by_key.emplace(k.key, out.plans.size());
    if (fresh) out.plans.push_back(std::move(k));
    return it->second;
  };
  bool has_copy = false, has_clear = false;
  for (const Grid& g : c.grids) {
    std::vector<size_t> idx;
    for (const KernelSpec& s : g.specs) {
      idx.push_back(add(spec_plan(s)));
      (s.op == Op::copy ? has_copy : has_clear) = true;
    }
    out.grid_plans.push_back(std::move(idx));
  }
  const auto presets = resolve_presets(c.presets, c.source);  // unknown names fail here, before any run
  // A seed program's set is that program's table: its banner, buffer line and buffer
  // offset come with it, so it runs under that program's harness (or kex's).
  if (c.harness != Harness::kex)
    for (size_t i = 0; i < c.presets.size(); ++i)
      if (const auto own = preset_set_harness(c.presets[i]); own && *own != c.harness) {
        const char* program = *own == Harness::hahn    ? "Hahn's athlon.c"
                              : *own == Harness::xmm64 ? "LaHaise's xmm64.c"
                                                       : "fast.c v1.6";
        throw InputError(c.source + ": /presets/" + std::to_string(i) + ": \"" + c.presets[i] + "\" is the table of " +
                         program + "; run it with harness " + std::string(to_string(*own)) + " (not " +
                         std::string(to_string(c.harness)) + "), or name its kernels one by one");
      }
  if (c.harness == Harness::kex) {
    PresetOptions opts;
    opts.fsave = c.preset_fsave;
    std::set<std::string> seen;
    for (const Preset* p : presets) {
      if (!seen.insert(p->id).second) continue;  // sets repeat kernels the seeds ran twice
      out.preset_plans.push_back(add(preset_plan(*p, opts)));
      (p->op == Op::copy ? has_copy : has_clear) = true;
    }
  }
  const bool only_baselines = out.plans.empty();
  for (size_t i = 0; i < c.baselines.size(); ++i) {
    auto b = baseline_plan(c.baselines[i]);
    if (!b) throw InputError(c.source + ": /baselines/" + std::to_string(i) + ": unknown baseline '" + c.baselines[i] + "'");
    if (!only_baselines && !(b->op == Op::copy ? has_copy : has_clear)) continue;
    out.baseline_plans.push_back(add(std::move(*b)));
  }
  return out;
}

}  // namespace kex
