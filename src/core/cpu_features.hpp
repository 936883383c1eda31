// CPU features as data: one table of {feature, name}, read once from CPUID through
// Xbyak's util::Cpu (the bits Xbyak does not decode are read here). Kernels are
// gated on these, `kex info` and results list them (docs/STYLE.md rule 9). Also the
// CPU's identity (vendor, brand, family/model/stepping) and the hypervisor's name.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kex {

enum class Feature : uint8_t {
  mmx, mmxext, amd3dnow, amd3dnowext, prefetch3dnow, sse, sse2, sse3, ssse3, sse4_1, sse4_2,
  avx, avx2, avx512f, avx512dq, avx512cd, avx512bw, avx512vl, avx512ifma, avx512vbmi, avx512vbmi2,
  avx512vnni, avx512bitalg, avx512vpopcntdq, avx512bf16, avx512fp16, avx512vp2intersect,
  avx512pf, avx512er, avx512_4vnniw, avx512_4fmaps,
  erms, fsrm, fzlrm, fsrs, fsrcs, prefetchw, prefetchwt1, clflushopt, clwb, clzero, movdiri, movdir64b,
  rdtscp, invariant_tsc, hypervisor,
  count_
};

/// A set of features (bit i = Feature i).
struct FeatureSet {
  uint64_t bits = 0;
  constexpr FeatureSet() = default;
  constexpr FeatureSet(Feature f) : bits(uint64_t(1) << static_cast<unsigned>(f)) {}
  constexpr bool has(Feature f) const { return bits >> static_cast<unsigned>(f) & 1; }
  constexpr bool empty() const { return bits == 0; }
  constexpr FeatureSet operator|(FeatureSet o) const { FeatureSet s; s.bits = bits | o.bits; return s; }
  constexpr bool operator==(const FeatureSet&) const = default;
};
constexpr FeatureSet operator|(Feature a, Feature b) { return FeatureSet(a) | FeatureSet(b); }

/// One row of the feature table: the enum, its lower-case name as /proc/cpuinfo
/// spells it where it has one ("avx512f", "erms", "fsrm", "3dnowprefetch"), and a
/// short description of what kex uses it for.
struct FeatureRow {
  Feature feature;
  std::string_view name;
  std::string_view use;
};

/// Every feature kex knows, in a fixed order (the order of Feature).
std::span<const FeatureRow> feature_table();

/// The name of a feature ("avx512f").
std::string_view feature_name(Feature);

/// Features of the CPU this process runs on (CPUID, with XCR0 checked for AVX and
/// AVX-512 state), read once.
FeatureSet host_features();

/// The features of a set, as "sse2, avx"; "" for none.
std::string feature_list(FeatureSet s);

/// The features of `need` this CPU lacks, as "avx512f, movdir64b"; "" when none.
std::string missing_features(FeatureSet need);

/// Which CPU this is. Family, model and stepping come from Xbyak's util::Cpu
/// (display values: base plus extended family/model); the strings Xbyak does not
/// read come from CPUID directly.
struct CpuIdentity {
  std::string vendor;  ///< CPUID.0 vendor string: "AuthenticAMD", "GenuineIntel"
  std::string brand;   ///< CPUID 0x80000002..4 brand string, trimmed ("AMD EPYC"); "" when absent
  int family = 0, model = 0, stepping = 0;
  /// CPUID 0x40000000 EBX:ECX:EDX with trailing NULs dropped ("KVMKVMKVM"); "" when
  /// CPUID.1:ECX[31] (running under a hypervisor) is 0.
  std::string hypervisor_signature;
  /// hypervisor_name(hypervisor_signature): "KVM", "Microsoft Hyper-V", ...; "" on bare metal.
  std::string hypervisor;
};

/// The identity of the CPU this process runs on, read once.
const CpuIdentity& cpu_identity();

/// The hypervisor a CPUID 0x40000000 signature (trailing NULs dropped) names:
/// "KVMKVMKVM" -> "KVM", "Microsoft Hv" -> "Microsoft Hyper-V", "VMwareVMware" ->
/// "VMware", "XenVMMXenVMM" -> "Xen", "bhyve bhyve " -> "bhyve", "TCGTCGTCGTCG" ->
/// "QEMU TCG", ...; an unknown one -> `unknown ("SIG")` with non-printable bytes as
/// '?'; "" -> "". `second` is the signature at 0x40000100, where KVM sits when it
/// also offers the Hyper-V interface at 0x40000000 ("" when not read).
std::string hypervisor_name(std::string_view signature, std::string_view second = "");

}  // namespace kex
