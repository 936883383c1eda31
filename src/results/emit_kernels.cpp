#include "src/results/emit_kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "generators/disasm_ext.hpp"
#include "generators/disasm_regs.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/core/version.hpp"
#include "src/model/kernel_names.hpp"
#include "src/results/results.hpp"
#include "src/run/dispatch_plan.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/plans.hpp"

namespace kex {

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string hex64(uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

/// What the kernel is: its spec and the features it needs, or its preset's facts.
std::vector<std::string> kernel_lines(const KernelPlan& p) {
  std::vector<std::string> out = {"kernel " + p.key + " (" + std::string(to_string(p.kind)) + ", " +
                                  std::string(to_string(p.op)) + ")"};
  if (p.spec) {
    out.push_back("spec: " + spec_name(*p.spec));
    const std::string needs = feature_list(spec_needs(*p.spec));
    out.push_back("CPU features it needs: " + (needs.empty() ? std::string("none beyond x86-64") : needs));
  }
  if (p.preset) {
    out.push_back("preset '" + p.preset->printed + "', confidence " + std::string(to_string(p.preset->confidence)));
    out.push_back("origin: " + p.preset->origin);
    out.push_back("CPU features of the original: " +
                  (p.preset->features.empty() ? std::string("none beyond x86-64") : joined(p.preset->features)));
    for (const auto& s : p.preset->substitutions) out.push_back("substitution here: " + s);
    if (!p.preset->fsave) out.push_back("--no-fsave: without the fsave/frstor pair the original timed");
  }
  if (p.impl) {
    out.push_back("loaded by kex from " + p.impl->path + ", symbol " + p.impl->symbol + " (" + std::string(to_string(p.impl->function)) +
                  "'s signature), " + std::to_string(p.impl->pieces) + " piece" + (p.impl->pieces == 1 ? "" : "s"));
    out.push_back("sha256 of " + p.impl->path + ": " + p.impl->sha256);
    out.push_back("the bytes as kex placed them: a jump to the symbol, int3 up to 64 bytes, then the pieces as laid out");
  }
  if (!p.skip.empty()) out.push_back("this CPU cannot run it: " + p.skip);
  return out;
}

/// asm/NAME from its --load: the bytes the object loader laid out. A lib/ name is refused:
/// kex calls a shared object's symbol through a pointer filled at run time, so it has no
/// bytes of its own to write.
KernelPlan loaded_plan(const ImplName& n, const std::string& name, const std::string& where,
                       const std::vector<LoadSpec>& loads) {
  if (source_row(n.source).reach != Reach::bytes)
    throw InputError(where, "'" + name + "' is a shared object's symbol, which kex calls through a pointer it fills "
                                "at run time: there are no bytes of it to emit (load its object or assembly file as "
                                "asm/" + n.symbol + " instead)");
  const auto it = std::find_if(loads.begin(), loads.end(), [&](const LoadSpec& l) { return l.name == n.symbol; });
  if (it == loads.end())
    throw InputError(where, "'" + name + "' names code loaded from an assembly or object file: give its --load " + n.symbol +
                                "=PATH:SYMBOL on this command line (a name read from a file never loads anything)");
  if (load_kernel(*it) != impl_name({n.source, n.symbol, 0}))
    throw InputError(where, "'" + name + "': --load " + n.symbol + " loads " + load_kernel(*it));
  LoadedCode loaded;  // asm bytes only: the plan holds its own copy of them (no slot points into it)
  KernelPlan p = loaded.plan(*it, n.fill, "--load");
  if (p.key != name) throw InputError(where, "'" + name + "': --load " + n.symbol + " gives " + p.key);
  return p;
}

}  // namespace

KernelPlan source_plan(const std::string& name, const PresetOptions& opts, const std::string& where, bool allow_libc,
                       const std::vector<LoadSpec>& loads) {
  if (is_dispatch_name(name)) {
    try {
      return dispatch_plan(parse_dispatch_kernel(name));
    } catch (const std::invalid_argument& e) {
      throw InputError(where, "'" + name + "': " + e.what());
    }
  }
  if (auto b = parse_baseline_name(name)) {
    KernelPlan p = *baseline_plan(name);
    if (p.libc && !allow_libc)
      throw InputError(where, "'" + name + "' is the C library's; it can be a --dispatch row, not an emitted kernel");
    return p;
  }
  if (const auto n = parse_impl_name(name); n && source_row(n->source).loaded)  // loaded only by its --load
    return loaded_plan(*n, name, where, loads);
  if (parse_impl_name(name) || find_impl_set(name))  // a name only: nothing is looked up or loaded
    throw InputError(where, "'" + name + "' names glibc's own code: kex emits only code it generated");
  KernelPlan plan;
  try {
    const KernelSpec s = parse_spec_name(name);
    if (auto why = validate(s); !why.empty()) throw InputError(where, "'" + name + "': " + why);
    plan = spec_plan(s);
  } catch (const std::invalid_argument& e) {
    const Preset* p = nullptr;
    try {
      p = find_preset(name);
    } catch (const InputError& ambiguous) {  // a name several presets share: where it was given, too
      throw InputError(where, ambiguous.what());
    }
    if (!p) {
      if (!preset_set(name).empty())
        throw InputError(where, "'" + name + "' is a set of presets; name its kernels one by one (kex list presets)");
      throw InputError(where, std::string(e.what()) + " (and no preset is called '" + name +
                                  "'; see kex list presets; baselines: memcpy, memset, rep_movsb, rep_stosb)");
    }
    plan = preset_plan(*p, opts);
  }
  if (!plan.error.empty()) throw InputError(where, "'" + name + "': " + plan.error);
  return plan;
}

SourceKernel source_kernel(const KernelPlan& plan) {
  SourceKernel k;
  k.name = plan.key;
  k.symbol = kernel_symbol(plan.key);
  k.op = plan.op;
  k.fill = plan.fill;
  k.alignment = plan.alignment;
  k.region = plan.region;
  if (plan.libc) {
    k.libc = true;
    k.provenance = {"kernel " + plan.key + ": the C library's " + std::string(to_string(plan.libc->function)) + ", called as it is"};
    return k;
  }
  CodeArena arena;
  const size_t i = arena.add(plan.emit);
  arena.finalize();
  const CodeRef r = arena.ref(i);
  k.code.assign(r.code, r.code + r.size);
  k.loaded = plan.impl.has_value();
  k.keeps_rax = keeps_rax(k.code.data(), k.code.size());
  if (plan.spec) k.needs = spec_needs(*plan.spec);
  k.provenance = kernel_lines(plan);
  k.provenance.push_back(std::to_string(r.size) + " bytes of code, fnv1a " + hex64(r.hash));
  const std::string fb = fallback_text(k);
  k.provenance.push_back(fb.empty() ? "handles every n, dst and src" : "the wrapper calls libc when " + fb);
  return k;
}

void add_measured(SourceKernel& k, const std::vector<RunDoc>& runs, const std::string& file, size_t max_lines) {
  const uint64_t hash = k.code.empty() ? 0 : fnv1a(k.code.data(), k.code.size());
  size_t lines = 0, more = 0;
  for (const RunDoc& d : runs)
    for (const Result& r : d.results) {
      if (r.point.kernel != k.name || !r.ok()) continue;
      if (lines == 0) k.provenance.push_back("measured in " + file + " on " + run_label(d.context) + ":");
      if (lines++ >= max_lines) {
        ++more;
        continue;
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f GB/s", median_gbps(r));
      const std::string cond = condition_label(condition(r.point.at));
      std::string code;
      if (r.code && !k.code.empty() && r.code->fnv1a != hash) code = ", other code (fnv1a " + hex64(r.code->fnv1a) + ")";
      k.provenance.push_back("  " + std::to_string(r.point.at.size) + " B: " + buf + (cond.empty() ? "" : " (" + cond + ")") +
                             code);
    }
  if (more) k.provenance.push_back("  ... and " + std::to_string(more) + " more entries");
  if (lines == 0) k.provenance.push_back("no measured entry of it in " + file);
}

std::vector<std::string> source_file_header() {
  const CpuIdentity& c = cpu_identity();
  return {"Written by " + kex_version_line() + " (kex emit).",
          "Emitted on: " + (c.brand.empty() ? c.vendor : c.brand) + " (family " + std::to_string(c.family) + " model " +
              std::to_string(c.model) + " stepping " + std::to_string(c.stepping) + ").",
          "Code and wrappers are generated: edit the kex command, not this file."};
}

std::string fallback_text(const SourceKernel& k) {
  std::vector<std::string> when;
  if (k.region > 1) when.push_back("n is not a multiple of " + std::to_string(k.region));
  if (k.alignment > 1)
    when.push_back(std::string(k.op == Op::copy ? "dst or src" : "dst") + " is not " + std::to_string(k.alignment) +
                   "-byte aligned");
  if (when.empty()) return "";
  std::string s = joined(when);
  if (k.op == Op::clear) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", k.fill);
    s += ", or c is not " + std::string(b);
  }
  return s + " (" + (k.op == Op::copy ? "memcpy" : "memset") + ")";
}

std::string comment_text(std::string_view text) {
  std::string s;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      if (c == '/' && !s.empty() && s.back() == '*') s += '\\';
      if (c == '*' && !s.empty() && s.back() == '/') s += '\\';
      s += char(c);
      continue;
    }
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", c);
    s += b;
  }
  return s;
}

