#include "src/run/mca.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "src/core/process.hpp"
#include "generators/disasm.hpp"
#include "generators/disasm_ext.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

namespace {

constexpr size_t kMcaOutputCap = 1 << 20;  // bytes of llvm-mca output kept
constexpr std::chrono::seconds kMcaTimeout{30};

/// Runs `argv` (argv[0] a path): its stdout and stderr (capped) and how it ended; not
/// started when it could not be (no pipe or process left: explain goes on without it).
ProcessEnd mca_run_tool(const std::vector<std::string>& argv) {
  ProcessSpec spec(argv);
  spec.output_cap = kMcaOutputCap;
  spec.timeout = kMcaTimeout;
  try {
    return run_process(spec);
  } catch (const std::exception&) {
    return {};
  }
}

/// `name` found in a directory of PATH, executable; "" when none.
std::string mca_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(at, end - at);
    const std::string p = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
    at = end + 1;
  }
  return {};
}

McaTool mca_probe_tool() {
  McaTool t;
  const char* env = std::getenv("KEX_LLVM_MCA");
  const std::string path = env && *env ? std::string(env) : mca_on_path("llvm-mca");
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
    t.missing = env && *env ? "llvm-mca not found at KEX_LLVM_MCA (Debian package llvm)"
                            : "llvm-mca not found on PATH (Debian package llvm)";
    return t;
  }
  const ProcessEnd v = mca_run_tool({path, "--version"});
  t.llvm_major = parse_llvm_major(v.output);
  if (!v.started || t.llvm_major == 0) {
    t.missing = "llvm-mca --version names no LLVM version";
    return t;
  }
  t.path = path;
  return t;
}

/// Runs llvm-mca on `source` written to a temporary file; the summary or `why`.
std::optional<McaSummary> run_mca(const McaTool& tool, const std::string& mcpu, const std::string& source,
                                  std::string* why) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/kex-mca-XXXXXX.s";
  const int fd = ::mkstemps(path.data(), 2);
  if (fd < 0) {
    *why = "llvm-mca: cannot make a temporary file: " + std::string(std::strerror(errno));
    return std::nullopt;
  }
  const bool written = ::write(fd, source.data(), source.size()) == ssize_t(source.size());
  ::close(fd);
  ProcessEnd r;
  if (written)
    r = mca_run_tool({tool.path, "-mtriple=x86_64", "-mcpu=" + mcpu, "-iterations=100", "-instruction-info=false",
                  "-resource-pressure=false", path});
  ::unlink(path.c_str());
  if (!written || !r.started) {
    *why = "llvm-mca: could not be run";
    return std::nullopt;
  }
  if (r.timed_out) {
    *why = "llvm-mca: no answer in 30 s";
    return std::nullopt;
  }
  if (!r.ok()) {
    *why = "llvm-mca failed: " + mca_failure_line(r.output);
    return std::nullopt;
  }
  return parse_mca(r.output, why);
}

}  // namespace

const McaTool& mca_tool() {
  static const McaTool tool = mca_probe_tool();
  return tool;
}

std::string marked_loop_source(const KernelSpec& s) {
  CodeArena arena;
  std::optional<LoopRange> loop;
  const size_t i = arena.add([&](Xbyak::CodeGenerator& g) { loop = emit_kernel(g, s); });
  arena.finalize();
  if (!loop) return {};
  const CodeRef r = arena.ref(i);
  const std::string symbol = kernel_symbol(spec_name(s));
  return format_asm(disassemble_all(r.code, r.size, Syntax::intel), r.code, r.size, Syntax::intel, symbol, {},
                    McaRegion{loop->begin, loop->end, symbol});
}

namespace {

/// The llvm-mca and its -mcpu for the CPU, or false with `p.why` set.
bool mca_model(McaPrediction& p, McaCpu& cpu, const std::string& vendor, int family, int model) {
  const McaTool& tool = mca_tool();
  if (tool.path.empty()) {
    p.why = tool.missing;
    return false;
  }
  cpu = mca_cpu(vendor, family, model, tool.llvm_major);
  if (cpu.mcpu.empty()) p.why = cpu.note;
  return !cpu.mcpu.empty();
}

}  // namespace

McaPrediction predict_loop(const KernelSpec& s, const std::string& vendor, int family, int model) {
  McaPrediction p;
  p.bytes_per_iteration = s.unroll;
  McaCpu cpu;
  if (!mca_model(p, cpu, vendor, family, model)) return p;
  const std::string source = s.regs == RegClass::string ? std::string() : marked_loop_source(s);
  if (source.empty()) {
    p.why = "no marked loop: a rep string instruction is its own loop";
    return p;
  }
  p.mcpu = cpu.mcpu;
  p.note = cpu.note;
  const McaAvx512 zmm = mca_avx512(cpu.mcpu, family, s.regs == RegClass::avx512);
  if (!zmm.refusal.empty()) {
    p.why = zmm.refusal;
    return p;
  }
  if (!zmm.note.empty()) p.note += (p.note.empty() ? "" : "; ") + zmm.note;
  if (std::optional<McaSummary> sum = run_mca(mca_tool(), cpu.mcpu, source, &p.why)) p.summary = *sum;
  return p;
}

McaPrediction predict_code(const std::vector<uint8_t>& code, const std::string& symbol, const std::string& vendor,
                           int family, int model) {
  McaPrediction p;
  McaCpu cpu;
  if (!mca_model(p, cpu, vendor, family, model)) return p;
  const std::vector<Insn> insns = disassemble_all(code.data(), code.size(), Syntax::intel);
  if (insns.empty()) {
    p.why = "no instruction decoded";
    return p;
  }
  p.mcpu = cpu.mcpu;
  p.note = cpu.note;
  const std::string source = format_asm(insns, code.data(), code.size(), Syntax::intel, symbol, {},
                                        McaRegion{0, code.size(), symbol});
  if (std::optional<McaSummary> sum = run_mca(mca_tool(), cpu.mcpu, source, &p.why)) p.summary = *sum;
  return p;
}

}  // namespace kex
