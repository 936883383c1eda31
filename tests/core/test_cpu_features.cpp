#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "src/core/cpu_features.hpp"

using namespace kex;

namespace {
/// The first /proc/cpuinfo block as key -> value.
std::map<std::string, std::string> cpuinfo() {
  std::map<std::string, std::string> m;
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line) && !line.empty()) {
    const size_t c = line.find(':');
    if (c == std::string::npos) continue;
    std::string k = line.substr(0, c), v = c + 2 <= line.size() ? line.substr(c + 2) : "";
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
    m[k] = v;
  }
  return m;
}
}  // namespace

TEST_CASE("hypervisor signatures come out as names" * doctest::test_suite("cpu")) {
  CHECK(hypervisor_name("KVMKVMKVM") == "KVM");
  CHECK(hypervisor_name("Microsoft Hv") == "Microsoft Hyper-V");
  CHECK(hypervisor_name("Microsoft Hv", "KVMKVMKVM") == "KVM (with the Hyper-V interface)");
  CHECK(hypervisor_name("VMwareVMware") == "VMware");
  CHECK(hypervisor_name("XenVMMXenVMM") == "Xen");
  CHECK(hypervisor_name("bhyve bhyve ") == "bhyve");
  CHECK(hypervisor_name("TCGTCGTCGTCG") == "QEMU TCG");
  CHECK(hypervisor_name("") == "");
  CHECK(hypervisor_name(std::string("AB\x01" "CD", 5)) == "unknown (\"AB?CD\")");
}

TEST_CASE("CPU identity agrees with /proc/cpuinfo" * doctest::test_suite("cpu")) {
  const auto info = cpuinfo();
  const CpuIdentity& id = cpu_identity();
  REQUIRE(info.count("vendor_id"));
  CHECK(id.vendor == info.at("vendor_id"));
  CHECK(std::to_string(id.family) == info.at("cpu family"));
  CHECK(std::to_string(id.model) == info.at("model"));
  CHECK(std::to_string(id.stepping) == info.at("stepping"));
  std::string name = info.at("model name");
  while (!name.empty() && name.back() == ' ') name.pop_back();
  std::set<std::string> flags;
  std::istringstream fl(info.at("flags"));
  for (std::string w; fl >> w;) flags.insert(w);
  // The kernel read the brand string at boot; a hypervisor may give another one later (seen on
  // a Zen 5 VM: CPUID "Oxide Virtual Turin-like Processor", /proc/cpuinfo "AMD EPYC").
  if (flags.count("hypervisor") && id.brand != name) {
    MESSAGE("CPUID brand '" << id.brand << "' differs from /proc/cpuinfo's '" << name << "' under a hypervisor");
    CHECK(!id.brand.empty());
    CHECK(id.brand.find_first_not_of(' ') == 0);
  } else {
    CHECK(id.brand == name);
  }
  CHECK(id.hypervisor.empty() == !flags.count("hypervisor"));
  if (flags.count("hypervisor")) {
    CHECK(!id.hypervisor_signature.empty());
    CHECK(id.hypervisor_signature.size() <= 12);
    CHECK(id.hypervisor == hypervisor_name(id.hypervisor_signature, id.hypervisor == "KVM (with the Hyper-V interface)" ? "KVMKVMKVM" : ""));
    MESSAGE("hypervisor: " << id.hypervisor << " (signature \"" << id.hypervisor_signature << "\")");
  }
}

TEST_CASE("features Xbyak and kex decode match the kernel's /proc/cpuinfo flags" * doctest::test_suite("cpu")) {
  std::set<std::string> flags;
  std::istringstream fl(cpuinfo().at("flags"));
  for (std::string w; fl >> w;) flags.insert(w);
  const FeatureSet host = host_features();
  // Features whose /proc/cpuinfo flag means the same CPUID bit (and, for AVX, OS state).
  for (Feature f : {Feature::sse2, Feature::ssse3, Feature::sse4_1, Feature::sse4_2, Feature::avx, Feature::avx2,
                    Feature::avx512f, Feature::avx512bw, Feature::avx512vl, Feature::avx512vbmi2, Feature::erms,
                    Feature::fsrm, Feature::clflushopt, Feature::clwb, Feature::clzero, Feature::movdiri,
                    Feature::movdir64b}) {
    CAPTURE(feature_name(f));
    CHECK(host.has(f) == (flags.count(std::string(feature_name(f))) == 1));
  }
  CHECK(feature_list(Feature::sse2 | Feature::erms) == "sse2, erms");
  CHECK(feature_list(FeatureSet{}) == "");
}
