// `kex export FILE --format csv|gbench [--table entries|repetitions|samples] -o OUT`:
// another format for a results file.
#include <cstdio>
#include <stdexcept>

#include "src/core/atomic_write.hpp"
#include "src/core/enum_words.hpp"
#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/export.hpp"
#include "src/results/results.hpp"

namespace kex {

Action add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write a results file as CSV or as Google Benchmark JSON (tools/compare.py)");
  struct Args {
    std::string file, format, out, table = "entries";
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("FILE", a->file, "Results file from `kex run` or `kex merge`")->required();
  cmd->add_option("--format", a->format, enum_word_list(kExportFormats, " or "))
      ->required()
      ->check(one_of(enum_words(kExportFormats)));
  cmd->add_option("-o,--output", a->out, "Output file; - for standard output")->required();
  cmd->add_option("--table", a->table,
                  "csv: which table, one CSV each: entries (a row per point, the default), repetitions (a row per "
                  "repetition), samples (a row per sample); they join on name, repetition")
      ->check(one_of(enum_words(kCsvTables)));
  cmd->add_flag("--force", a->force, "Overwrite the output file");
  return [a]() {
    const auto format = enum_from_word(kExportFormats, a->format);  // words one_of checked
    const auto table = parse_csv_table(a->table);
    if (!format || !table) throw std::logic_error("kex export: a word one_of let through");
    if (*format != ResultsFormat::csv && *table != CsvTable::entries)
      throw InputError("--table: " + a->table + ": applies to --format csv (gbench has its own layout)");
    check_not_an_input("-o", a->out, {a->file});
    const std::vector<RunDoc> runs = load_results(a->file);
    std::string text = *format == ResultsFormat::csv ? to_csv(runs, *table) : to_gbench(runs).dump(2) + "\n";
    if (a->out == "-") {
      write_stdout(text);
      return 0;
    }
    write_file_atomic(a->out, text, a->force);
    return 0;
  };
}

}  // namespace kex
