#include "src/run/plans.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "generators/emit.hpp"
#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "src/run/dispatch_plan.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/outside_plan.hpp"

namespace kex {

namespace {
// noinline + a runtime size: the compiler emits a call to glibc's ifunc-selected memcpy/memset.
__attribute__((noinline)) void libc_memcpy(void* d, const void* s, size_t n) {
  std::memcpy(d, s, n);
  asm volatile("" ::: "memory");
}
/// libc's memset writing the byte F, with the kernel ABI (one function per byte: the
/// ABI has no room for the fill).
template <uint8_t F>
__attribute__((noinline)) void libc_memset(void* d, const void*, size_t n) {
  std::memset(d, F, n);
  asm volatile("" ::: "memory");
}

template <size_t... F>
constexpr std::array<KernelFn, sizeof...(F)> memset_table(std::index_sequence<F...>) {
  return {&libc_memset<uint8_t(F)>...};
}

/// libc's memset of each fill byte.
constexpr std::array<KernelFn, 256> kLibcMemset = memset_table(std::make_index_sequence<256>());
}  // namespace

KernelFn libc_function(Op op, uint8_t fill) { return op == Op::copy ? libc_memcpy : kLibcMemset[fill]; }

std::vector<const Preset*> resolve_presets(const std::vector<std::string>& names, const std::string& source) {
  std::vector<const Preset*> out;
  for (size_t i = 0; i < names.size(); ++i) {
    auto set = preset_set(names[i]);
    if (!set.empty()) {
      out.insert(out.end(), set.begin(), set.end());
      continue;
    }
    const Preset* p = nullptr;
    try {
      p = find_preset(names[i]);
    } catch (const InputError& e) {
      throw InputError(source + ": /presets/" + std::to_string(i), e.what());
    }
    if (p) {
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
  if (s.rep_above) k.edges = {s.rep_above - 1ull, s.rep_above, s.rep_above + 1ull};
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
  if (is_dispatch_name(name)) return dispatch_plan(parse_dispatch_kernel(name));
  const auto b = parse_baseline_name(name);
  if (!b) return std::nullopt;
  if (const auto f = parse_function(b->base)) return outside_plan(libc_code(*f), b->fill);
  KernelSpec s = rep_string_spec(b->base == "rep_movsb" ? Op::copy : Op::clear);
  s.fill = b->fill;
  KernelPlan k = spec_plan(s);
  k.key = name;
  k.kind = KernelKind::baseline;
  return k;
}

KernelPlan impl_plan(const GlibcImpl& g, uint8_t fill) { return outside_plan({g.facts, g.fn, nullptr, nullptr}, fill); }

bool is_impl_entry(const std::string& name) { return find_impl_set(name) || parse_impl_name(name); }

std::vector<KernelPlan> impl_plans(const std::string& name, uint8_t fill, const GlibcImpls& impls, const std::string& where) {
  std::vector<KernelPlan> out;
  if (const ImplSet* set = find_impl_set(name)) {
    if (!impls.missing.empty()) std::fprintf(stderr, "kex: warning: %s: %s\n", name.c_str(), impls.missing.c_str());
    for (const GlibcImpl* g : impls.of(set->function)) out.push_back(impl_plan(*g, fill));
    return out;
  }
  const auto n = parse_impl_name(name);
  if (!n) return out;
  if (const GlibcImpl* g = impls.find(n->symbol)) {
    out.push_back(impl_plan(*g, n->fill ? n->fill : fill));
    return out;
  }
  std::string sets;
  for (const ImplSet& s : impl_sets()) sets += (sets.empty() ? "" : ", ") + s.name;
  throw InputError(where + ": '" + name + "': no such glibc implementation (" +
                   (impls.missing.empty() ? std::to_string(impls.list.size()) + " here, see `kex list glibc`" : impls.missing) +
                   "; sets: " + sets + ")");
}

namespace {

/// The plans of one config as they are added, each key once, and what the baselines
/// need to know of them: the ops present and the clears' fill bytes other than 0.
struct PlanBuilder {
  ConfigPlans out;
  std::map<std::string, size_t> by_key;
  bool has_copy = false, has_clear = false;
  std::set<uint8_t> fills;

  /// The index of plan `k` (the first plan of its key).
  size_t add(KernelPlan k) {
    auto [it, fresh] = by_key.emplace(k.key, out.plans.size());
    if (fresh) out.plans.push_back(std::move(k));
    return it->second;
  }
  void saw(Op op) { (op == Op::copy ? has_copy : has_clear) = true; }
  bool has(Op op) const { return op == Op::copy ? has_copy : has_clear; }
};

/// A seed program's set is that program's table (its banner, buffer line and buffer offset
/// come with it), so it runs under that program's harness or kex's; Asami's harness times
/// copies only. InputError naming the preset's JSON path otherwise.
void check_preset_harness(const Config& c) {
  for (size_t i = 0; i < c.presets.size() && c.harness != Harness::kex; ++i) {
    const std::string where = c.source + ": /presets/" + std::to_string(i) + ": \"" + c.presets[i] + "\"";
    if (const auto own = preset_set_harness(c.presets[i]); own && *own != c.harness) {
      const char* program = *own == Harness::hahn    ? "Hahn's athlon.c"
                            : *own == Harness::xmm64 ? "LaHaise's xmm64.c"
                                                     : "fast.c v1.6";
      throw InputError(where + " is the table of " + program + "; run it with harness " + std::string(to_string(*own)) +
                       " (not " + std::string(to_string(c.harness)) + "), or name its kernels one by one");
    }
    const auto named = resolve_presets({c.presets[i]}, c.source);
    if (c.harness == Harness::mem_cp &&
        std::none_of(named.begin(), named.end(), [](const Preset* p) { return p->op == Op::copy; }))
      throw InputError(where + " has no copy: harness mem_cp times copies only (run clears under harness kex)");
  }
}

/// The baselines asked for, of the ops the config has (all when it has only baselines),
/// a clear's once more for each other fill byte.
void add_baselines(const Config& c, PlanBuilder& b, bool only_baselines) {
  for (size_t i = 0; i < c.baselines.size(); ++i) {
    const std::string where = c.source + ": /baselines/" + std::to_string(i);
    if (is_impl_entry(c.baselines[i])) {  // glibc's variants join the groups as libc's memcpy does
      for (KernelPlan& k : impl_plans(c.baselines[i], 0, glibc_impls(), where)) {
        if (!only_baselines && !b.has(k.op)) continue;
        const bool clear = k.op == Op::clear && !k.fill;
        const GlibcImpl* g = glibc_impls().find(k.impl->symbol);
        b.out.baseline_plans.push_back(b.add(std::move(k)));
        if (clear)
          for (uint8_t f : b.fills) b.out.baseline_plans.push_back(b.add(impl_plan(*g, f)));
      }
      continue;
    }
    auto k = baseline_plan(c.baselines[i]);
    if (!k) throw InputError(where + ": unknown baseline '" + c.baselines[i] + "'");
    if (!only_baselines && !b.has(k->op)) continue;
    const bool clear = k->op == Op::clear && !k->dispatch;  // a dispatch's clears write 0 only
    b.out.baseline_plans.push_back(b.add(std::move(*k)));
    if (clear)
      for (uint8_t f : b.fills) b.out.baseline_plans.push_back(b.add(*baseline_plan(baseline_name(c.baselines[i], f))));
  }
}

}  // namespace

ConfigPlans config_plans(const Config& c, LoadedCode& loaded) {
  PlanBuilder b;
  for (const Grid& g : c.grids) {
    std::vector<size_t> idx;
    for (const KernelSpec& s : g.specs) {
      idx.push_back(b.add(spec_plan(s)));
      if (s.op != Op::read) b.saw(s.op);  // reads have no baselines
      if (s.op == Op::clear && s.fill) b.fills.insert(s.fill);
    }
    b.out.grid_plans.push_back(std::move(idx));
  }
  const auto presets = resolve_presets(c.presets, c.source);  // unknown names fail here, before any run
  check_preset_harness(c);
  if (c.harness == Harness::kex) {
    PresetOptions opts;
    opts.fsave = c.preset_fsave;
    std::set<std::string> seen;
    for (const Preset* p : presets) {
      if (!seen.insert(p->id).second) continue;  // sets repeat kernels the seeds ran twice
      b.out.preset_plans.push_back(b.add(preset_plan(*p, opts)));
      b.saw(p->op);
    }
  }
  for (const LoadSpec& l : c.loads) b.saw(function_row(l.function).op);
  add_baselines(c, b, b.out.plans.empty() && c.loads.empty());
  // Loaded code races as glibc's variants do; a clear also writes the config's other fills.
  for (size_t i = 0; i < c.loads.size(); ++i) {
    const std::string where = c.source + ": /load/" + std::to_string(i);
    KernelPlan k = loaded.plan(c.loads[i], 0, where);
    const bool clear = k.op == Op::clear;
    b.out.baseline_plans.push_back(b.add(std::move(k)));
    if (clear)
      for (uint8_t f : b.fills) b.out.baseline_plans.push_back(b.add(loaded.plan(c.loads[i], f, where)));
  }
  return std::move(b.out);
}

}  // namespace kex
