// The journal's names and header: journal_path and its inverse output_for_journal,
// the header's one field table (written, read back equal; refusals name the field),
// and read_journal's handling of a torn last line.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/run/journal.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

JournalHeader sample_header() {
  JournalHeader h;
  h.kex_version = "0.1.0";
  h.git_commit = "abc1234";
  h.request.run_id = "0123456789abcdef";
  h.machine = "Some CPU [25/1/1]";
  h.request.format = ResultsFormat::csv;
  h.request.shard_index = 1;
  h.request.shard_count = 3;
  h.request.filter = "-/avx/";
  h.drew_figures = true;
  h.output_name = "out.csv";
  h.request.protocol.repetitions = 5;
  h.request.protocol.seed = UINT64_MAX;
  h.request.protocol.cpu = 3;
  h.request.protocol.sentinel.threshold = 0.2;
  h.request.protocol.counters = {"cycles", "instructions"};
  h.request.configs = {parse_config(R"({"sizes": [4096], "kernels": [{"op": "copy", "regs": "sse"}]})", "c.json")};
  return h;
}

}  // namespace

TEST_CASE("journal_path: OUT.journal beside OUT, a name too long for that shortened with a hash, and output_for_journal inverts it") {
  CHECK(journal_path("out.json") == "out.json.journal");
  CHECK(journal_path("d/e/out.json") == "d/e/out.json.journal");
  CHECK(journal_path("-") == "kex-run.journal");
  CHECK(output_for_journal("d/out.json.journal", "") == "d/out.json");
  CHECK(output_for_journal("out.json.journal", "ignored.json") == "out.json");
  CHECK(output_for_journal("-.journal", "") == "./-");  // a file named '-', never stdout
  const std::string fits(247, 'a');  // 247 + ".journal" = 255 bytes
  CHECK(journal_path("d/" + fits) == "d/" + fits + ".journal");
  const std::string longer(248, 'b');
  const std::string j = journal_path("d/" + longer);
  CHECK(j.size() == 2 + 255);
  CHECK(j.rfind("d/" + std::string(230, 'b') + "-", 0) == 0);
  CHECK(j.substr(j.size() - 8) == ".journal");
  CHECK(journal_path("d/" + longer) == j);  // the same name every time
  CHECK(journal_path("d/" + longer + "x") != j);
  CHECK(output_for_journal(j, longer) == "d/" + longer);
  // The header's name counts only when it is the name this journal was made for;
  // otherwise the journal's own name without ".journal" is the output.
  CHECK(output_for_journal(j, longer + "x") == j.substr(0, j.size() - 8));
  CHECK(output_for_journal(j, "../" + longer) == j.substr(0, j.size() - 8));
  CHECK(input_error_of([] { output_for_journal("d/.journal", ""); }).find("not a journal name kex gives") != std::string::npos);
  CHECK(input_error_of([] { output_for_journal("d/run.log", "x"); }).find("not a journal name kex gives") != std::string::npos);
}

TEST_CASE("the journal header is written and read by one field table: what is written reads back equal") {
  const JournalHeader h = sample_header();
  const nlohmann::json j = to_json(h);
  const JournalHeader back = journal_header_from(j, "J:1: /header");
  CHECK(to_json(back) == j);
  CHECK(back.request.protocol.seed == UINT64_MAX);
  CHECK(back.request.protocol.counters == h.request.protocol.counters);
  CHECK(back.request.configs.size() == 1);
  CHECK(back.request.configs[0].source == "c.json");
  CHECK(back.request.configs[0].grids.size() == 1);
  CHECK(back.request.shard_index == 1);
  CHECK(back.drew_figures);
  for (auto it = j.begin(); it != j.end(); ++it) {  // every key is required
    nlohmann::json less = j;
    less.erase(it.key());
    CHECK(input_error_of([&] { journal_header_from(less, "J:1: /header"); }) == "J:1: /header/" + it.key() + ": missing");
  }
  nlohmann::json more = j;
  more["force"] = true;
  CHECK(input_error_of([&] { journal_header_from(more, "J:1: /header"); }).rfind("J:1: /header/force: unknown key (allowed: ", 0) == 0);
  nlohmann::json bad = j;
  bad["machine"] = "a\x1b[2Jb";
  CHECK(input_error_of([&] { journal_header_from(bad, "J:1: /header"); }) ==
        "J:1: /header/machine: \"a\\u001b[2Jb\": a control character: not allowed in a text");
}

