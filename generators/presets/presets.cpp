// The preset table, lookup, named sets and the helpers the families share.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "generators/presets/impl.hpp"

namespace kex {

namespace presets_detail {

using namespace Xbyak;
using namespace Xbyak::util;

void note_subst(Subs& subs, const std::string& s) {
  if (std::find(subs.begin(), subs.end(), s) == subs.end()) subs.push_back(s);
}

void femms(Gen& g, Subs& subs) {
  if (host_features().has(Feature::amd3dnow)) {
    g.db(0x0F);
    g.db(0x0E);
  } else {
    g.emms();
    note_subst(subs, "femms -> emms (no 3DNow! on this CPU)");
  }
}

void prefetch_3dnow(Gen& g, const Reg64& base, int32_t disp, Subs& subs) {
  if (!host_features().has(Feature::prefetch3dnow)) {
    g.prefetcht0(g.ptr[base + disp]);
    note_subst(subs, "3DNow! prefetch -> prefetcht0 (no 3DNow!/3DNowPrefetch on this CPU)");
    return;
  }
  // 0F 0D /0 with a [base + disp] operand; Xbyak has no mnemonic for it.
  const int rm = base.getIdx();
  if (rm > 7 || rm == 4 || rm == 5) throw std::logic_error("prefetch_3dnow: unsupported base register");
  g.db(0x0F);
  g.db(0x0D);
  if (disp == 0) {
    g.db(rm);  // mod 00, reg 0
  } else if (disp >= -128 && disp <= 127) {
    g.db(0x40 | rm);
    g.db(static_cast<uint8_t>(disp));
  } else {
    g.db(0x80 | rm);
    g.dd(static_cast<uint32_t>(disp));
  }
}

constexpr int kFpuFrame = 112;  // 108-byte fsave image, rounded to 16

void fpu_save(Gen& g, const PresetOptions& o, Subs& subs) {
  if (!o.fsave) {
    note_subst(subs, "fsave/fwait ... frstor dropped (fsave switch off)");
    return;
  }
  g.sub(rsp, kFpuFrame);
  g.fsave(g.ptr[rsp]);  // 9B DD /6
  g.fwait();
}

void fpu_restore(Gen& g, const PresetOptions& o) {
  if (!o.fsave) return;
  g.frstor(g.ptr[rsp]);
  g.add(rsp, kFpuFrame);
}

void fpu_save_again(Gen& g, const PresetOptions& o) {
  if (!o.fsave) return;
  g.fsave(g.ptr[rsp]);
  g.fwait();
  g.add(rsp, kFpuFrame);
}

void region_loop(Gen& g, uint32_t region, const Reg64& counter, const std::function<void()>& body) {
  const int idx = counter.getIdx();
  const bool callee_saved = idx == 3 || idx == 5 || idx >= 12;
  if (region == 0 || (region & (region - 1))) throw std::logic_error("region_loop: region must be a power of 2");
  int shift = 0;
  while ((1u << shift) < region) ++shift;
  if (callee_saved) g.push(counter);
  if (idx != 2) g.mov(counter, rdx);
  Label top, done;
  if (shift) g.shr(counter, shift);
  else g.test(counter, counter);
  g.jz(done, Gen::T_NEAR);
  g.align(16);
  g.L(top);
  body();
  g.dec(counter);
  g.jnz(top);
  g.L(done);
  if (callee_saved) g.pop(counter);
  g.ret();
}

std::function<void(Gen&, const PresetOptions&, Subs&)> per_page(const Reg64& counter, PageBody body) {
  return [counter, body = std::move(body)](Gen& g, const PresetOptions& o, Subs& s) {
    region_loop(g, 4096, counter, [&] { body(g, o, s); });
  };
}

}  // namespace presets_detail

using namespace presets_detail;

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> v;
    for (auto part : {fastc_clear_presets(), xmm64_clear_presets(), fastc_copy_presets(), xmm64_copy_presets(),
                      linux24_presets(), asami_presets(), linux_presets(), freebsd_presets()})
      for (auto& p : part) v.push_back(std::move(p));
    return v;
  }();
  return all;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

