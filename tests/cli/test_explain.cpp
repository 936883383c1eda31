// `kex explain`: a short race of a kernel and its neighbours writes a results file with
// the kernel, its measured neighbours and the explain section, which kex summary prints.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "src/run/counters.hpp"
#include "src/run/mca.hpp"
#include "tests/support/child.hpp"
#include "tests/support/object_files.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("kex explain: the kernel, its neighbours and the explain section" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string out = d + "/e.json";
  const auto r = shell_stdout(kKex + " explain -q copy/sse/unroll:64 --sizes 4KiB --repetitions 3 --no-ceilings -o " +
                              out + " 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const auto doc = nlohmann::json::parse(slurp(out));
  std::set<std::string> names;
  for (const auto& e : doc["benchmarks"]) names.insert(e["name"].get<std::string>());
  for (const char* n : {"copy/sse/unroll:64/scratch:4/t/fwd/4096", "copy/sse/unroll:64/scratch:4/nt/fwd/4096",
                        "copy/sse/unroll:128/scratch:4/t/fwd/4096", "copy/sse/unroll:64/scratch:4/t/bwd/4096",
                        "copy/gpr/unroll:64/scratch:4/t/fwd/4096", "memcpy/4096"})
    CHECK_MESSAGE(names.count(n) == 1, n);
  const auto& ex = doc["context"]["explain"];
  CHECK(ex["rounds"] == 3);
  REQUIRE(ex["points"].size() == 1);
  CHECK(ex["points"][0]["kernel"] == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK(ex["points"][0]["size"] == 4096);
  CHECK(ex["points"][0]["effects"].size() == 10);
  size_t measured = 0;  // every neighbour but scratch 8 (more than unroll 64's 4 registers) ran in the 3 rounds
  for (const auto& e : ex["points"][0]["effects"]) measured += e["rounds"] == 3;
  CHECK(measured == 9);
  const auto v = shell("python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
                       "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " +
                       out + " " + KEX_SOURCE_DIR + "/configs/schema/results.schema.json");
  CHECK_MESSAGE(v.text.find("valid") == 0, v.text);
  // Written once only: a second run to the same file is refused, and summary prints the section.
  const auto again = shell(kKex + " explain -q copy/sse --sizes 4KiB --repetitions 3 -o " + out);
  CHECK(again.status == 2);
  const auto sum = shell_stdout(kKex + " summary " + out);
  CHECK(sum.text.find("why copy/sse/unroll:64/scratch:4/t/fwd at copy 4096 (3 rounds;") != std::string::npos);
  CHECK(sum.text.find("  store t -> nt: ") != std::string::npos);
  // The model of the core: measured at 4096 B in the race itself (L1-resident), against llvm-mca.
  REQUIRE(ex["core"].size() == 1);
  const auto& core = ex["core"][0];
  CHECK(core["kernel"] == "copy/sse/unroll:64/scratch:4/t/fwd");
  CHECK(core["bytes_per_iteration"] == 64);
  CHECK(core["measured_size"] == 4096);
  CHECK(core["measured_cycles"].get<double>() > 0);
  if (!mca_tool().path.empty()) {
    CHECK(core["predicted_cycles"].get<double>() > 0);
    CHECK(sum.text.find("core of copy/sse/unroll:64/scratch:4/t/fwd: ") != std::string::npos);
    CHECK(sum.text.find(": measured ") != std::string::npos);  // core-bound, not core-bound or faster than the model
    CHECK(sum.text.find("x llvm-mca's ") != std::string::npos);
  }
  // Counters where a PMU exists; this one line otherwise, never a guess.
  if (!pmu_status().available) {
    CHECK(ex["pmu"] == "no PMU here (" + pmu_status().error_name + "): no cache-miss or store counts");
    CHECK(sum.text.find("\ncounters: no PMU here (") != std::string::npos);
    CHECK(!ex["points"][0].contains("counters"));
  } else {
    CHECK(!ex.contains("pmu"));
    CHECK(ex["points"][0]["counters"].size() > 0);
  }
}

TEST_CASE("kex explain stopped by one signal writes the rounds measured and says so, as every command does" *
          doctest::test_suite("cli")) {
  TmpDir d;
  KexChild kex({"explain", "copy/sse/unroll:64", "--sizes", "4KiB", "--no-ceilings", "-o", d / "e.json"}, d / "log");
  REQUIRE(wait_until([&] { return lines_with(d / "log", " tasks (") > 0; }, 60));
  const auto [status, seconds] = kex.stop({SIGINT});
  const std::string log = slurp(d / "log");
  INFO(log);
  CHECK(status == 130);
  CHECK(log.find("kex explain: interrupted; the rounds measured are in " + (d / "e.json") + "\n") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(d / "e.json"))["context"]["interrupted"] == true);
}

