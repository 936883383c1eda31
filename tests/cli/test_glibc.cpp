// glibc's own variants on the command line: raced, verified and timed beside kex's
// kernels; listed with ifunc's pick; an unknown one refused in one line.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "src/run/glibc_impls.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("kex run glibc-copy: every usable variant verified and timed, the unusable skipped with the reason" *
          doctest::test_suite("cli")) {
  TmpDir dir;
  const ShellOut out = shell(kKex + " run glibc-copy memcpy --sizes 4KiB --repetitions 3 -o " + (dir / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(slurp(dir / "r.json"));
  size_t timed = 0, skipped = 0, memcpy_entries = 0;
  const auto copies = glibc_impls().of(Function::memcpy);
  for (const auto& e : j["benchmarks"]) {
    if (e["kernel"] == "memcpy") {
      ++memcpy_entries;  // libc's memcpy joins the same group
      continue;
    }
    CHECK(e["kind"] == "implementation");
    const auto& f = e["implementation"];
    CHECK(f["source"] == "glibc");
    CHECK(f["function"] == "memcpy");
    CHECK(e["kernel"] == "glibc/" + f["symbol"].get<std::string>());
    if (f["usable"].get<bool>()) {
      CHECK(e.contains("real_time"));
      CHECK(!e.contains("code"));
      ++timed;
    } else {
      CHECK(e["skip_message"] == f["reason"]);
      ++skipped;
    }
  }
  CHECK(memcpy_entries == 1);
  CHECK(timed + skipped == copies.size());
  CHECK(timed == size_t(std::count_if(copies.begin(), copies.end(), [](const GlibcImpl* g) { return g->facts.usable; })));
  CHECK(j["context"]["ifunc"]["memcpy"] == ifunc_pick(Function::memcpy));
  // The summary of the file names ifunc's pick; reading it loads nothing.
  const ShellOut s = shell(kKex + " summary " + (dir / "r.json"));
  CHECK(s.status == 0);
  CHECK(s.text.find("ifunc picks " + ifunc_pick(Function::memcpy)) != std::string::npos);
}

TEST_CASE("kex run glibc/NOPE: one line, exit 2, naming the sets" * doctest::test_suite("cli")) {
  const ShellOut out = shell(kKex + " run glibc/NOPE --sizes 4KiB");
  CHECK(out.status == 2);
  CHECK(std::count(out.text.begin(), out.text.end(), '\n') == 1);
  CHECK(out.text.find("'glibc/NOPE': no such glibc implementation") != std::string::npos);
  CHECK(out.text.find("sets: glibc-copy, glibc-move, glibc-clear") != std::string::npos);
}

TEST_CASE("kex list glibc and kex info: the variants with usability, and ifunc's picks" * doctest::test_suite("cli")) {
  const ShellOut l = shell(kKex + " list glibc");
  REQUIRE(l.status == 0);
  CHECK(l.text.find("__memcpy_avx_unaligned_rtm") != std::string::npos);
  CHECK(l.text.find(ifunc_pick(Function::memset) + "  (ifunc's pick)") != std::string::npos);
  const ShellOut i = shell(kKex + " info --json");
  REQUIRE(i.status == 0);
  CHECK(nlohmann::json::parse(i.text)["ifunc"]["memmove"] == ifunc_pick(Function::memmove));
  CHECK(shell(kKex + " info").text.find("ifunc picks:    memcpy " + ifunc_pick(Function::memcpy)) != std::string::npos);
}

TEST_CASE("kex emit refuses a glibc variant with a plain reason" * doctest::test_suite("cli")) {
  TmpDir dir;
  const ShellOut out = shell(kKex + " emit glibc/__memcpy_erms --format c -o " + (dir / "k.c"));
  CHECK(out.status == 2);
  CHECK(out.text.find("'glibc/__memcpy_erms' names glibc's own code: kex emits only code it generated") !=
        std::string::npos);
}

TEST_CASE("kex tune --glibc: glibc's usable variants race in every stage and are never dropped" *
          doctest::test_suite("tune")) {
  TmpDir dir;
  spit(dir / "space.json", R"({"sizes": ["4KiB"], "kernels": [{"op": "copy", "regs": ["gpr", "sse"]}]})");
  const ShellOut out = shell(kKex + " tune -q " + (dir / "space.json") + " --glibc --no-validate --budget 10s --rounds 4 " +
                             "--first-rounds 3 -o " + (dir / "t.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto doc = nlohmann::json::parse(slurp(dir / "t.json"));
  size_t glibc = 0;
  for (const auto& e : doc["benchmarks"])
    if (e["kind"] == "implementation") {
      CHECK(e["implementation"]["usable"] == true);
      CHECK(e.contains("real_time"));
      ++glibc;
    }
  const auto copies = glibc_impls().of(Function::memcpy);
  CHECK(glibc == size_t(std::count_if(copies.begin(), copies.end(), [](const GlibcImpl* g) { return g->facts.usable; })));
  for (const auto& d : doc["tune"]["drops"]) CHECK(d["kernel"].get<std::string>().rfind("glibc/", 0) != 0);
  CHECK(doc["tune"]["kept"].size() == glibc + 2);
}
