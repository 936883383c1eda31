// One file per subcommand (cmd_*.cpp); each registers itself on the app and
// returns the action main() runs when that subcommand was given.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace kex {

/// Runs a parsed subcommand; returns the process exit status.
using Action = std::function<int()>;

/// Bad input from the user (config, option, file): main prints "kex: <what>" on
/// one line and exits with status 2. Nothing has been written when it is thrown.
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Action add_run_command(CLI::App& app);
Action add_show_command(CLI::App& app);
Action add_list_command(CLI::App& app);
Action add_info_command(CLI::App& app);
Action add_segments_command(CLI::App& app);
Action add_plot_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_export_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_crossovers_command(CLI::App& app);

/// Text of a config or schema built into the binary (configs/*.json), or nullptr.
const char* embedded_file(std::string_view name);

}  // namespace kex
