#include "src/run/mca.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "generators/disasm.hpp"
#include "generators/disasm_ext.hpp"
#include "generators/emit.hpp"
#include "generators/jit.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

namespace {

constexpr size_t kMcaOutputCap = 1 << 20;  // bytes of llvm-mca output kept
constexpr int kMcaTimeoutMs = 30000;

/// What a child printed (stdout and stderr, capped) and how it ended.
struct McaRun {
  bool started = false;
  int status = 0;
  bool timed_out = false;
  std::string out;
};

/// Reads `fd` into `out` (at most kMcaOutputCap bytes kept) until EOF or the deadline.
bool mca_drain(int fd, std::string& out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kMcaTimeoutMs);
  char buf[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, int(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < kMcaOutputCap) out.append(buf, std::min(size_t(n), kMcaOutputCap - out.size()));
  }
}

/// Runs `argv` (argv[0] a path) with stdin on /dev/null, stdout and stderr into one pipe.
McaRun mca_run_tool(const std::vector<std::string>& argv) {
  McaRun t;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return t;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return t;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(126);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  t.started = true;
  t.timed_out = !mca_drain(fds[0], t.out);
  ::close(fds[0]);
  if (t.timed_out) ::kill(pid, SIGKILL);
  while (::waitpid(pid, &t.status, 0) < 0 && errno == EINTR) {
  }
  return t;
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
  const McaRun v = mca_run_tool({path, "--version"});
  t.llvm_major = parse_llvm_major(v.out);
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
  McaRun r;
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
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    *why = "llvm-mca failed: " + mca_failure_line(r.out);
    return std::nullopt;
  }
  return parse_mca(r.out, why);
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
