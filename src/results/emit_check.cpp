// Builds and runs kex emit's test program (src/results/emit_check.hpp).
#include "src/results/emit_check.hpp"

#include <sys/wait.h>

#include <fmt/core.h>
#include <csignal>
#include <optional>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "src/core/process.hpp"
#include "src/core/temp_dir.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

namespace {

constexpr size_t kOutputCap = 64 << 10;  // bytes of a compiler's or the program's output kept

/// The first line of `text` that is not empty, without its newline.
std::string first_line(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

/// Refuses a compiler that could not be started, or that could not start the assembler,
/// in one line naming the Debian package.
void check_tools_found(const ProcessEnd& end, const std::string& compiler) {
  if (!end.started)
    throw InputError("--test", "cannot run " + terminal_text(compiler) + ", the C compiler (" +
                                   errno_text(end.start_errno) + "): install the Debian package gcc");
  if (end.output.find("cannot execute 'as'") != std::string::npos)
    throw InputError("--test",
                     terminal_text(compiler) + " cannot run as, the assembler: install the Debian package binutils");
}

/// Compiles the test program and the emitted file in `dir`; a verdict "build" when it failed.
std::optional<EmitCheckVerdict> build(const TempDir& dir, const EmitCheckInput& in, const EmitCheckOptions& opts,
                                      const volatile std::sig_atomic_t* stop) {
  const std::string source = in.format == SourceFormat::c ? "kernels.c" : "kernels.s";
  write_file_atomic(dir / "test.c", in.program, true);
  write_file_atomic(dir / source, in.source, true);
  ProcessSpec spec({opts.compiler, "-O2", "-o", "test", "test.c", source});
  spec.dir = dir.path();
  spec.env = {{"TMPDIR", dir.path()}};  // cc's temporaries too: a build a stop kills leaves none elsewhere
  spec.output_cap = kOutputCap;
  spec.timeout = opts.build_timeout;
  spec.stop = stop;
  const ProcessEnd end = run_process(spec);
  check_tools_found(end, opts.compiler);
  if (end.ok()) return std::nullopt;
  const std::string said = first_line(end.output);
  EmitCheckVerdict v;
  v.function = "build";
  v.line = error_line("build: failed: " + opts.compiler + " " + end.how() + (said.empty() ? "" : ": " + said));
  return v;
}

/// Runs the built program for `function` and judges what it said.
EmitCheckVerdict run_one(const TempDir& dir, const std::string& function, const EmitCheckOptions& opts,
                         const volatile std::sig_atomic_t* stop) {
  ProcessSpec spec({"./test", function});
  spec.dir = dir.path();
  spec.output_cap = kOutputCap;
  spec.timeout = opts.run_timeout;
  spec.stop = stop;
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessEnd end = run_process(spec);
  EmitCheckVerdict v;
  v.function = function;
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string said = first_line(end.output);
  v.passed = end.ok() && said.rfind("ok: ", 0) == 0;
  if (v.passed) v.line = function + ": passed: " + said.substr(4) + fmt::format(" ({:.1f} s)", v.seconds);
  else if (!said.empty() && end.started && !end.timed_out && !end.stopped && WIFEXITED(end.status))
    v.line = function + ": failed: " + said;  // the program's own line says what went wrong
  else v.line = function + ": failed: " + end.how() + (said.empty() ? "" : ": " + said);
  v.line = error_line(v.line);
  return v;
}

}  // namespace

std::vector<EmitCheckVerdict> check_emitted(const EmitCheckInput& in, const EmitCheckOptions& opts) {
  const StopSignalsNoted stops;  // first: a stop is raised again after the folder is gone
  const TempDir dir("kex-emit-test");
  std::vector<EmitCheckVerdict> verdicts;
  auto note = [&](EmitCheckVerdict v) {
    if (opts.on_verdict) opts.on_verdict(v);
    verdicts.push_back(std::move(v));
  };
  // A run a stop killed has no verdict: kex stops as the signal says once the folder is gone.
  std::optional<EmitCheckVerdict> failed = build(dir, in, opts, stops.flag());
  if (failed && !*stops.flag()) note(*failed);
  for (size_t i = 0; !failed && i < in.functions.size() && !*stops.flag(); ++i) {
    EmitCheckVerdict v = run_one(dir, in.functions[i], opts, stops.flag());
    if (!*stops.flag()) note(std::move(v));
  }
  return verdicts;
}

}  // namespace kex
