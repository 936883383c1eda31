// The libc child of `kex crossovers --validate`: its arguments, its protocol text
// (written, and read back strictly), its arithmetic in this process and through the
// hidden `kex libc-child` mode; and a validation run that shows GLIBC_TUNABLES
// reaching the tuned child and not the default one.
#include <doctest/doctest.h>

#include <stdexcept>

#include "src/run/libc_child.hpp"
#include "src/run/libc_validate.hpp"
#include "tests/support/shell.hpp"

using namespace kex;

namespace {

LibcJob job(std::vector<uint64_t> sizes, Op op = Op::copy) {
  LibcJob j;
  j.op = op;
  j.sizes = std::move(sizes);
  j.budget_ms = 0.5;
  return j;
}

}  // namespace

TEST_CASE("libc child: the arguments name the op, fill, sizes in order and budget") {
  LibcJob j = job({65536, 4096}, Op::clear);
  j.fill = 0xaa;
  CHECK(libc_child_args(j) == std::vector<std::string>{"libc-child", "--op", "clear", "--fill", "170", "--sizes",
                                                       "65536,4096", "--budget-ms", "0.5"});
}

TEST_CASE("libc child: the protocol text round-trips and is read strictly") {
  const LibcJob j = job({4096, 65536});
  LibcReport r{"glibc.cpu.x86_rep_movsb_threshold=8192", {{4096, 123.25, 64, 31}, {65536, 2001.5, 2, 40}}};
  const std::string text = format_libc_report(r);
  CHECK(text ==
        "kex-libc-child 1\ntunables glibc.cpu.x86_rep_movsb_threshold=8192\n"
        "size 4096 ticks 123.25 calls 64 samples 31\nsize 65536 ticks 2001.5 calls 2 samples 40\n");
  CHECK(parse_libc_report(text, j) == r);
  r.tunables = "";
  CHECK(format_libc_report(r).find("\ntunables -\n") != std::string::npos);
  CHECK(parse_libc_report(format_libc_report(r), j).tunables.empty());
  const std::string head = "kex-libc-child 1\ntunables -\n";
  struct Bad { std::string text, error; };
  const Bad bad[] = {
      {"", "libc child: line 1: expected 'kex-libc-child 1'"},
      {"kex-libc-child 2\n", "libc child: line 1: expected 'kex-libc-child 1'"},
      {"kex-libc-child 1\n", "libc child: line 2: expected 'tunables VALUE'"},
      {head + "size 4096 ticks 1 calls 1 samples 5\n", "libc child: line 4: 1 size lines for 2 sizes"},
      {head + "size 65536 ticks 1 calls 1 samples 5\nsize 4096 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: size 65536 where 4096 was asked"},
      {head + "size 4096 ticks -1 calls 1 samples 5\nsize 65536 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: ticks '-1': expected a finite number > 0"},
      {head + "size 4096 ticks nan calls 1 samples 5\nsize 65536 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: ticks 'nan': expected a finite number > 0"},
      {head + "size 4096 ticks 1 calls 0 samples 5\nsize 65536 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: calls '0'"},
      {head + "size 4096 ticks 1 calls 1 samples 5 extra 1\nsize 65536 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: 'size 4096 ticks 1 calls 1 samples 5 extra 1': expected 'size N ticks X calls N samples N'"},
      {head + "size 4096 ticks 1 calls 1\nsize 65536 ticks 1 calls 1 samples 5\n",
       "libc child: line 3: 'size 4096 ticks 1 calls 1': expected 'size N ticks X calls N samples N'"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    try {
      parse_libc_report(b.text, j);
      FAIL("accepted");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).rfind(b.error, 0) == 0);
    }
  }
}

TEST_CASE("libc child: timing in this process keeps the order of the sizes and takes at least 5 samples") {
  for (Op op : {Op::copy, Op::clear}) {
    const LibcReport r = run_libc_job(job({65536, 64, 4096}, op));
    REQUIRE(r.timings.size() == 3);
    CHECK(r.timings[0].size == 65536);
    CHECK(r.timings[1].size == 64);
    CHECK(r.timings[2].size == 4096);
    for (const LibcTiming& t : r.timings) {
      CHECK(t.ticks > 0);
      CHECK(t.samples >= 5);
      CHECK(t.calls >= 1);
    }
    CHECK(r.timings[1].calls > r.timings[0].calls);  // a 64-byte call is far shorter: more calls per sample
  }
}

TEST_CASE("kex libc-child: prints the protocol with the GLIBC_TUNABLES it started with - bad arguments exit 2" *
          doctest::test_suite("cli")) {
  const LibcJob j = job({64, 8192}, Op::clear);
  const ShellOut r = shell_stdout("GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=4096 " + kKex +
                                  " libc-child --op clear --fill 7 --sizes 64,8192 --budget-ms 0.5");
  REQUIRE(r.status == 0);
  const LibcReport rep = parse_libc_report(r.text, j);
  CHECK(rep.tunables == "glibc.cpu.x86_rep_stosb_threshold=4096");
  CHECK(parse_libc_report(shell_stdout("env -u GLIBC_TUNABLES " + kKex + " libc-child --sizes 64,8192").text, job({64, 8192}))
            .tunables.empty());
  for (const char* bad : {"--sizes 0", "--sizes 64,x", "--op move --sizes 64", "--sizes 64 --budget-ms 0", "--fill 256 --sizes 64", ""}) {
    CAPTURE(bad);
    const ShellOut b = shell(kKex + " libc-child " + bad);
    CHECK(b.status == 2);
    CHECK(std::count(b.text.begin(), b.text.end(), '\n') == 1);
  }
  CHECK(shell(kKex + " --help").text.find("libc-child") == std::string::npos);
}

TEST_CASE("validate_tunables: the tuned children see GLIBC_TUNABLES, the default ones do not - a ratio per size" *
          doctest::test_suite("validate")) {
  ValidateOptions o;
  o.rounds = 3;
  o.exe = kKex;
  const std::string t = "glibc.cpu.x86_rep_movsb_threshold=2048";
  setenv("GLIBC_TUNABLES", "glibc.cpu.x86_rep_movsb_threshold=999999", 1);  // the default children must not inherit it
  const Validation v = validate_tunables(job({1024, 4096, 2048}), t, o);
  unsetenv("GLIBC_TUNABLES");
  CHECK(v.tuned_saw == t);
  CHECK(v.default_saw.empty());
  CHECK(v.rounds == 3);
  CHECK(v.cpu >= 0);
  REQUIRE(v.sizes.size() == 3);
  CHECK(v.sizes[0].size == 1024);
  CHECK(v.sizes[2].size == 2048);
  for (const SizeChange& s : v.sizes) {
    CHECK(s.change.rounds == 3);
    CHECK(s.change.low <= s.change.ratio);
    CHECK(s.change.ratio <= s.change.high);
    CHECK(s.change.ratio > 0.2);  // the same libc function either way: not orders of magnitude apart
    CHECK(s.change.ratio < 5);
  }
  o.exe = "/bin/echo";  // a child out of protocol
  CHECK_THROWS_WITH_AS(validate_tunables(job({1024}), t, o), "libc child: line 1: expected 'kex-libc-child 1'",
                       std::runtime_error);
  o.exe = "/nonexistent/kex";
  CHECK_THROWS_WITH_AS(validate_tunables(job({1024}), t, o),
                       "libc child /nonexistent/kex: cannot be started (ENOENT (No such file or directory))", std::runtime_error);
}