std::vector<CodeLine> code_lines(const SourceKernel& k, Syntax syntax) {
  std::vector<CodeLine> out;
  size_t pos = 0;
  for (const Insn& i : disassemble_all(k.code.data(), k.code.size(), syntax)) {
    const bool pad = i.bytes == std::vector<uint8_t>{0xcc};
    if (pad && !out.empty() && out.back().text.rfind("int3", 0) == 0 && out.back().bytes.back() == 0xcc) {
      out.back().bytes.push_back(0xcc);
      out.back().text = "int3 x" + std::to_string(out.back().bytes.size()) + ": padding";
    } else {
      out.push_back({i.offset, i.bytes, i.mnemonic + (i.operands.empty() ? "" : " " + i.operands)});
    }
    pos = i.offset + i.bytes.size();
  }
  for (; pos < k.code.size(); pos += 16)
    out.push_back({pos, {k.code.begin() + std::ptrdiff_t(pos), k.code.begin() + std::ptrdiff_t(std::min<size_t>(pos + 16, k.code.size()))},
                   "not decoded"});
  return out;
}

void check_dispatch_kernels(const SourceDispatch& d, const std::vector<SourceKernel>& kernels) {
  for (const auto& e : d.table.entries) {
    bool known = false;
    for (const auto& k : kernels) known = known || k.name == e.kernel;
    if (!known) throw std::logic_error("dispatch kernel " + e.kernel + " was not emitted");
  }
}

void check_symbols(const std::vector<SourceKernel>& kernels, const std::vector<std::string>& extra) {
  std::map<std::string, std::string> owner;
  auto claim = [&](const std::string& symbol, const std::string& who) {
    auto [it, fresh] = owner.emplace(symbol, who);
    if (!fresh && it->second != who)
      throw InputError("kex emit", "'" + it->second + "' and '" + who + "' would both define the symbol " + symbol +
                                       "; emit them in separate files");
  };
  for (const auto& s : extra) claim(s, "--name " + s);
  for (const auto& k : kernels) {
    if (k.libc) continue;
    claim(k.symbol, k.name);
    claim(k.symbol + "_kernel", k.name);
    claim(k.symbol + "_nocheck", k.name);
    claim(k.symbol + "_code", k.name);
  }
}

}  // namespace kex
