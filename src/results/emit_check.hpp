// `kex emit --test`: the emitted source and its test program (emit_test.hpp) built with the
// system C compiler in a private temporary folder, the program run once per function it
// checks under a time limit, and a one-line verdict for each; the folder removed after.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "src/results/emit_kernels.hpp"

namespace kex {

/// What to build: the emitted file's text in its format, the test program's C source and
/// the functions it checks (their symbols, [a-z0-9_]: tested_functions).
struct EmitCheckInput {
  std::string source;
  SourceFormat format = SourceFormat::gas;
  std::string program;
  std::vector<std::string> functions;
};

/// One function's verdict, or the build's when it failed.
struct EmitCheckVerdict {
  std::string function;  ///< its symbol, or "build"
  bool passed = false;
  std::string line;      ///< the one line to print, escaped for a terminal
  double seconds = 0;    ///< how long its run took
};

/// How to build and run it.
struct EmitCheckOptions {
  std::string compiler = "cc";                              ///< run from PATH, no shell
  std::chrono::milliseconds build_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds run_timeout{std::chrono::seconds(60)};  ///< per function
  std::function<void(const EmitCheckVerdict&)> on_verdict;  ///< called with each verdict as it is known
};

/// Builds `in` (cc -O2 -o test test.c kernels.s|kernels.c in the folder) and runs the
/// program once per function; a failed build is one verdict "build" and nothing runs. A
/// verdict's line: "SYMBOL: passed: N calls, ... (2.1 s)", or "SYMBOL: failed: " and the
/// program's first line, how it ended when it printed none ("killed by SIGSEGV"), or "did
/// not finish within 60 s: killed". Throws InputError when the compiler (or the assembler
/// it runs) is not installed, naming the Debian package. SIGINT, SIGTERM and SIGHUP kill
/// what runs, remove the folder and then take their usual effect.
std::vector<EmitCheckVerdict> check_emitted(const EmitCheckInput& in, const EmitCheckOptions& opts = {});

}  // namespace kex