/// "asami/unroll[:U][/scratch:N][/every:P]" (tokens in any order) -> the preset, cached.
const Preset* parametric_unroll(std::string_view name) {
  if (name.substr(0, 12) != "asami/unroll") return nullptr;
  uint32_t u = 96, n = 2, p = 32;
  std::string_view rest = name.substr(12);
  auto parse_num = [&](std::string_view t) -> uint32_t {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string_view::npos)
      throw std::invalid_argument("asami unroll: bad number '" + std::string(t) + "'");
    return static_cast<uint32_t>(std::stoul(std::string(t)));
  };
  if (!rest.empty() && rest.front() == ':') {
    size_t end = rest.find('/');
    u = parse_num(rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  }
  while (!rest.empty()) {
    if (rest.front() != '/') return nullptr;
    rest.remove_prefix(1);
    size_t end = rest.find('/');
    std::string_view tok = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
    size_t colon = tok.find(':');
    if (colon == std::string_view::npos) return nullptr;
    std::string_view key = tok.substr(0, colon), val = tok.substr(colon + 1);
    if (key == "unroll") u = parse_num(val);
    else if (key == "scratch") n = parse_num(val);
    else if (key == "every") p = parse_num(val);
    else return nullptr;
  }
  Preset built = asami_unroll_preset(u, n, p);  // throws on bad values
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Preset>> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& q : presets())
    if (q.id == built.id) return &q;
  auto& slot = cache[built.id];
  if (!slot) slot = std::make_unique<Preset>(std::move(built));
  return slot.get();
}

}  // namespace

