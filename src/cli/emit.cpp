// `kex emit NAME... --format gas|c [-o FILE]`: kernels as source for another program,
// and with --dispatch a size-dispatching memcpy/memset over them (docs/commands.md).
#include <fmt/core.h>

#include <map>
#include <optional>

#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/output.hpp"
#include "src/model/dispatch_kernel.hpp"
#include "src/results/emit_c.hpp"
#include "src/results/emit_check.hpp"
#include "src/results/emit_gas.hpp"
#include "src/results/emit_kernels.hpp"
#include "src/results/emit_test.hpp"
#include "generators/disasm.hpp"
#include "src/results/results.hpp"
#include "src/results/tune_file.hpp"

namespace kex {

namespace {

struct EmitOptions {
  std::vector<std::string> names;
  std::string format, out = "-", syntax = "intel", results, dispatch, name, tune, test_program;
  std::optional<Op> op;  ///< --op (CLI11 checks the word against kLibcOps), or a tune's
  std::string dispatch_from = "--dispatch";  ///< where the dispatch came from, for errors: the option or FILE: /tune
  std::vector<std::string> loads;            ///< --load NAME=PATH:SYMBOL[:...]: what asm/NAME names
  bool force = false, no_fsave = false;
  bool test = false;          ///< --test: build the test program with cc and run it
  bool out_given = false;     ///< -o was on the command line
  double test_timeout = 60;   ///< --test-timeout: seconds each function's run may take
  bool test_timeout_given = false;  ///< --test-timeout was on the command line
};

/// Whether `s` is a C identifier of [a-z0-9_] that does not start with a digit.
bool plain_symbol(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

/// The --load options, parsed and checked (a NAME given twice is refused).
std::vector<LoadSpec> command_line_loads(const EmitOptions& o) {
  std::vector<LoadSpec> loads;
  for (const std::string& text : o.loads) loads.push_back(parse_load_option(text, "--load"));
  check_load_names(loads, "--load");
  return loads;
}

/// Adds the plan of `name` unless a kernel of the same key is there; returns its key.
std::string add_plan(std::vector<KernelPlan>& plans, const std::string& name, const PresetOptions& opts,
                     const std::string& where, const std::vector<LoadSpec>& loads) {
  KernelPlan p = source_plan(name, opts, where, where != "kex emit", loads);
  for (const auto& q : plans)
    if (q.key == p.key) return p.key;
  plans.push_back(std::move(p));
  return plans.back().key;
}

/// The dispatch of --dispatch/--op/--name, its rows renamed to the kernels' keys; the
/// kernels it needs are added to `plans`.
SourceDispatch read_dispatch(const EmitOptions& o, std::vector<KernelPlan>& plans, const PresetOptions& opts) {
  SourceDispatch d;
  d.table = parse_dispatch(o.dispatch, o.dispatch_from);
  // A tune file's rows are data: the command line's --load never applies to them.
  const std::vector<LoadSpec> loads = o.tune.empty() ? command_line_loads(o) : std::vector<LoadSpec>{};
  for (auto& e : d.table.entries) e.kernel = add_plan(plans, e.kernel, opts, o.dispatch_from, loads);
  const std::optional<Op> op = o.op;
  auto plan_of = [&](const std::string& key) -> const KernelPlan& {
    for (const auto& p : plans)
      if (p.key == key) return p;
    throw std::logic_error("dispatch kernel " + key + " has no plan");
  };
  const std::string& first = d.table.entries.front().kernel;
  d.op = op ? *op : plan_of(first).op;
  // A dispatch is a memcpy or a memset: a read kernel has neither signature.
  if (!parse_libc_op(to_string(d.op)))
    throw InputError(o.dispatch_from, "'" + first + "' is a " + std::string(to_string(d.op)) +
                                          " kernel: a dispatch is of " + enum_word_list(kLibcOps, " or ") + " kernels");
  const char* why = !op ? " (its first row)" : o.tune.empty() ? " (--op)" : " (the tune's op)";
  for (const auto& e : d.table.entries)
    if (plan_of(e.kernel).op != d.op)
      throw InputError(o.dispatch_from, "'" + e.kernel + "' is a " + std::string(to_string(plan_of(e.kernel).op)) +
                                            " kernel; the dispatch is a " + std::string(to_string(d.op)) + why);
  d.symbol = !o.name.empty() ? o.name : d.op == Op::copy ? "kex_memcpy" : "kex_memset";
  if (!plain_symbol(d.symbol))
    throw InputError("--name", "'" + d.symbol + "': a C identifier of a-z, 0-9 and _ (not starting with a digit)");
  return d;
}

/// What kex emit writes: the source and, with --test-program or --test, the test
/// program's and the functions it checks.
struct EmitTexts {
  std::string source, test;
  std::vector<std::string> functions;
};

EmitTexts emit_text(const EmitOptions& o) {
  if (o.names.empty() && o.dispatch.empty()) throw InputError("kex emit", "name a kernel, or give --dispatch");
  if (o.dispatch.empty() && (o.op || !o.name.empty())) throw InputError(o.op ? "--op" : "--name", "only with --dispatch");
  const PresetOptions opts{!o.no_fsave};
  std::vector<KernelPlan> plans;
  for (const auto& n : o.names) add_plan(plans, n, opts, "kex emit", command_line_loads(o));
  std::optional<SourceDispatch> dispatch;
  if (!o.dispatch.empty()) dispatch = read_dispatch(o, plans, opts);
  std::vector<RunDoc> runs;
  if (!o.results.empty()) runs = load_results(o.results);
  std::vector<SourceKernel> kernels;
  for (const auto& p : plans) {
    kernels.push_back(source_kernel(p));
    if (!o.results.empty()) add_measured(kernels.back(), runs, o.results);
  }
  check_symbols(kernels, dispatch ? std::vector<std::string>{dispatch->symbol, dispatch->symbol + "_nocheck"} : std::vector<std::string>{});
  std::vector<std::string> header = source_file_header();
  for (const auto& k : kernels)
    if (!k.libc) header.push_back("kernel " + k.symbol + ": " + k.name);
  if (dispatch) header.push_back("dispatch " + dispatch->symbol + ": " + dispatch_text(dispatch->table));
  const Syntax syntax = enum_from_word(kSyntaxes, o.syntax).value_or(Syntax::intel);
  const bool c = enum_from_word(kSourceFormats, o.format) == SourceFormat::c;
  EmitTexts texts;
  texts.source = c ? c_source(kernels, dispatch, syntax, header) : gas_source(kernels, dispatch, syntax, header);
  if (o.test_program.empty() && !o.test) return texts;
  texts.test = test_program(kernels, dispatch);
  for (const auto& f : tested_functions(kernels, dispatch)) texts.functions.push_back(f.first);
  return texts;
}

/// The options --test refuses, before any work: standard output is its verdicts'.
void check_test_options(const EmitOptions& o) {
  if (!o.test && o.test_timeout_given)
    throw InputError("--test-timeout", "applies to --test only (the time each function's test run may take)");
  if (o.test && o.out_given && o.out == "-")
    throw InputError("-o", "'-': --test prints its verdicts on standard output; give -o a file, or leave it out");
  if (!(o.test_timeout >= 0.01 && o.test_timeout <= 3600))
    throw InputError("--test-timeout", fmt::format("'{}': allowed: 0.01 to 3600 (seconds)", o.test_timeout));
}

/// --test: builds and runs the test program of `text`; prints a verdict a line; 0 when
/// every function passed, 1 otherwise.
int run_test(const EmitOptions& o, const EmitTexts& text) {
  EmitCheckInput in{text.source, enum_from_word(kSourceFormats, o.format).value_or(SourceFormat::gas), text.test,
                    text.functions};
  EmitCheckOptions opts;
  opts.run_timeout = std::chrono::milliseconds(int64_t(o.test_timeout * 1000 + 0.5));
  opts.on_verdict = [](const EmitCheckVerdict& v) { write_stdout(v.line + "\n"); };  // as each run ends
  bool passed = true;
  for (const EmitCheckVerdict& v : check_emitted(in, opts)) passed &= v.passed;
  return passed ? 0 : 1;
}

/// The checks of -o and --test-program against the inputs and each other, before any work.
void check_outputs(const EmitOptions& o) {
  check_not_an_input("-o", o.out, {o.results, o.tune});
  if (o.test_program.empty()) return;
  check_not_an_input("--test-program", o.test_program, {o.results, o.tune, o.out});
  if (o.test_program == "-") throw InputError("--test-program", "'-': a file name (-o writes standard output)");
  if (o.test_program == o.out) throw InputError("--test-program", "'" + o.out + "' is also -o's file: give another");
  check_output_path(o.test_program, o.force);
  if (o.out != "-") check_output_path(o.out, o.force);
}

/// --tune FILE: its dispatch table and op become --dispatch's and --op's.
void apply_tune(EmitOptions& o) {
  const TuneRecord t = load_tune(o.tune);
  if (t.dispatch.entries.empty()) throw InputError(o.tune + ": /tune/dispatch: empty: the tune decided no kernel");
  if (o.op && *o.op != t.op)
    throw InputError("--op", "'" + std::string(to_string(*o.op)) + "': " + o.tune + " is a " + std::string(to_string(t.op)) +
                                 " tune (leave --op out with --tune)");
  o.dispatch = dispatch_text(flat_dispatch(t.dispatch));  // checked as the tune file was read
  o.op = t.op;
  o.dispatch_from = o.tune + ": /tune/dispatch";
}

/// kex emit: writes the source (and the test program), or with --test checks it.
int run_emit(EmitOptions& o) {
  check_test_options(o);
  check_outputs(o);
  if (!o.tune.empty()) apply_tune(o);
  const EmitTexts text = emit_text(o);
  if (o.test && text.functions.empty())
    throw InputError("--test", "nothing to check: every kernel named is the C library's own");
  if (!o.test_program.empty()) write_file_atomic(o.test_program, text.test, o.force);
  if (o.out != "-") write_file_atomic(o.out, text.source, o.force);
  else if (!o.test) write_stdout(text.source);
  return o.test ? run_test(o, text) : 0;
}

}  // namespace

Action add_emit_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("emit", "Write kernels (and a size dispatch over them) as GNU as or C source to "
                                         "link into another program");
  auto o = std::make_shared<EmitOptions>();
  cmd->add_option("NAME", o->names,
                  "Kernels: spec names (copy/avx/unroll:256/nt), presets (linux/copy_page, 'xmm_clear') or "
                  "rep_movsb, rep_stosb, memcpy, memset");
  cmd->add_option("--format", o->format, "gas (a .s file for as) or c (machine code in C arrays)")
      ->required()
      ->check(one_of(enum_words(kSourceFormats)));
  cmd->add_option("-o,--output", o->out, "Output file (default -: standard output)");
  cmd->add_flag("--force", o->force, "Overwrite the output file");
  cmd->add_option("--syntax", o->syntax, "Instruction syntax: intel (default) or att")
      ->check(one_of(enum_words(kSyntaxes)));
  cmd->add_option("--results", o->results,
                  "A results file: each kernel's measured sizes and GB/s go into its comment");
  cmd->add_option("--dispatch", o->dispatch,
                  "Also write a function dispatching on n: 'SIZE:NAME,SIZE:NAME,...,NAME' (n <= SIZE goes to NAME, "
                  "bounds ascending; the last NAME takes every larger n)");
  cmd->add_option("--tune", o->tune,
                  "A results file from kex tune: its dispatch table and op, as --dispatch and --op")
      ->excludes("--dispatch");
  cmd->add_option_function<std::string>(
         "--op", [o](const std::string& w) { o->op = parse_libc_op(w); },
         "The dispatch's operation: copy (memcpy signature) or clear (memset); default: that of its first kernel")
      ->check(one_of(enum_words(kLibcOps)));
  cmd->add_option("--name", o->name, "The dispatch function's name (default kex_memcpy or kex_memset)");
  cmd->add_option("--test-program", o->test_program,
                  "Also write a C program that checks the emitted memcpy/memset (the dispatch, else each wrapper) "
                  "against the C library at every size 0..4097 and offset 0..63, and larger sizes");
  cmd->add_flag("--test", o->test,
                "Build the source and its test program with the system cc in a temporary folder and run it: a "
                "verdict a line; exit status 1 when a check fails (the source goes to -o only when given)");
  cmd->add_option("--test-timeout", o->test_timeout,
                  "Seconds each function's test run may take before it is killed (default 60)");
  cmd->add_flag("--no-fsave", o->no_fsave, "Presets: drop the fsave/frstor pair the originals timed");
  cmd->add_option("--load", o->loads,
                  "NAME=PATH:SYMBOL[:copy|move|clear] of object code (.s, .S, .o, lib.a(member)): asm/NAME is then "
                  "written as the bytes kex loaded, with their path, symbol and sha256 (repeatable)");
  return [o, cmd]() {
    o->out_given = cmd->count("-o") > 0;
    o->test_timeout_given = cmd->count("--test-timeout") > 0;
    return run_emit(*o);
  };
}

}  // namespace kex
