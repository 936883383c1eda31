#include "src/results/gas_cpu_check.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

namespace kex {

namespace {

/// Where CPUID reports a feature: leaf, subleaf (ECX), register and bit; the XCR0 bits the
/// OS must have enabled for its registers (0: none). Intel SDM vol. 2A "CPUID", AMD APM
/// vol. 3 appendix E; XCR0: bits 1-2 SSE/AVX state, 5-7 AVX-512 state.
struct CpuidBit {
  Feature feature;
  uint32_t leaf, subleaf;
  char reg;  ///< 'b', 'c' or 'd': ebx, ecx, edx
  int bit;
  uint32_t xcr0;
};

constexpr uint32_t kAvxState = 0x6, kAvx512State = 0xe6;

constexpr std::array<CpuidBit, 20> kCpuidBits{{
    {Feature::sse3, 1, 0, 'c', 0, 0},
    {Feature::ssse3, 1, 0, 'c', 9, 0},
    {Feature::sse4_1, 1, 0, 'c', 19, 0},
    {Feature::sse4_2, 1, 0, 'c', 20, 0},
    {Feature::avx, 1, 0, 'c', 28, kAvxState},
    {Feature::avx2, 7, 0, 'b', 5, kAvxState},
    {Feature::erms, 7, 0, 'b', 9, 0},
    {Feature::avx512f, 7, 0, 'b', 16, kAvx512State},
    {Feature::avx512dq, 7, 0, 'b', 17, kAvx512State},
    {Feature::clflushopt, 7, 0, 'b', 23, 0},
    {Feature::clwb, 7, 0, 'b', 24, 0},
    {Feature::avx512bw, 7, 0, 'b', 30, kAvx512State},
    {Feature::avx512vl, 7, 0, 'b', 31, kAvx512State},
    {Feature::prefetchwt1, 7, 0, 'c', 0, 0},
    {Feature::movdiri, 7, 0, 'c', 27, 0},
    {Feature::movdir64b, 7, 0, 'c', 28, 0},
    {Feature::fsrm, 7, 0, 'd', 4, 0},
    {Feature::mmxext, 0x80000001, 0, 'd', 22, 0},
    {Feature::prefetchw, 0x80000001, 0, 'c', 8, 0},
    {Feature::clzero, 0x80000008, 0, 'b', 0, 0},
}};

bool baseline(Feature f) { return f == Feature::mmx || f == Feature::sse || f == Feature::sse2; }

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

/// CPUID leaf `leaf` (subleaf `sub`) into eax..edx, after checking the CPU reports that leaf
/// (its range's maximum, CPUID leaf 0 or 0x80000000); a CPU without it goes to `no`.
void cpuid(std::vector<AsmLine>& o, uint32_t leaf, uint32_t sub, const std::string& no) {
  const std::string range = hex(leaf & 0x80000000u), l = hex(leaf), s = hex(sub);
  o.push_back({"mov eax, " + range, "movl $" + range + ", %eax"});
  o.push_back({"cpuid", "cpuid"});
  o.push_back({"cmp eax, " + l, "cmpl $" + l + ", %eax"});
  o.push_back({"jb " + no, "jb " + no});
  o.push_back({"mov eax, " + l, "movl $" + l + ", %eax"});
  o.push_back({"mov ecx, " + s, "movl $" + s + ", %ecx"});
  o.push_back({"cpuid", "cpuid"});
}

/// The probe's body: each feature's bit, then the register state XCR0 must enable.
void probe_body(std::vector<AsmLine>& o, FeatureSet needs, const std::string& no, std::string& unchecked) {
  uint32_t xcr0 = 0;
  for (const FeatureRow& row : feature_table()) {
    if (!needs.has(row.feature) || baseline(row.feature)) continue;
    const CpuidBit* c = nullptr;
    for (const CpuidBit& b : kCpuidBits)
      if (b.feature == row.feature) c = &b;
    if (!c) {
      unchecked += (unchecked.empty() ? "" : ", ") + std::string(row.name);
      continue;
    }
    cpuid(o, c->leaf, c->subleaf, no);
    const std::string r = std::string("e") + c->reg + "x", bit = std::to_string(c->bit);
    o.push_back({"bt " + r + ", " + bit, "btl $" + bit + ", %" + r});
    o.push_back({"jnc " + no, "jnc " + no});
    xcr0 |= c->xcr0;
  }
  if (!xcr0) return;
  cpuid(o, 1, 0, no);  // OSXSAVE: the OS manages the state and XGETBV may be used
  o.push_back({"bt ecx, 27", "btl $27, %ecx"});
  o.push_back({"jnc " + no, "jnc " + no});
  const std::string m = hex(xcr0);
  o.push_back({"xor ecx, ecx", "xorl %ecx, %ecx"});
  o.push_back({"xgetbv", "xgetbv"});
  o.push_back({"and eax, " + m, "andl $" + m + ", %eax"});
  o.push_back({"cmp eax, " + m, "cmpl $" + m + ", %eax"});
  o.push_back({"jne " + no, "jne " + no});
}

}  // namespace

GasCpuCheck gas_cpu_check(FeatureSet needs, const std::string& symbol, const std::string& fast, const std::string& libc) {
  GasCpuCheck g;
  const std::string no = ".L" + symbol + "_no";
  std::vector<AsmLine> body;
  probe_body(body, needs, no, g.unchecked);
  if (body.empty()) return g;
  g.resolver = {{"push rbx", "pushq %rbx"}};  // CPUID writes ebx, callee-saved
  g.resolver.insert(g.resolver.end(), body.begin(), body.end());
  for (const AsmLine& l : std::vector<AsmLine>{{"lea rax, [rip + " + fast + "]", "leaq " + fast + "(%rip), %rax"},
                                               {"pop rbx", "popq %rbx"},
                                               {"ret", "ret"},
                                               {no + ":", no + ":"},
                                               {"lea rax, [rip + " + libc + "]", "leaq " + libc + "(%rip), %rax"},
                                               {"pop rbx", "popq %rbx"},
                                               {"ret", "ret"}})
    g.resolver.push_back(l);
  return g;
}

}  // namespace kex
