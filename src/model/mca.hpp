// llvm-mca's model of the core (docs/methodology.md "A model of the core"): which
// -mcpu names this CPU's nearest scheduling model in a given LLVM, and what llvm-mca's
// summary of the marked main loop says. Pure text and tables; src/run/mca.hpp runs the tool.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kex {

/// The -mcpu llvm-mca is given for a CPU, or why there is none.
struct McaCpu {
  std::string mcpu;  ///< "znver3", "skylake-avx512"; "" when no model fits (note says why)
  std::string note;  ///< "LLVM 14 has no Zen 5 model: znver3 used"; "" when the model is the CPU's own
};

/// The nearest scheduling model of LLVM `llvm_major` for a CPU by CPUID vendor
/// ("AuthenticAMD", "GenuineIntel") and display family/model (family 0x19 = 25). AMD:
/// Zen 1 (family 0x17, model < 0x30) znver1, Zen 2 znver2, Zen 3 (0x19, models 0x00-0x0f,
/// 0x20-0x5f) znver3, Zen 4 (other 0x19 models) znver4 from LLVM 16, and Zen 5 (0x1a)
/// znver5 from LLVM 19, the newest one LLVM has otherwise. Intel family 6 by model
/// (Haswell .. Sapphire Rapids). Anything else: mcpu "" with the reason.
McaCpu mca_cpu(const std::string& vendor, int family, int model, int llvm_major);

/// llvm-mca's summary of the one marked region (its default or summary view):
/// "Iterations:", "Instructions:", "Total Cycles:" and "Block RThroughput:".
struct McaSummary {
  uint64_t iterations = 0, instructions = 0, total_cycles = 0;
  double block_rthroughput = 0;  ///< llvm-mca's reciprocal throughput of one iteration, core cycles
  /// Core cycles per iteration: total cycles / iterations (start-up and drain included,
  /// amortised over the iterations).
  double cycles_per_iteration() const { return iterations ? double(total_cycles) / double(iterations) : 0; }
};

/// Parses llvm-mca's output. nullopt, with `why` set to one line, when a field is
/// missing or out of range, or when the output holds more than one code region.
std::optional<McaSummary> parse_mca(std::string_view out, std::string* why);

/// The LLVM major version in `llvm-mca --version` output ("LLVM version 14.0.6"); 0
/// when absent.
int parse_llvm_major(std::string_view version_output);

}  // namespace kex

namespace kex {

/// What becomes of an AVX-512 kernel's prediction from a model of a core without AVX-512
/// (LLVM 14's znver3 for Zen 4 and 5; Intel client models): LLVM takes its zmm
/// instructions and costs them as that core's ymm ones. Both "" when the model has
/// AVX-512 or the kernel none.
struct McaAvx512 {
  /// AMD family 0x1a (Zen 5, a 512-bit datapath: a zmm move costs what a ymm one does,
  /// measured within 4%, benchmarks/results/2026-12-04-mca.md): the prediction stands
  /// with this caveat.
  std::string note;
  /// Any other CPU (Zen 4 splits a zmm operation into two 256-bit halves): the figure
  /// would be wrong by up to 2x, so there is none, and this says why.
  std::string refusal;
};
McaAvx512 mca_avx512(const std::string& mcpu, int family, bool uses_avx512);

/// The line of a failed llvm-mca's output (stdout and stderr) that says why: the first
/// one with "error", else the first line; at most 200 bytes; "no output" when empty.
std::string mca_failure_line(std::string_view out);

}  // namespace kex