TEST_CASE("kex explain: a clear's fill neighbour races in the kernel's rounds and gets an effect" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const std::string out = d + "/e.json";
  const auto r = shell_stdout(kKex + " explain clear/sse/unroll:64 --sizes 4KiB --repetitions 3 --no-ceilings -o " +
                              out + " 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const auto doc = nlohmann::json::parse(slurp(out));
  std::set<std::string> names;  // each fill verified against memset with its own byte: both baselines ran
  for (const auto& e : doc["benchmarks"])
    if (e.value("run_type", "") != "aggregate" && e.value("error_occurred", false) == false)
      names.insert(e["name"].get<std::string>());
  CHECK(names.count("memset/4096") == 1);
  CHECK(names.count("memset/fill:0xff/4096") == 1);
  const auto& effects = doc["context"]["explain"]["points"][0]["effects"];
  const nlohmann::json* fill = nullptr;
  for (const auto& e : effects)
    if (e["coordinate"] == "fill") fill = &e;
  REQUIRE(fill != nullptr);
  CHECK((*fill)["to"] == "0xff");
  CHECK(!fill->contains("refused"));
  CHECK((*fill)["rounds"] == 3);  // the same 3 rounds as the kernel: paired
  CHECK((*fill)["ratio"].get<double>() > 0);
  CHECK((*fill)["low"].get<double>() <= (*fill)["ratio"].get<double>());
  CHECK((*fill)["high"].get<double>() >= (*fill)["ratio"].get<double>());
  CHECK(r.text.find("  fill 0x00 -> 0xff: ") != std::string::npos);
  CHECK(r.text.find("  fill 0x00 -> 0xff: not run") == std::string::npos);
}

TEST_CASE("kex explain: without llvm-mca one line says so, and nothing fails" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const auto r = shell_stdout("KEX_LLVM_MCA=/nonexistent/llvm-mca " + kKex +
                              " explain copy/sse/unroll:64/nt --sizes 4KiB --repetitions 3 --no-ceilings -o " + d +
                              "/e.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find("core of copy/sse/unroll:64/scratch:4/nt/fwd: no model of the core: llvm-mca not found at "
                    "KEX_LLVM_MCA (Debian package llvm)\n") != std::string::npos);
}

