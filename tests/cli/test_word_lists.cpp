// Every closed word list of the command line comes from its set's table: the words
// `kex CMD --help` lists for an option are exactly the table's (enum_words), so a new
// table entry cannot leave an option stale (issue 36).
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "generators/disasm.hpp"
#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/model/point.hpp"
#include "src/model/results_format.hpp"
#include "src/model/spec.hpp"
#include "src/results/compare.hpp"
#include "src/results/emit_kernels.hpp"
#include "src/results/export.hpp"
#include "src/results/markdown.hpp"
#include "tests/support/shell.hpp"

namespace {

/// The words in braces on the line of `kex CMD --help` that declares `option`
/// (CLI11 writes a checked option as "--cache TEXT:{warm,cold}"); "" when none.
std::string help_words(const std::string& cmd, const std::string& option) {
  const ShellOut r = shell_stdout(kKex + " " + cmd + " --help");
  REQUIRE(r.status == 0);
  std::istringstream in(r.text);
  for (std::string line; std::getline(in, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, option.size() + 1, option + " ") != 0) continue;
    const size_t open = line.find('{', start), close = line.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return "";
    return line.substr(open + 1, close - open - 1);
  }
  return "";
}

std::string joined_words(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ",") + w;
  return s;
}

}  // namespace

TEST_CASE("word lists: every checked option of --help lists exactly its table's words") {
  const struct {
    const char* cmd;
    const char* option;
    std::vector<std::string> words;
  } cases[] = {
      {"compare", "--correction", kex::enum_words(kex::kCorrections)},
      {"compare", "--statistic", kex::enum_words(kex::kStatistics)},
      {"compare", "--format", kex::enum_words(kex::kTextFormats)},
      {"summary", "--format", kex::enum_words(kex::kTextFormats)},
      {"crossovers", "--cache", kex::enum_words(kex::kCacheModes)},
      {"tune", "--cache", kex::enum_words(kex::kCacheModes)},
      {"tune", "--op", kex::enum_words(kex::kLibcOps)},
      {"libc-child", "--op", kex::enum_words(kex::kLibcOps)},
      {"emit", "--format", kex::enum_words(kex::kSourceFormats)},
      {"emit", "--syntax", kex::enum_words(kex::kSyntaxes)},
      {"show", "--syntax", kex::enum_words(kex::kSyntaxes)},
      {"show", "--format", kex::enum_words(kex::kCodeFormats)},
      {"run", "--harness", kex::enum_words(kex::kHarnesses)},
      {"run", "--format", kex::enum_words(kex::kResultsFormats)},
      {"list", "WHAT", kex::list_topic_words()},
  };
  for (const auto& c : cases) {
    CAPTURE(c.cmd);
    CAPTURE(c.option);
    CHECK(help_words(c.cmd, c.option) == joined_words(c.words));
  }
}

TEST_CASE("word lists: the tables' words, each parsed back to its value") {
  CHECK(kex::enum_words(kex::kCorrections) == std::vector<std::string>{"bh", "holm", "none"});
  CHECK(kex::enum_words(kex::kHarnesses) == std::vector<std::string>{"kex", "fastc", "hahn", "xmm64", "mem_cp"});
  CHECK(kex::list_topic_words() == std::vector<std::string>{"classes", "params", "presets", "glibc", "streams", "all"});
  CHECK(kex::enum_from_word(kex::kCodeFormats, "hex") == kex::CodeFormat::hex);
  CHECK(kex::enum_from_word(kex::kResultsFormats, "csv") == kex::ResultsFormat::csv);
  CHECK_FALSE(kex::enum_from_word(kex::kTextFormats, "html").has_value());
  CHECK(kex::enum_word_list(kex::kStatistics) == "median, best");
  for (const auto h : kex::kHarnesses) CHECK(kex::parse_harness(kex::to_string(h)) == h);
  for (const auto m : kex::kCacheModes) CHECK(kex::parse_cache_mode(kex::to_string(m)) == m);
}

TEST_CASE("word lists: kex export names its tables' words for an unknown --format or --table, and its own help") {
  const ShellOut f = shell(kKex + " export none.json --format xml -o -");
  CHECK(f.status == 2);
  CHECK(f.text == "kex: --format: 'xml': allowed: " + kex::enum_word_list(kex::kExportFormats) + " (see kex export --help)\n");
  CHECK(f.text == "kex: --format: 'xml': allowed: csv, gbench (see kex export --help)\n");
  const ShellOut t = shell(kKex + " export none.json --format csv --table rows -o -");
  CHECK(t.status == 2);
  CHECK(t.text == "kex: --table: 'rows': allowed: entries, repetitions, samples (see kex export --help)\n");
  // An empty word is shown as one, and the help named is the subcommand's.
  const ShellOut e = shell(kKex + " export none.json --format '' -o -");
  CHECK(e.text == "kex: --format: '': allowed: csv, gbench (see kex export --help)\n");
  const ShellOut top = shell(kKex + " --bogus");
  CHECK(top.text == "kex: A subcommand is required (see kex --help)\n");
}
