// kex: JIT kernel explorer for x86-64 memory copy and clear loops.
#include <csignal>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/cli/cli.hpp"
#include "src/core/affinity.hpp"
#include "src/core/limits.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/version.hpp"

namespace {
/// Error text on one line: control characters (a newline typed into a name) are escaped
/// and the middle of a very long message (a huge value echoed back) is left out.
std::string one_line(const std::string& s) { return kex::error_line(s); }

/// The exit status after stdout is flushed and closed: 2 with one line when output
/// was lost (unless a failure was already reported with 2).
int finish(int rc) {
  std::string lost = kex::close_stdout();
  if (lost.empty() || rc == 2) return rc;
  std::fprintf(stderr, "kex: %s\n", lost.c_str());
  return 2;
}

/// The subcommands in --help's order, each with the action it runs.
std::vector<std::pair<CLI::App*, kex::Action>> add_commands(CLI::App& app) {
  std::vector<std::pair<CLI::App*, kex::Action>> commands;
  for (kex::Action (*add)(CLI::App&) :
       {kex::add_run_command, kex::add_show_command, kex::add_list_command, kex::add_info_command,
        kex::add_segments_command, kex::add_plot_command, kex::add_compare_command, kex::add_export_command,
        kex::add_merge_command, kex::add_crossovers_command, kex::add_explain_command, kex::add_ceilings_command,
        kex::add_tune_command, kex::add_emit_command, kex::add_summary_command, kex::add_report_command,
        kex::add_libc_child_command}) {
    const size_t before = app.get_subcommands({}).size();
    kex::Action a = add(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(a));
  }
  for (auto& [sub, action] : commands)  // compare has its own -q (the summary line only)
    if (!sub->get_option_no_throw("--quiet"))
      sub->add_flag("-q,--quiet", kex::quiet_flag(),
                    "Quiet: no progress, no tables or notes beside the files written; errors, warnings and the output "
                    "asked for stay");
  return commands;
}

/// Runs the parsed subcommand's action; an error is one line on stderr and exit status
/// 2 (bad input, out of memory) or 1 (a bug).
int run_parsed(const std::vector<std::pair<CLI::App*, kex::Action>>& commands) {
  try {
    kex::check_open_file_limit();  // one clear line now, not a pipe that fails half-way
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
  } catch (const kex::InputError& e) {
    std::fprintf(stderr, "kex: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    // A results or config file with a field of the wrong type.
    std::fprintf(stderr, "kex: malformed input file: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    // The environment's limit, not a bug: a reader that knows its file says which.
    const std::string note = kex::limit_note(ENOMEM);
    std::fprintf(stderr, "kex: out of memory%s\n", note.empty() ? ": the machine's memory ran out" : note.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kex: internal error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"kex: JIT kernel explorer for x86-64 memory copy and clear loops"};
  app.set_version_flag("--version", kex::kex_version_line(), "Print the version, git commit and build type, then exit");
  app.require_subcommand(1);
  // Parse errors on one line, like every other kex error: "kex: <what> (see --help)".
  // The help that lists the option: the subcommand's, when one was given.
  app.failure_message([](const CLI::App* top, const CLI::Error& e) {
    const auto given = top->get_subcommands();
    const std::string help = given.empty() ? "kex --help" : "kex " + given.back()->get_name() + " --help";
    return std::string("kex: ") + one_line(e.what()) + " (see " + help + ")\n";
  });
  const std::vector<std::pair<CLI::App*, kex::Action>> commands = add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return run_parsed(commands);
}

}  // namespace

int main(int argc, char** argv) {
  kex::guard_standard_fds();  // before anything opens a file that could become stdout
  // A write past the file-size limit (ulimit -f) fails with EFBIG, which every writer
  // reports in one line (removing its temporary), instead of SIGXFSZ killing kex
  // half-way through. Ignored, it stays ignored in the worker and in gnuplot.
  std::signal(SIGXFSZ, SIG_IGN);
  kex::startup_cpus();  // the affinity mask before any pinning narrows it
  return finish(run(argc, argv));
}