TEST_CASE("kex explain: a rep string kernel has no marked loop: one line" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const auto r = shell_stdout(kKex + " explain copy/string/unroll:8 --sizes 4KiB --repetitions 3 --no-ceilings -o " + d +
                              "/e.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  const std::string line = mca_tool().path.empty() ? "llvm-mca not found" : "no marked loop: a rep string instruction is its own loop";
  CHECK(r.text.find("core of copy/string/unroll:8/t/fwd: no model of the core: " + line) != std::string::npos);
}

TEST_CASE("kex explain rep_movsb: no coordinates, the spec that is its code named, raced beside memcpy" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  const auto r = shell_stdout(kKex + " explain rep_movsb --sizes 4KiB --repetitions 3 --no-ceilings -o " + d +
                              "/e.json 2>" + d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(d + "/err")));
  CHECK(r.text.find("why rep_movsb at copy 4096 (3 rounds;") == 0);
  CHECK(r.text.find("\n  no coordinates: rep_movsb is not one of kex's specs, so no one-coordinate change applies; "
                    "copy/string/unroll:1 is rep movsb in kex's terms: kex explain copy/string/unroll:1 changes its "
                    "coordinates\n") != std::string::npos);
  const std::string line = mca_tool().path.empty() ? "llvm-mca not found" : "no marked loop: a rep string instruction is its own loop";
  CHECK(r.text.find("core of rep_movsb: no model of the core: " + line) != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/e.json"));
  std::set<std::string> names;
  for (const auto& e : doc["benchmarks"]) names.insert(e["name"].get<std::string>());
  CHECK(names == std::set<std::string>{"rep_movsb/4096", "memcpy/4096"});
  REQUIRE(doc["context"]["explain"]["points"].size() == 1);
  CHECK(doc["context"]["explain"]["points"][0]["effects"].empty());
  const auto list = shell(kKex + " explain rep_stosb --list");
  CHECK(list.text == "rep_stosb:\n  no coordinates: rep_stosb is not one of kex's specs, so no one-coordinate change "
                     "applies; clear/string/unroll:1 is rep stosb in kex's terms: kex explain clear/string/unroll:1 "
                     "changes its coordinates\n");
}

TEST_CASE("kex explain asm/x --load: loaded code answers, llvm-mca of its bytes up to the first ret" *
          doctest::test_suite("cli")) {
  const TmpDir dir;
  const std::string src = write_text(dir, "k.s", "\t.text\n\t.globl f\nf:\n\tmov %rdi, %rax\n\tmov %rdx, %rcx\n"
                                                 "\trep movsb\n\tret\n\tud2\n");
  const auto r = shell_stdout(kKex + " explain asm/x --load x=" + src + ":f --sizes 4KiB --repetitions 3 --no-ceilings -o " +
                              (dir / "e.json") + " 2>" + (dir / "err"));
  REQUIRE_MESSAGE(r.status == 0, (r.text + slurp(dir / "err")));
  CHECK(r.text.find("why asm/x at copy 4096 (3 rounds;") == 0);
  CHECK(r.text.find("\n  no coordinates: asm/x is not one of kex's specs, so no one-coordinate change applies\n") !=
        std::string::npos);
  if (mca_tool().path.empty()) {
    CHECK(r.text.find("core of asm/x: no model of the core: llvm-mca not found") != std::string::npos);
  } else {  // mov, mov, rep movsb, ret: the ud2 after the ret is left out
    CHECK(r.text.find("core of asm/x: llvm-mca: ") != std::string::npos);
    CHECK(r.text.find("; its 9 bytes up to the first ret as one block (every path at once, not a loop iteration)") !=
          std::string::npos);
  }
  const auto bad = shell(kKex + " explain asm/y --load x=" + src + ":f --sizes 4KiB -o " + (dir / "f.json"));
  CHECK(bad.status == 2);
  CHECK(bad.text.find("asm/y: not a config file and not a kernel name: loaded code is named by --load y=") !=
        std::string::npos);
}

TEST_CASE("kex run --explain: the winner explained at its size, its section in the results" * doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  spit(d + "/c.json", R"({"kernels": [{"op": "copy", "regs": ["sse", "avx"], "unroll": 64}], "sizes": [4096],
                          "baselines": false, "segments": false})");
  const auto r = shell_stdout(kKex + " run " + d + "/c.json --repetitions 3 --explain --no-plot --no-report -o " + d +
                              "/r.json 2>" + d + "/err");
  const std::string err = slurp(d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + err));
  CHECK(err.find("kex: --explain: 1 winner explained in 10 paired rounds: ") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/r.json"));
  const auto& ex = doc["context"]["explain"];
  REQUIRE(ex["points"].size() == 1);
  const std::string winner = ex["points"][0]["kernel"];
  CHECK((winner == "copy/sse/unroll:64/scratch:4/t/fwd" || winner == "copy/avx/unroll:64/scratch:2/t/fwd"));
  CHECK(ex["rounds"] == 10);
  CHECK(ex["core"].size() == 1);
  CHECK(doc["benchmarks"].size() == 2);  // the neighbours raced are not the run's points
  CHECK(r.text.find("why " + winner + " at copy 4096 (10 rounds;") != std::string::npos);
}