std::vector<const Preset*> find_presets(std::string_view name) {
  std::optional<Op> only;
  if (name.substr(0, 5) == "copy:") {
    only = Op::copy;
    name.remove_prefix(5);
  } else if (name.substr(0, 6) == "clear:") {
    only = Op::clear;
    name.remove_prefix(6);
  }
  const std::string_view key = trim(name);
  std::vector<const Preset*> out;
  if (key.empty()) return out;  // an empty name must not match an empty field
  for (const auto& p : presets()) {
    if (only && p.op != *only) continue;
    bool hit = p.id == key || trim(p.printed) == key || p.hahn_printed == key;
    for (const auto& a : p.aliases) hit = hit || a == key;
    if (hit) out.push_back(&p);
  }
  if (out.empty() && (!only || *only == Op::copy)) {
    try {
      if (const Preset* p = parametric_unroll(key)) out.push_back(p);
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

const Preset* find_preset(std::string_view name) {
  // Exact ids win over printed names and aliases (e.g. "hahn/faster_copy").
  for (const auto& p : presets())
    if (p.id == trim(name)) return &p;
  auto all = find_presets(name);
  if (all.size() > 1) {
    std::string ids;
    for (const Preset* p : all) ids += (ids.empty() ? "" : ", ") + p->id;
    throw InputError("preset name '" + terminal_text(name) + "' is ambiguous: " + ids +
                     " (give the id; see kex list presets)");
  }
  return all.empty() ? nullptr : all.front();
}

std::string preset_unsupported_reason(const Preset& p) {
  const FeatureSet f = host_features();
  for (const auto& feat : p.features) {
    if (feat == "mmx" && !f.has(Feature::mmx)) return "this CPU lacks MMX";
    if (feat == "sse" && !f.has(Feature::sse)) return "this CPU lacks SSE (movntq/prefetchnta/sfence)";
    if (feat == "sse2" && !f.has(Feature::sse2)) return "this CPU lacks SSE2";
  }
  return {};
}

std::vector<std::string> preset_substitutions(const Preset& p, const PresetOptions& opts) {
  Xbyak::CodeGenerator g(1 << 16, Xbyak::DontSetProtectRWE);
  std::vector<std::string> subs;
  p.emit(g, opts, subs);
  return subs;
}

PresetFacts preset_facts(const Preset& p, const std::vector<std::string>& substitutions, bool fsave) {
  PresetFacts f = p;  // the row's facts, whole
  if (f.hahn_printed.empty()) f.hahn_printed = f.printed;
  f.substitutions = substitutions;
  f.fsave = fsave;
  return f;
}

namespace {

std::vector<const Preset*> by_ids(std::initializer_list<const char*> ids) {
  std::vector<const Preset*> v;
  for (const char* id : ids) {
    const Preset* p = find_preset(id);
    if (!p || p->id != id) throw std::logic_error(std::string("preset set names unknown preset ") + id);
    v.push_back(p);
  }
  return v;
}

}  // namespace

const std::vector<std::string>& preset_set_names() {
  static const std::vector<std::string> names = {"reference", "fastc", "spraul", "hahn", "xmm64", "asami",
                                                 "linux24",   "linux", "freebsd", "all"};
  return names;
}

std::vector<const Preset*> preset_set(std::string_view name) {
  if (name == "fastc")
    return by_ids({"fastc/fast_clear_page", "fastc/normal_clear_page", "fastc/slow_zero_page",
                   "fastc/fast_clear_page", "fastc/faster_clear_page", "fastc/even_faster_clear",
                   "fastc/fast_copy_page", "fastc/normal_copy_page", "fastc/slow_copy_page", "fastc/fast_copy_page",
                   "fastc/faster_copy", "fastc/even_faster"});
  if (name == "spraul")
    return by_ids({"fastc/fast_copy_page", "fastc/normal_copy_page", "fastc/slow_copy_page", "fastc/fast_copy_page",
                   "fastc/faster_copy", "fastc/even_faster", "fastc/no_prefetch"});
  if (name == "asami") {
    std::vector<const Preset*> v;
    for (uint32_t every : {32u, 0u})
      for (uint32_t scratch : {2u, 3u})
        for (uint32_t unroll = 32; unroll <= 256; unroll += 32) {
          const std::string id = "asami/unroll:" + std::to_string(unroll) + "/scratch:" + std::to_string(scratch) +
                                 "/every:" + std::to_string(every);
          v.push_back(by_ids({id.c_str()}).front());
        }
    v.push_back(find_preset("asami/fp_copy"));
    v.push_back(find_preset("asami/generic_bcopy"));
    return v;
  }
  if (name == "hahn")
    return by_ids({"fastc/normal_clear_page", "fastc/slow_zero_page", "hahn/fast_clear_page",
                   "fastc/faster_clear_page", "fastc/normal_copy_page", "fastc/slow_copy_page",
                   "hahn/fast_copy_page", "hahn/faster_copy", "hahn/even_faster"});
  if (name == "xmm64" || name == "reference") {
    auto v = by_ids({"fastc/fast_clear_page", "xmm64/kernel_clear", "fastc/normal_clear_page",
                     "fastc/slow_zero_page", "fastc/fast_clear_page", "fastc/faster_clear_page",
                     "fastc/even_faster_clear", "xmm64/xmm_clear", "xmm64/xmma_clear", "xmm64/xmm2_clear",
                     "xmm64/xmma2_clear", "xmm64/xmm3_clear", "xmm64/nt_clear", "xmm64/kernel_clear"});
    if (name == "reference") v.push_back(find_preset("hahn/fast_clear_page"));
    auto copies = by_ids({"fastc/fast_copy_page", "fastc/normal_copy_page", "fastc/slow_copy_page",
                          "fastc/fast_copy_page", "fastc/faster_copy", "fastc/even_faster"});
    if (name == "reference") copies.push_back(find_preset("fastc/no_prefetch"));
    for (auto* p : by_ids({"xmm64/xmm_copy_page_no", "xmm64/xmm_copy_page", "xmm64/xmma_copy_page",
                           "xmm64/xmm3_copy_page", "xmm64/v26_copy_page", "xmm64/nt_copy_page"}))
      copies.push_back(p);
    if (name == "reference")
      for (auto* p : by_ids({"hahn/fast_copy_page", "hahn/faster_copy", "hahn/even_faster"})) copies.push_back(p);
    v.insert(v.end(), copies.begin(), copies.end());
    return v;
  }
  if (name == "linux24" || name == "linux" || name == "freebsd") {
    std::vector<const Preset*> v;
    for (const auto& p : presets())
      if (p.family == name) v.push_back(&p);
    return v;
  }
  if (name == "all") {
    std::vector<const Preset*> v;
    for (const auto& p : presets()) v.push_back(&p);
    return v;
  }
  return {};
}

std::optional<Harness> preset_set_harness(std::string_view set) {
  if (set == "fastc" || set == "spraul") return Harness::fastc;
  if (set == "hahn") return Harness::hahn;
  if (set == "xmm64") return Harness::xmm64;
  return std::nullopt;
}

std::optional<Harness> preset_sets_harness(const std::vector<std::string>& names) {
  std::optional<Harness> h;
  for (const auto& n : names) {
    const auto own = preset_set_harness(n);
    if (!own || (h && *h != *own)) return std::nullopt;
    h = own;
  }
  return h;
}

const std::vector<UnavailablePreset>& unavailable_presets() {
  static const std::vector<UnavailablePreset> rows = {
      {"asami/bruce_bcopy", "Bruce's code", "asami",
       "Asami's post (seed 003, freebsd-current, 2 May 1996) says he started from \"Bruce's code\" and added the "
       "prefetch, but that unprefetched base copy is not in the recovered part of bcopy.tar.gz (docs/seed-kernels.md "
       "§7.1), the post does not show it, and no copy of the freebsd-current messages it came from was found in the "
       "archives searched; asami/unroll and asami/fp_copy are the package's own kernels"},
  };
  return rows;
}

const UnavailablePreset* find_unavailable_preset(std::string_view name) {
  const std::string_view key = trim(name);
  if (key.empty()) return nullptr;
  for (const auto& u : unavailable_presets())
    if (u.id == key || u.printed == key) return &u;
  return nullptr;
}

}  // namespace kex
