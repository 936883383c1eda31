// kex: JIT kernel explorer for x86-64 memory copy and clear loops.
#include <cstdio>
#include <utility>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kex: JIT kernel explorer for x86-64 memory copy and clear loops"};
  app.set_version_flag("--version", std::string("kex ") + KEX_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, kex::Action>> commands;
  auto reg = [&](kex::Action (*add)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    kex::Action a = add(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(a));
  };
  reg(kex::add_run_command);
  reg(kex::add_show_command);
  reg(kex::add_list_command);
  reg(kex::add_info_command);
  reg(kex::add_plot_command);
  reg(kex::add_compare_command);
  reg(kex::add_export_command);
  reg(kex::add_merge_command);
  reg(kex::add_crossovers_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
  } catch (const kex::UserError& e) {
    std::fprintf(stderr, "kex: %s\n", e.what());
    return 2;
  }
  return 0;
}