TEST_CASE("kex run --explain: the ceilings measured once, in the results, and the report's Why has the roofline" *
          doctest::test_suite("cli")) {
  const std::string d = tmp_dir_until_exit();
  spit(d + "/c.json", R"({"kernels": [{"op": "copy", "regs": ["sse", "avx"], "unroll": 64}], "sizes": [4096, 65536],
                          "baselines": false, "segments": false})");
  const auto r = shell_stdout(kKex + " run " + d + "/c.json --repetitions 3 --explain --plot-dir " + d +
                              "/plots -o " + d + "/r.json 2>" + d + "/err");
  const std::string err = slurp(d + "/err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + err));
  CHECK(err.find("kex: --explain: 2 winners explained in 10 paired rounds: ") != std::string::npos);
  CHECK(err.find("kex: --explain: ceilings per cache level measured for the roofline in ") != std::string::npos);
  const auto doc = nlohmann::json::parse(slurp(d + "/r.json"));
  const auto& ceil = doc["context"]["ceilings"];
  REQUIRE(ceil.is_object());
  REQUIRE(ceil["levels"].size() >= 2);
  CHECK(ceil["levels"][0]["level"] == "L1d");
  CHECK(ceil["levels"][0]["read_gbps"].get<double>() > 0);
  CHECK(ceil["rounds"] == 5);
  CHECK(doc["benchmarks"].size() == 4);  // the probes are not the run's points either
  const std::string page = slurp(d + "/r.html");
  const size_t why = page.find("<section id=\"why\"");
  REQUIRE(why != std::string::npos);
  const size_t end = page.find("</section>", why);
  CHECK(page.substr(why, end - why).find("roofline-copy") != std::string::npos);
  CHECK(std::ifstream(d + "/plots/roofline-copy.gp").good());
}

TEST_CASE("kex run --explain: a winner kex did not generate is raced alone: its standing, no neighbours" *
          doctest::test_suite("cli")) {
  const TmpDir dir;
  // Loaded code against a byte loop (no baselines): rep movsb wins, and is explained as kex explain asm/x explains it.
  const std::string src = write_text(dir, "k.s", "\t.text\n\t.globl f\nf:\n\tmov %rdi, %rax\n\tmov %rdx, %rcx\n"
                                                 "\trep movsb\n\tret\n\t.globl g\ng:\n\tmov %rdi, %rax\n"
                                                 "\ttest %rdx, %rdx\n\tjz 2f\n1:\tmovb (%rsi), %cl\n\tmovb %cl, (%rdi)\n"
                                                 "\tinc %rsi\n\tinc %rdi\n\tdec %rdx\n\tjnz 1b\n2:\tret\n");
  spit(dir / "c.json", R"({"load": [{"name": "x", "path": ")" + src + R"(", "symbol": "f"},
                                    {"name": "y", "path": ")" + src + R"(", "symbol": "g"}],
                          "sizes": [4096], "baselines": false, "segments": false})");
  const auto r = shell_stdout(kKex + " run " + (dir / "c.json") + " --repetitions 3 --explain --no-plot --no-report -o " +
                              (dir / "r.json") + " 2>" + (dir / "err"));
  const std::string err = slurp(dir / "err");
  REQUIRE_MESSAGE(r.status == 0, (r.text + err));
  CHECK(err.find("kex: --explain: 1 winner explained in 10 paired rounds: ") != std::string::npos);
  CHECK(err.find("not a generated kernel") == std::string::npos);
  CHECK(r.text.find("why asm/x at copy 4096 (10 rounds;") != std::string::npos);
  CHECK(r.text.find("\n  no coordinates: asm/x is not one of kex's specs, so no one-coordinate change applies\n") !=
        std::string::npos);
  CHECK(r.text.find("\n  where: at 4 KiB this copy moves ") != std::string::npos);  // against the run's ceilings
  const auto doc = nlohmann::json::parse(slurp(dir / "r.json"));
  const auto& ex = doc["context"]["explain"];
  REQUIRE(ex["points"].size() == 1);
  CHECK(ex["points"][0]["kernel"] == "asm/x");
  CHECK(ex["points"][0]["effects"].empty());
  CHECK(doc["benchmarks"].size() == 2);  // the race's points are not the run's
  // The baselines' group: whichever of memcpy and rep_movsb wins is explained the same way.
  const auto b = shell_stdout(kKex + " run memcpy rep_movsb --sizes 4KiB --repetitions 3 --explain --no-plot --no-report -o " +
                              (dir / "b.json") + " 2>" + (dir / "berr"));
  REQUIRE_MESSAGE(b.status == 0, (b.text + slurp(dir / "berr")));
  const auto bdoc = nlohmann::json::parse(slurp(dir / "b.json"));
  REQUIRE(bdoc["context"]["explain"]["points"].size() == 1);
  const std::string winner = bdoc["context"]["explain"]["points"][0]["kernel"];
  CHECK((winner == "memcpy" || winner == "rep_movsb"));
  CHECK(b.text.find("no coordinates: " + winner + " is not one of kex's specs") != std::string::npos);
}
