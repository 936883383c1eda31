#include "cli.hpp"
namespace kex {
Action add_run_command(CLI::App& app) {
  app.add_subcommand("run", "Run a sweep");
  return []() { return 0; };
}
}  // namespace kex
