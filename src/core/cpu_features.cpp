#include "src/core/cpu_features.hpp"

#include <cpuid.h>

#include <array>
#include <cstring>
#include <utility>

#include <xbyak/xbyak_util.h>

namespace kex {

namespace {

constexpr std::array<FeatureRow, static_cast<size_t>(Feature::count_)> kFeatures = {{
    {Feature::mmx, "mmx", "MMX class, Linux 2.4 and fast.c presets"},
    {Feature::mmxext, "mmxext", "movntq (SSE or AMD MMX extensions)"},
    {Feature::amd3dnow, "3dnow", "femms in the Athlon presets"},
    {Feature::amd3dnowext, "3dnowext", ""},
    {Feature::prefetch3dnow, "3dnowprefetch", "3DNow! prefetch (0F 0D /0) in the Athlon presets"},
    {Feature::sse, "sse", "prefetchnta/t0/t1/t2, sfence"},
    {Feature::sse2, "sse2", "SSE class, movnti"},
    {Feature::sse3, "sse3", ""},
    {Feature::ssse3, "ssse3", ""},
    {Feature::sse4_1, "sse4_1", ""},
    {Feature::sse4_2, "sse4_2", ""},
    {Feature::avx, "avx", "AVX class (with OS YMM state)"},
    {Feature::avx2, "avx2", ""},
    {Feature::avx512f, "avx512f", "AVX-512 class (with OS ZMM state)"},
    {Feature::avx512dq, "avx512dq", ""},
    {Feature::avx512cd, "avx512cd", ""},
    {Feature::avx512bw, "avx512bw", ""},
    {Feature::avx512vl, "avx512vl", ""},
    {Feature::avx512ifma, "avx512ifma", ""},
    {Feature::avx512vbmi, "avx512vbmi", ""},
    {Feature::avx512vbmi2, "avx512_vbmi2", ""},
    {Feature::avx512vnni, "avx512_vnni", ""},
    {Feature::avx512bitalg, "avx512_bitalg", ""},
    {Feature::avx512vpopcntdq, "avx512_vpopcntdq", ""},
    {Feature::avx512bf16, "avx512_bf16", ""},
    {Feature::avx512fp16, "avx512_fp16", ""},
    {Feature::avx512vp2intersect, "avx512_vp2intersect", ""},
    {Feature::avx512pf, "avx512pf", ""},
    {Feature::avx512er, "avx512er", ""},
    {Feature::avx512_4vnniw, "avx512_4vnniw", ""},
    {Feature::avx512_4fmaps, "avx512_4fmaps", ""},
    {Feature::erms, "erms", "fast rep movsb/stosb"},
    {Feature::fsrm, "fsrm", "fast short rep movsb"},
    {Feature::fzlrm, "fzlrm", "fast zero-length rep movsb"},
    {Feature::fsrs, "fsrs", "fast short rep stosb"},
    {Feature::fsrcs, "fsrcs", "fast short rep cmpsb/scasb"},
    {Feature::prefetchw, "prefetchw", "prefetchw (0F 0D /1)"},
    {Feature::prefetchwt1, "prefetchwt1", ""},
    {Feature::clflushopt, "clflushopt", "cold-cache flushes"},
    {Feature::clwb, "clwb", ""},
    {Feature::clzero, "clzero", ""},
    {Feature::movdiri, "movdiri", ""},
    {Feature::movdir64b, "movdir64b", ""},
    {Feature::rdtscp, "rdtscp", ""},
    {Feature::invariant_tsc, "constant_tsc", "invariant TSC: ticks are wall time"},
    {Feature::hypervisor, "hypervisor", "running under a hypervisor"},
}};

constexpr bool table_in_order() {
  for (size_t i = 0; i < kFeatures.size(); ++i)
    if (static_cast<size_t>(kFeatures[i].feature) != i) return false;
  return true;
}
static_assert(table_in_order(), "kFeatures rows must follow the order of enum Feature");

struct Regs { uint32_t a = 0, b = 0, c = 0, d = 0; };
Regs cpuid(uint32_t leaf, uint32_t sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

/// The features Xbyak decodes, by its names.
FeatureSet xbyak_features() {
  using C = Xbyak::util::Cpu;
  const C cpu;
  static const std::pair<Feature, C::Type> kBits[] = {
      {Feature::mmx, C::tMMX},
      {Feature::mmxext, C::tMMX2},
      {Feature::amd3dnow, C::t3DN},
      {Feature::amd3dnowext, C::tE3DN},
      {Feature::sse, C::tSSE},
      {Feature::sse2, C::tSSE2},
      {Feature::sse3, C::tSSE3},
      {Feature::ssse3, C::tSSSE3},
      {Feature::sse4_1, C::tSSE41},
      {Feature::sse4_2, C::tSSE42},
      {Feature::avx, C::tAVX},
      {Feature::avx2, C::tAVX2},
      {Feature::avx512f, C::tAVX512F},
      {Feature::avx512dq, C::tAVX512DQ},
      {Feature::avx512cd, C::tAVX512CD},
      {Feature::avx512bw, C::tAVX512BW},
      {Feature::avx512vl, C::tAVX512VL},
      {Feature::avx512ifma, C::tAVX512_IFMA},
      {Feature::avx512vbmi, C::tAVX512_VBMI},
      {Feature::avx512vbmi2, C::tAVX512_VBMI2},
      {Feature::avx512vnni, C::tAVX512_VNNI},
      {Feature::avx512bitalg, C::tAVX512_BITALG},
      {Feature::avx512vpopcntdq, C::tAVX512_VPOPCNTDQ},
      {Feature::avx512bf16, C::tAVX512_BF16},
      {Feature::avx512fp16, C::tAVX512_FP16},
      {Feature::avx512vp2intersect, C::tAVX512_VP2INTERSECT},
      {Feature::avx512pf, C::tAVX512PF},
      {Feature::avx512er, C::tAVX512ER},
      {Feature::avx512_4vnniw, C::tAVX512_4VNNIW},
      {Feature::avx512_4fmaps, C::tAVX512_4FMAPS},
      {Feature::erms, C::tENHANCED_REP},
      {Feature::prefetchw, C::tPREFETCHW},
      {Feature::prefetchwt1, C::tPREFETCHWT1},
      {Feature::clflushopt, C::tCLFLUSHOPT},
      {Feature::clzero, C::tCLZERO},
      {Feature::movdiri, C::tMOVDIRI},
      {Feature::movdir64b, C::tMOVDIR64B},
      {Feature::rdtscp, C::tRDTSCP}};
  FeatureSet s;
  for (const auto& [f, t] : kBits)
    if (cpu.has(t)) s = s | f;
  return s;
}

FeatureSet probe() {
  using C = Xbyak::util::Cpu;
  const C cpu;
  FeatureSet s = xbyak_features();
  auto set = [&](Feature f, bool on) {
    if (on) s = s | f;
  };
  // Bits Xbyak 6.x does not decode.
  const uint32_t max = cpuid(0).a, max_ext = cpuid(0x80000000).a;
  if (max >= 7) {
    const Regs l7 = cpuid(7, 0);
    set(Feature::fsrm, l7.d >> 4 & 1);
    set(Feature::clwb, l7.b >> 24 & 1);
    if (l7.a >= 1) {
      const Regs l71 = cpuid(7, 1);
      set(Feature::fzlrm, l71.a >> 10 & 1);
      set(Feature::fsrs, l71.a >> 11 & 1);
      set(Feature::fsrcs, l71.a >> 12 & 1);
    }
  }
  // 3DNow! prefetch (0F 0D /0): 3DNowPrefetch (80000001 ECX bit 8) or 3DNow!. Xbyak
  // folds these into prefetchw and also sets that for every AMD long-mode CPU.
  if (max_ext >= 0x80000001) set(Feature::prefetch3dnow, (cpuid(0x80000001).c >> 8 & 1) || cpu.has(C::t3DN));
  if (max_ext >= 0x80000007) set(Feature::invariant_tsc, cpuid(0x80000007).d >> 8 & 1);
  set(Feature::hypervisor, cpuid(1).c >> 31 & 1);
  return s;
}

/// 12 bytes of CPUID registers as a string, trailing NULs dropped.
std::string regs_text(uint32_t r0, uint32_t r1, uint32_t r2) {
  char t[12];
  memcpy(t, &r0, 4);
  memcpy(t + 4, &r1, 4);
  memcpy(t + 8, &r2, 4);
  size_t n = 12;
  while (n && t[n - 1] == 0) --n;
  return std::string(t, n);
}

CpuIdentity probe_identity() {
  const Xbyak::util::Cpu cpu;
  CpuIdentity id;
  const Regs r0 = cpuid(0);
  id.vendor = regs_text(r0.b, r0.d, r0.c);
  id.family = cpu.displayFamily;
  id.model = cpu.displayModel;
  id.stepping = cpu.stepping;
  if (cpuid(0x80000000).a >= 0x80000004) {
    std::string brand;
    for (uint32_t i = 0; i < 3; ++i) {
      const Regs r = cpuid(0x80000002 + i);
      brand += regs_text(r.a, r.b, r.c) + regs_text(r.d, 0, 0);
    }
    brand = brand.c_str();  // the string ends at its first NUL
    const size_t a = brand.find_first_not_of(' '), b = brand.find_last_not_of(' ');
    id.brand = a == std::string::npos ? "" : brand.substr(a, b - a + 1);
  }
  if (cpuid(1).c >> 31 & 1) {
    const Regs h = cpuid(0x40000000);
    id.hypervisor_signature = regs_text(h.b, h.c, h.d);
    std::string second;
    if (id.hypervisor_signature == "Microsoft Hv") {
      const Regs k = cpuid(0x40000100);
      second = regs_text(k.b, k.c, k.d);
    }
    id.hypervisor = hypervisor_name(id.hypervisor_signature, second);
    if (id.hypervisor.empty()) id.hypervisor = "unknown (CPUID 0x40000000 is empty)";
  }
  return id;
}

// CPUID 0x40000000 signatures as the hypervisors publish them.
constexpr std::pair<std::string_view, std::string_view> kHypervisors[] = {
    {"KVMKVMKVM", "KVM"},
    {"Linux KVM Hv", "KVM (with the Hyper-V interface)"},
    {"Microsoft Hv", "Microsoft Hyper-V"},
    {"MicrosoftXTA", "Microsoft x86-to-ARM"},
    {"VMwareVMware", "VMware"},
    {"XenVMMXenVMM", "Xen"},
    {"bhyve bhyve ", "bhyve"},
    {"BHyVE BHyVE ", "bhyve"},
    {"TCGTCGTCGTCG", "QEMU TCG"},
    {"VBoxVBoxVBox", "VirtualBox"},
    {" lrpepyh  vr", "Parallels"},
    {"prl hyperv  ", "Parallels"},
    {"ACRNACRNACRN", "ACRN"},
    {" QNXQVMBSQG ", "QNX"},
    {"Jailhouse", "Jailhouse"},
    {"EVMMEVMMEVMM", "Intel KGT"},
    {"HAXMHAXMHAXM", "Intel HAXM"},
    {"___ NVMM ___", "NetBSD NVMM"},
    {"UnisysSpar64", "Unisys s-Par"},
    {"SRESRESRESRE", "Lockheed Martin LMHS"},
};

}  // namespace

std::string hypervisor_name(std::string_view signature, std::string_view second) {
  if (signature.empty()) return "";
  if (signature == "Microsoft Hv" && second == "KVMKVMKVM") return "KVM (with the Hyper-V interface)";
  for (const auto& [sig, name] : kHypervisors)
    if (signature == sig) return std::string(name);
  std::string shown;
  for (char c : signature) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
  return "unknown (\"" + shown + "\")";
}

const CpuIdentity& cpu_identity() {
  static const CpuIdentity id = probe_identity();
  return id;
}

std::span<const FeatureRow> feature_table() { return kFeatures; }

std::string_view feature_name(Feature f) { return kFeatures[static_cast<size_t>(f)].name; }

FeatureSet host_features() {
  static const FeatureSet s = probe();
  return s;
}

std::string feature_list(FeatureSet s) {
  std::string out;
  for (const auto& row : kFeatures)
    if (s.has(row.feature)) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

std::string missing_features(FeatureSet need) {
  const FeatureSet host = host_features();
  std::string out;
  for (const auto& row : kFeatures)
    if (need.has(row.feature) && !host.has(row.feature)) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

}  // namespace kex
