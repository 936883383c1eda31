// KernelPlan: what one kernel of a run is, before any code exists (a generated
// spec, a named preset or a libc baseline), with the facts verification, placement
// and the writers need. Immutable once built (docs/STYLE.md rule 1).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/spec.hpp"

namespace Xbyak {
class CodeGenerator;
}

namespace kex {

enum class KernelKind { generated, baseline, preset };
std::string_view to_string(KernelKind);
std::optional<KernelKind> parse_kernel_kind(std::string_view);

/// How sure the reconstruction of a preset is (docs/seed-kernels.md gives it per kernel).
enum class Confidence { high, medium, low };
std::string_view to_string(Confidence);
std::optional<Confidence> parse_confidence(std::string_view);

/// The facts of a named preset that results carry (from generators/presets/).
struct PresetFacts {
  std::string id;            ///< "fastc/faster_copy"
  std::string printed;       ///< the name as the seed printed it
  std::string hahn_printed;  ///< the name Hahn's athlon.c printed ("" when not in its table)
  std::vector<std::string> aliases;
  std::string family;        ///< "fastc", "hahn", "xmm64", "linux24", "asami", ...
  std::string origin;        ///< author, date, message id or file and version
  Confidence confidence = Confidence::high;
  std::string notes;
  std::vector<std::string> features;       ///< features of the original ("mmx", "3dnow", "sse")
  std::vector<std::string> substitutions;  ///< deviations this CPU or the options forced ("femms -> emms ...")
  uint32_t region = 4096;    ///< bytes per call of the original routine (sizes are multiples)
  uint32_t alignment = 1;    ///< dst/src alignment it needs
  bool fsave = true;         ///< the fsave/frstor pair the originals timed is kept
  bool operator==(const PresetFacts&) const = default;
};

/// Which libc function a baseline calls ("memcpy", "memset"); rep-string baselines are specs.
struct LibcFacts {
  std::string function;
  uint8_t fill = 0;  ///< memset: the byte it writes
  bool operator==(const LibcFacts&) const = default;
};

/// One kernel of a run. Exactly one of spec / preset / libc describes it.
struct KernelPlan {
  std::string key;          ///< results "kernel": spec name, preset id or baseline name
  KernelKind kind = KernelKind::generated;
  Op op = Op::copy;
  uint8_t fill = 0;         ///< clears: the byte every destination byte must hold
  uint32_t alignment = 1;   ///< dst and src must be multiples of this
  uint32_t width = 8;       ///< register width (verification tries width-1)
  uint32_t unroll = 64;     ///< bytes per iteration (verification tries unroll+-1)
  uint64_t region = 1;      ///< sizes and chunks must be multiples of this (page presets: 4096)
  std::optional<KernelSpec> spec;
  std::optional<PresetFacts> preset;
  std::optional<LibcFacts> libc;
  std::string skip;         ///< why this CPU cannot run it ("" = runnable); it is then never executed
  std::string error;        ///< why it cannot be built at all (emission failed); "" = fine
  /// Emits the kernel (KernelFn ABI, ending in ret, relative branches only);
  /// empty for libc baselines.
  std::function<void(Xbyak::CodeGenerator&)> emit;
  KernelFn libc_fn = nullptr;  ///< libc baselines: the function, with the kernel ABI
};

}  // namespace kex