TEST_CASE("read_journal: a record after the header is checked, a torn last line is ignored") {
  TmpDir d;
  const std::string path = d / "x.journal";
  {
    Journal j(path, sample_header());
    Repetition r;
    r.per_call.n = 3;
    r.per_call.median = r.per_call.min = r.per_call.max = 100;
    r.order = 7;
    j.repetition("copy/sse/unroll:64/scratch:4/t/fwd/4096", r);
    j.partial_output(partial_file("x.json", "abc"));
  }
  {
    std::ofstream f(path, std::ios::app);
    f << "{\"rep\":{\"poi";  // a kill mid-write
  }
  const JournalState s = read_journal(path);
  CHECK(s.torn_tail);
  CHECK(s.lines == 3);
  REQUIRE(s.reps.size() == 1);
  CHECK(s.reps.begin()->second.at(0).order == 7);
  REQUIRE(s.partial);
  CHECK(s.partial->bytes == 3);
  CHECK(s.partial->fnv1a == "e71fa2190541574b");
  CHECK(s.header.request.run_id == "0123456789abcdef");
  // A segment table in a shape its printers cannot read, and JSON nested too deep.
  const std::string broken = d / "broken.journal";
  {
    std::ofstream f(broken);
    f << slurp(path).substr(0, slurp(path).find('\n') + 1) << "{\"segments\": {\"header\": {}, \"cases\": []}}\n";
  }
  CHECK(input_error_of([&] { read_journal(broken); }) ==
        broken + ":2: not a journal line: /segments/header/selectors: expected an object");
  {
    std::ofstream f(broken);
    f << slurp(path).substr(0, slurp(path).find('\n') + 1) << "{\"segments\": " << std::string(100, '[')
      << std::string(100, ']') << "}\n";
  }
  CHECK(input_error_of([&] { read_journal(broken); }) == broken + ":2: nested deeper than 64 levels: not a line kex writes");
  // Two lines kex never writes that nlohmann/json alone reads as another: a key twice (the
  // last would win) and a NUL byte (what follows it would be ignored).
  const std::string first = slurp(path).substr(0, slurp(path).find('\n') + 1);
  const std::string rep = slurp(path).substr(first.size(), slurp(path).find('\n', first.size()) + 1 - first.size());
  {
    std::ofstream f(broken);
    f << first << "{\"rep\": {\"point\": \"memcpy/4096\", " << rep.substr(rep.find(':') + 2);
  }
  CHECK(input_error_of([&] { read_journal(broken); }) ==
        broken + ":2: key \"point\" appears twice in one object (JSON keeps only the last)");
  {
    std::ofstream f(broken);
    f << first << rep.substr(0, rep.size() - 1) << std::string(1, '\0') << "{\"result\": 1}\n";
  }
  CHECK(input_error_of([&] { read_journal(broken); }) == broken + ":2: a NUL byte at byte " + std::to_string(rep.size() - 1) +
                                                     ": not JSON");
  // The lock: a second Journal on it is refused while the first holds it.
  Journal held(path);
  CHECK(input_error_of([&] { Journal again(path); }) ==
        path + ": in use: a live kex run or resume holds the journal's lock; nothing measured");
}

TEST_CASE("read_journal: blank lines after the header hold nothing, and a resume appends after them") {
  TmpDir d;
  const std::string path = d / "x.journal";
  Repetition r;
  r.per_call.n = 3;
  r.per_call.median = r.per_call.min = r.per_call.max = 100;
  r.order = 7;
  {
    Journal j(path, sample_header());
    j.repetition("memcpy/4096", r);
  }
  {
    std::ofstream f(path, std::ios::app);
    f << "\n  \n";  // an editor's newline, a stray line of spaces
  }
  const JournalState s = read_journal(path);
  CHECK_FALSE(s.torn_tail);
  CHECK(s.reps.at("memcpy/4096").size() == 1);
  {
    Journal resumed(path);
    r.order = 8;
    resumed.repetition("memcpy/4096", r);
  }
  const JournalState again = read_journal(path);
  REQUIRE(again.reps.at("memcpy/4096").size() == 2);
  CHECK(again.reps.at("memcpy/4096").at(1).order == 8);
  // The header line itself may not be blank: that is no journal.
  std::ofstream(d / "blank.journal") << "\n" << slurp(path);
  CHECK(input_error_of([&] { read_journal(d / "blank.journal"); }).find("not a journal line (malformed JSON)") !=
        std::string::npos);
}

TEST_CASE("a forked child does not hold the journal's lock: a resume right after a kill is not refused as in use") {
  TmpDir d;
  const std::string path = d / "x.journal";
  int ready[2], hold[2];
  REQUIRE(pipe(ready) == 0);
  REQUIRE(pipe(hold) == 0);
  pid_t child = -1;
  {
    Journal j(path, sample_header());
    child = fork();  // as a measuring worker is forked: it outlives the journal's owner below
    REQUIRE(child >= 0);
    if (child == 0) {
      char c;
      (void)!write(ready[1], "r", 1);
      (void)!read(hold[0], &c, 1);  // until the parent has tried the lock
      _exit(0);
    }
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
  }  // the owner closes the journal; the child lives on
  const int fd = open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
  close(fd);
  CHECK(input_error_of([&] { Journal again(path); }).empty());
  (void)!write(hold[1], "g", 1);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  for (int f : {ready[0], ready[1], hold[0], hold[1]}) close(f);
}
