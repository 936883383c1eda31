// Segment-register test: the kernels put fs/gs (and so glibc's TLS) back, every case
// is either measured or skipped with a reason, and the section validates.
#include <doctest/doctest.h>

#include <algorithm>

#include <asm/prctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "generators/segments.hpp"
#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "src/core/error.hpp"
#include "src/results/segment_text.hpp"
#include "src/run/segments.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/seed_golden.hpp"
#include "tests/support/selectors.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {
/// A section's JSON (a file's, or one a test built) through the model's reader.
SegmentSection sec(const nlohmann::ordered_json& j) { return segment_section_from_json(nlohmann::json(j), "s.json"); }
}  // namespace

namespace {

uint64_t base_of(int code) {
  uint64_t v = 0;
  REQUIRE(syscall(SYS_arch_prctl, code, &v) == 0);
  return v;
}
uint16_t fs_selector() { uint16_t v; asm volatile("mov %%fs, %0" : "=r"(v)); return v; }
uint16_t gs_selector() { uint16_t v; asm volatile("mov %%gs, %0" : "=r"(v)); return v; }

thread_local int tls_value = 0;

/// TLS works on this thread (the value set before is still there, errno is usable)
/// and on a new thread.
bool tls_works(int expected) {
  if (tls_value != expected) return false;
  errno = 0;
  if (write(-1, "", 0) != -1 || errno != EBADF) return false;
  int other = -1;
  std::thread t([&] { tls_value = 7; other = tls_value; });
  t.join();
  return other == 7 && tls_value == expected;
}

struct Section {
  nlohmann::ordered_json j;
  uint64_t fs_before, gs_before, fs_after, gs_after;
  uint16_t fs_sel_before, gs_sel_before, fs_sel_after, gs_sel_after;
  bool tls_ok;
};

/// One small run shared by the tests below (a full run takes seconds).
const Section& small_run() {
  static const Section s = [] {
    Section r;
    tls_value = 0x1234;
    // A non-zero gs base, so a gs kernel that did not put it back would show.
    static uint64_t gs_area[8];
    const uint64_t gs_original = base_of(ARCH_GET_GS);
    REQUIRE(syscall(SYS_arch_prctl, ARCH_SET_GS, reinterpret_cast<uint64_t>(gs_area)) == 0);
    r.fs_before = base_of(ARCH_GET_FS);
    r.gs_before = base_of(ARCH_GET_GS);
    r.fs_sel_before = fs_selector();
    r.gs_sel_before = gs_selector();
    SegmentOptions o;
    o.iterations = 20'000;
    o.repetitions = 3;
    r.j = to_json(run_segments(o));
    r.fs_after = base_of(ARCH_GET_FS);
    r.gs_after = base_of(ARCH_GET_GS);
    r.fs_sel_after = fs_selector();
    r.gs_sel_after = gs_selector();
    r.tls_ok = tls_works(0x1234);
    REQUIRE(syscall(SYS_arch_prctl, ARCH_SET_GS, gs_original) == 0);
    return r;
  }();
  return s;
}

std::string tmp_dir() { return tmp_dir_until_exit(); }

/// Validates `file` with python3-jsonschema against configs/schema/segments.schema.json
/// and, where results.schema.json defines $defs/segments, against that too.
std::string validate(const std::string& file) {
  const std::string src = KEX_SOURCE_DIR;
  const std::string py =
      "import json,jsonschema,sys\n"
      "doc=json.load(open(sys.argv[1]))\n"
      "jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(doc)\n"
      "res=json.load(open(sys.argv[3]))\n"
      "if 'segments' in res.get('$defs',{}):\n"
      "    jsonschema.Draft202012Validator({'$defs':res['$defs'],'$ref':'#/$defs/segments'}).validate(doc)\n"
      "print('valid')\n";
  std::ofstream(file + ".py") << py;
  return shell("python3 " + file + ".py " + file + " " + src + "/configs/schema/segments.schema.json " + src +
               "/configs/schema/results.schema.json")
      .text;
}

}  // namespace

TEST_CASE("each segment kernel puts back fs, gs and TLS, and hits its counters" * doctest::test_suite("segments")) {
  // Selectors every x86-64 Linux process can load: the data selector (ss) and null.
  alignas(64) static int32_t target[32];
  alignas(64) static uint64_t cells[16];
  cells[0] = reinterpret_cast<uint64_t>(&cells[0]);
  const uint16_t data = ss_selector();
  const uint64_t other_gs_base = reinterpret_cast<uint64_t>(&cells[8]);
  cells[8] = 0;

  std::vector<SegKernelSpec> specs;
  for (SegReg r : {SegReg::none, SegReg::fs, SegReg::gs})
    for (SegVariant v : {SegVariant::baseline, SegVariant::loop2006, SegVariant::mixed, SegVariant::latency,
                         SegVariant::throughput, SegVariant::null_load}) {
      const bool needs_seg = v == SegVariant::loop2006 || v == SegVariant::mixed || v == SegVariant::null_load;
      if (needs_seg && r == SegReg::none) continue;
      const bool loop = v == SegVariant::loop2006 || v == SegVariant::mixed;
      // The 2006 and mixed loops also with a selector loaded on entry: null, or the
      // data selector (the pop then reloads a non-null selector, as on i386).
      for (int entry = -1; entry < (loop ? 2 : 0); ++entry)
        for (int with_base = 0; with_base < 2; ++with_base) {
          SegKernelSpec s;
          s.seg = r;
          s.variant = v;
          s.selector = data;
          s.unroll = 8;
          s.use_fsgsbase = machine().fsgsbase_enabled;  // wr*base where the kernel allows it
          s.operand = v == SegVariant::latency ? cells[0] : reinterpret_cast<uint64_t>(&target[0]);
          s.restored_operand = reinterpret_cast<uint64_t>(&target[16]);
          if (entry >= 0) {
            s.load_entry = true;
            s.entry_selector = entry ? data : 0;
          }
          // Mixed with a null restored selector sets base 0 itself; a restored data
          // selector brings base 0 with it, so in round 2 (a non-zero gs base beforehand)
          // its access lands on target[16] only if the loop really reloaded 0x2b.
          if (v == SegVariant::mixed) s.set_base = entry != 1;
          if ((v == SegVariant::latency || v == SegVariant::throughput) && r != SegReg::none) {
            s.set_base = true;
            s.base = with_base ? other_gs_base : 0;
            if (with_base) s.operand = v == SegVariant::latency ? 0 : s.operand - s.base;
          } else if (with_base) {
            continue;
          }
          specs.push_back(s);
        }
    }
  // none: baseline, latency, throughput; fs and gs: baseline, 2006 x 3 entries, mixed x 3,
  // latency x 2 bases, throughput x 2, null load.
  CHECK(specs.size() == 3 + 2 * (1 + 3 + 3 + 2 + 2 + 1));
  CodeArena arena;
  std::vector<size_t> idx;
  for (const auto& s : specs) idx.push_back(arena.add([&](Xbyak::CodeGenerator& g) { emit_segment_kernel(g, s); }));
  arena.finalize();

  const uint64_t gs_original = base_of(ARCH_GET_GS);
  // Twice: with the process's own gs base (0), then with a non-zero gs base set
  // beforehand, which a gs kernel must also put back.
  for (int round = 0; round < 2; ++round) {
    if (round == 1) REQUIRE(syscall(SYS_arch_prctl, ARCH_SET_GS, other_gs_base) == 0);
    for (size_t i = 0; i < specs.size(); ++i) {
      const auto& s = specs[i];
      CAPTURE(round);
      CAPTURE(to_string(s.seg));
      CAPTURE(to_string(s.variant));
      CAPTURE(s.base);
      CAPTURE(s.load_entry);
      CAPTURE(s.entry_selector);
      tls_value = 100 + int(i);
      SegState st;
      st.fs_base = base_of(ARCH_GET_FS);
      st.gs_base = base_of(ARCH_GET_GS);
      const uint16_t fs0 = fs_selector(), gs0 = gs_selector();
      const int32_t t0 = target[0], r0 = target[16];
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old);
      const uint64_t ticks = arena.ref(idx[i]).as<SegKernelFn>()(100, &st);
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      CHECK(base_of(ARCH_GET_FS) == st.fs_base);
      CHECK(base_of(ARCH_GET_GS) == st.gs_base);
      CHECK(fs_selector() == fs0);
      CHECK(gs_selector() == gs0);
      CHECK(tls_value == 100 + int(i));
      CHECK(ticks > 0);
      CHECK(st.ticks == ticks);
      const bool rmw = s.variant == SegVariant::loop2006 || s.variant == SegVariant::mixed;
      CHECK(target[0] - t0 == (rmw ? 800 : 0));
      CHECK(target[16] - r0 == (s.variant == SegVariant::mixed ? 800 : 0));
    }
  }
  REQUIRE(syscall(SYS_arch_prctl, ARCH_SET_GS, gs_original) == 0);
  CHECK(base_of(ARCH_GET_GS) == gs_original);
  CHECK(tls_works(100 + int(specs.size()) - 1));
}

namespace {

/// The seed's first table (tests/golden/segments-seed-002.txt, copied from seed 002).
std::string seed_table() { return slurp(std::string(KEX_SOURCE_DIR) + "/tests/golden/segments-seed-002.txt"); }

using ojson = nlohmann::ordered_json;

/// A section holding the seed's Core Duo figures (ns per iteration per block, for
/// <none>, fs, gs), each as CPU time over 50 M iterations plus a remainder that
/// truncation must drop. `fs_entry`/`gs_entry`: entry selector kinds and values, or
/// empty for an older section without them.
ojson seed_section(const std::string& fs_kind, const std::string& fs_sel, const std::string& gs_kind,
                   const std::string& gs_sel) {
  ojson h = {{"cpu_model", "Genuine Intel(R) CPU           T2400  @ 1.83GHz"}, {"mhz", 1000.0}, {"family", 6},
             {"model", 14}, {"stepping", 8},
             {"selectors", {{"ds", "0x7b"}, {"fs", "0x00"}, {"gs", "0x33"}, {"data", "0x7b"}, {"ldt", "0x0f"},
                            {"gdt", "0x3b"}}},
             {"timer", "TSC"}, {"seed_clock", "CPUTIME"}, {"tsc_hz", 1.83e9}};
  ojson cases = ojson::array();
  const struct { const char* kind; const char* sel; int none, fs, gs; } blocks[] = {
      {"data", "0x7b", 0, 26, 30}, {"ldt", "0x0f", 0, 26, 26}, {"gdt-tls", "0x3b", 0, 26, 30}};
  const uint64_t n = 50'000'000;
  for (const auto& b : blocks)
    for (const auto& [seg, ns, kind, sel] : {std::tuple<std::string, int, std::string, std::string>{"none", b.none, "", ""},
                                             {"fs", b.fs, fs_kind, fs_sel},
                                             {"gs", b.gs, gs_kind, gs_sel}}) {
      ojson c = {{"name", seg + " ..."}, {"segment", seg}, {"selector", b.sel}, {"selector_kind", b.kind},
                 {"variant", seg == "none" ? "baseline" : "2006"}};
      if (!kind.empty()) {
        c["entry_selector"] = sel;
        c["entry_selector_kind"] = kind;
      }
      c["ns_per_iteration"] = ns + 0.9;  // TSC figures that must not be used while CPU time is there
      c["timed_iterations"] = n;
      c["cputime_ns"] = uint64_t(ns) * n + n - 1;
      cases.push_back(c);
    }
  return {{"header", h}, {"cases", cases}};
}

/// The figures and machine details masked: the quoted model, MHz, family/model/
/// stepping, selector values and ns.
std::string mask(const std::string& t) {
  std::string s = std::regex_replace(t, std::regex("\"[^\"\n]*\""), "\"#\"");
  s = std::regex_replace(s, std::regex("=[0-9a-f]+"), "=#");
  return std::regex_replace(s, std::regex("[0-9]+(\\.[0-9]+)?"), "#");
}

/// The text's tables: each starts with a `"model" @..Mhz` line after a blank line.
std::vector<std::string> tables_of(const std::string& t) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    const size_t next = t.find("\n\n\"", at);
    out.push_back(t.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    if (next == std::string::npos) break;
    at = next + 2;
  }
  return out;
}

}  // namespace

TEST_CASE("seed-exact text: the seed's own figures give the seed's own lines" * doctest::test_suite("segments")) {
  // An older section (no entry selectors): one table, fs/gs as the registers started.
  CHECK(format_segment_seed_text(sec(seed_section("", "", "", ""))) == seed_table());
  // With entry selectors, the first table is the i386 situation: fs null, gs a GDT TLS selector.
  const std::string t = format_segment_seed_text(sec(seed_section("null", "0x00", "gdt-tls", "0x33")));
  const auto tables = tables_of(t);
  REQUIRE(tables.size() == 3);  // i386, then fs=gs=0 and fs=gs=33 (each missing the other half)
  CHECK(tables[0] == seed_table());
  CHECK(tables[1].find("\nds=7b fs=0 gs=- ldt=f gdt=3b CPUTIME \n") != std::string::npos);
  CHECK(tables[1].find("   gs with data selector: skipped: not in these results\n") != std::string::npos);
  CHECK(tables[2].find("\nds=7b fs=- gs=33 ldt=f gdt=3b CPUTIME \n") != std::string::npos);
  // Without CPU time (results from before it was recorded) the clock is TSC and its ns are used.
  ojson old = seed_section("", "", "", "");
  for (auto& c : old["cases"]) c.erase("cputime_ns");
  const std::string tsc = format_segment_seed_text(sec(old));
  CHECK(tsc.find(" gdt=3b TSC \n") != std::string::npos);
  CHECK(tsc.find("   gs with data selector: 30ns/iteration\n") != std::string::npos);
  // A clock that moved during the run: the seed's warning, as it printed it.
  ojson moved = seed_section("", "", "", "");
  moved["header"]["mhz_after"] = 1833.0;
  CHECK(format_segment_seed_text(sec(moved)) == seed_table() + "cpu speed changed 1000.000000->1833.000000?! disable CPUFREQ\n");
}

TEST_CASE("kex segments prints the table, writes JSON, refuses to overwrite" * doctest::test_suite("segments")) {
  const std::string d = tmp_dir();
  const std::string kex = KEX_BINARY;
  ShellOut r = shell(kex + " segments --iterations 700 --no-mixed --json " + d + "/s.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const std::string out = r.text;
  CHECK(out.find("   gs with data selector, entry gs=2b: ") != std::string::npos);
  CHECK(out.find(", mixed") == std::string::npos);
  auto j = nlohmann::json::parse(std::ifstream(d + "/s.json"));
  CHECK(j["cases"].size() == 66 + 10 + 2);

  r = shell(kex + " segments --iterations 700 --json " + d + "/s.json");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + d + "/s.json: exists; not overwriting it (use --force)\n");
  CHECK(nlohmann::json::parse(std::ifstream(d + "/s.json"))["cases"].size() == 66 + 10 + 2);

  r = shell(kex + " segments --iterations 700 --repetitions 2 --no-modern --force --json " + d + "/s.json");
  CHECK(r.status == 0);
  j = nlohmann::json::parse(std::ifstream(d + "/s.json"));
  CHECK(j["cases"].size() == 66 + 60);
  CHECK(j["header"]["repetitions"] == 2);
  CHECK(j["cases"][0]["repetitions"] == 2);
  r = shell(kex + " segments --iterations 0");
  CHECK(r.text.find("iterations") != std::string::npos);
  CHECK(r.status == 2);
  r = shell(kex + " segments --repetitions 0");
  CHECK(r.text.find("repetitions") != std::string::npos);
  CHECK(r.status == 2);
  std::filesystem::remove_all(d);
}

TEST_CASE("kex segments --seed-exact prints the seed's format and runs only the seed's cases" *
          doctest::test_suite("segments")) {
  const std::string d = tmp_dir();
  const std::string kex = KEX_BINARY;
  const ShellOut r = shell(kex + " segments --seed-exact --iterations 700 --json " + d + "/s.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  const std::string& out = r.text;
  CHECK(out.rfind("\"", 0) == 0);
  // 700 iterations: the call's own CPU time shows in the <none> line, so no fixed figure.
  CHECK(std::regex_search(out, std::regex(" CPUTIME \n   <none> with data selector: [0-9]+ns/iteration\n"
                                          "   fs with data selector: [0-9]+ns/iteration\n")));
  CHECK(out.find(", entry ") == std::string::npos);  // kex's own entry variants ("fs with LDT selector, mixed, entry fs=0")
  CHECK(out.find("ticks") == std::string::npos);
  const auto j = nlohmann::json::parse(std::ifstream(d + "/s.json"));
  const bool tls = j["header"]["selectors"]["gdt"].is_string();
  // data, LDT, GDT (and the CPU/node fallback without set_thread_area) x (<none> + 5 entries x fs, gs)
  CHECK(j["cases"].size() == (tls ? 3u : 4u) * 11);
  for (const auto& c : j["cases"]) CHECK((c["variant"] == "2006" || c["variant"] == "baseline"));
  // The seed's COUNT on request: exclusive with the explicit counts.
  const ShellOut bad = shell(kex + " segments --seed-iterations --iterations 5");
  CHECK(bad.text.find("--seed-iterations") != std::string::npos);
  CHECK(bad.status == 2);
  std::filesystem::remove_all(d);
}

TEST_CASE("a segment table from a file's section: a selector that is not hex is refused by the reader, printed '?'" *
          doctest::test_suite("segments")) {
  nlohmann::ordered_json j = small_run().j;
  nlohmann::ordered_json bad = j;
  bad["header"]["selectors"]["ds"] = "zz";
  CHECK_THROWS_WITH_AS(sec(bad), "s.json/header/selectors/ds: \"zz\": allowed: 0x and 2 to 4 hex digits (0-9, a-f)",
                       InputError);
  // A section made in memory prints such a selector as '?', and never throws.
  SegmentSection s = sec(j);
  for (auto& [name, value] : s.header.selectors)
    if (name == "ds") value = "zz";
    else if (name == "ss") value = std::string(40, 'f');
  const std::string t = format_segment_table(s);
  CHECK(t.find("\nds=? ss=? ") != std::string::npos);
  // A CPU model of any length stays whole, and so does the rest of its line.
  const std::string model(600, 'x');
  s.header.cpu_model = model;
  CHECK(format_segment_table(s).find("\"" + model + "\" @") == 0);
  CHECK(format_segment_table(s).find("):\nds=? ss=? ") != std::string::npos);
}

TEST_CASE("golden: the segment table and its --seed-exact text of a fixed section" * doctest::test_suite("golden")) {
  // tests/golden/segments-section.json: `kex segments --iterations 700 --repetitions 3 --json`
  // on a KVM guest without set_thread_area, where LDT selectors fault: measured and
  // skipped cases, the mixed loop and the modern costs.
  nlohmann::ordered_json section = nlohmann::ordered_json::parse(golden::read("segments-section.json"));
  const std::string table = format_segment_table(sec(section)), seed = format_segment_seed_text(sec(section));
  // The section's field table reads and writes it back byte for byte.
  CHECK(to_json(sec(section)).dump(2) + "\n" == golden::read("segments-section.json"));
  CHECK(golden::check("segments-table.txt", table) == "");
  CHECK(golden::check("segments-seed-exact.txt", seed) == "");
  // A clock that moved during the run: the same text and a warning after it.
  section["header"]["mhz_after"] = 2400.0;
  CHECK(format_segment_table(sec(section)) == table + "warning: cpu MHz changed during the run (2095.99 -> 2400)\n");
  CHECK(format_segment_seed_text(sec(section)) == seed + "cpu speed changed 2095.990967->2400.000000?! disable CPUFREQ\n");
}

TEST_CASE("golden: the segment summary a sweep prints, from the fixed section, and nothing from a section without cases" *
          doctest::test_suite("golden")) {
  const auto section = nlohmann::ordered_json::parse(golden::read("segments-section.json"));
  const std::string summary = format_segment_summary(sec(section));
  CHECK(golden::check("segments-summary.txt", summary) == "");
  CHECK(std::count(summary.begin(), summary.end(), '\n') <= 4);
  CHECK(format_segment_summary(SegmentSection{}) == "");
  // A case of the wrong shape (a file's) is refused by the reader, naming the field.
  nlohmann::ordered_json odd = section;
  odd["cases"].push_back({{"variant", 5}, {"skipped", "yes"}, {"ns_per_iteration", "fast"}});
  const std::string at = "s.json/cases/" + std::to_string(odd["cases"].size() - 1);
  CHECK_THROWS_WITH_AS(sec(odd), (at + "/variant: 5: expected a string").c_str(), InputError);
  // A case with only some fields (an older kex's) is read, and passed over where it has no figure.
  odd["cases"].back() = {{"name", "x"}, {"variant", "latency"}};
  CHECK(format_segment_summary(sec(odd)) == summary);
}

// One small run of the table (small_run) serves these checks: each ctest test is a process of
// its own, and the run (78 cases, each probed in a child) took 3 to 5 s of the suite at load 8
// in each of the six tests it was.
TEST_CASE("run_segments, one small run: fs, gs and TLS put back, every case measured or skipped, the entry "
          "selectors, the seed's layout and text, the schemas" * doctest::test_suite("segments")) {
  SUBCASE("run_segments leaves fs, gs and TLS as they were") {
    const auto& r = small_run();
    CHECK(r.fs_after == r.fs_before);
    CHECK(r.gs_after == r.gs_before);
    CHECK(r.fs_sel_after == r.fs_sel_before);
    CHECK(r.gs_sel_after == r.gs_sel_before);
    CHECK(r.tls_ok);
  }
  SUBCASE("every segment case is measured or skipped with a reason") {
    const auto& j = small_run().j;
    REQUIRE(j.contains("cases"));
    size_t measured = 0;
    bool gs_data_ran = false;
    for (const auto& c : j["cases"]) {
      CAPTURE(c.dump());
      if (c.value("skipped", false)) {
        CHECK_FALSE(c.value("skip_message", "").empty());
        CHECK_FALSE(c.contains("ns_per_iteration"));
        continue;
      }
      ++measured;
      CHECK(c["ns_per_iteration"].get<double>() > 0);
      CHECK(c["ticks_per_iteration"].get<double>() > 0);
      CHECK(c["est_cycles_per_iteration"].get<double>() > 0);
      CHECK(c["min_ticks"].get<uint64_t>() <= c["median_ticks"].get<uint64_t>());
      CHECK(c["timed_iterations"].get<uint64_t>() == c["iterations_per_sample"].get<uint64_t>() * 3);
      CHECK(c["timed_iterations"].get<uint64_t>() >= 20'000);
      CHECK(c["cputime_ns"].get<uint64_t>() > 0);
      if (c["name"] == "gs with data selector, entry gs=2b") gs_data_ran = true;
    }
    CHECK(gs_data_ran);
    // 6 selector blocks x (<none> + 5 entry selectors x fs, gs) + the same without <none>
    // for mixed + 2 x (1 + 4) loads + 2 null loads
    CHECK(j["cases"].size() == 66 + 60 + 10 + 2);
    CHECK(measured >= 40);
    // The data and null selectors load everywhere, loaded or held on entry: those cases must have run.
    for (const auto& c : j["cases"]) {
      const std::string entry = c.value("entry_selector_kind", "");
      if ((c["selector_kind"] == "data" || c["selector_kind"] == "null" || c["selector_kind"] == "none") &&
          (entry.empty() || entry == "null" || entry == "data"))
        CHECK_MESSAGE(!c.value("skipped", false), c.dump());
    }
  }
  SUBCASE("the 2006 and mixed loops say which selector the register held on entry") {
    const auto& j = small_run().j;
    const auto& h = j["header"];
    const auto& entries = h["entry_selectors"];
    CHECK(entries["null"] == "0x00");
    CHECK(entries["data"] == h["selectors"]["data"]);
    CHECK(entries["gdt-cpunode"] == "0x7b");
    CHECK(h["selectors"]["data"] == "0x2b");  // __USER_DS: ds is null in a 64-bit process, ss holds it
    std::map<std::string, int> per_kind;
    for (const auto& c : j["cases"]) {
      CAPTURE(c.dump());
      const std::string v = c["variant"], seg = c["segment"];
      const bool loop = (v == "2006" || v == "mixed") && seg != "none";
      CHECK(c.contains("entry_selector") == loop);
      if (!loop) continue;
      const std::string kind = c["entry_selector_kind"];
      ++per_kind[kind];
      if (entries[kind].is_string()) CHECK(c["entry_selector"] == entries[kind]);
      const unsigned sel = std::stoul(c["entry_selector"].get<std::string>(), nullptr, 16);
      char tail[32];
      snprintf(tail, sizeof tail, ", entry %s=%x", seg.c_str(), sel);
      const std::string name = c["name"];
      CHECK(name.size() > strlen(tail));
      CHECK(name.substr(name.size() - strlen(tail)) == tail);
      if (v == "mixed") CHECK(c["restored_selector"].get<std::string>().rfind(c["entry_selector"].get<std::string>(), 0) == 0);
    }
    // 6 blocks x fs, gs x (2006, mixed) per entry selector
    for (const char* k : {"null", "data", "ldt", "gdt-tls", "gdt-cpunode"}) CHECK(per_kind[k] == 24);
    // Unavailable LDT/TLS entries are skipped with the set-up error.
    for (const auto& c : j["cases"])
      if (c.value("entry_selector_kind", "") == "ldt" && !entries["ldt"].is_string())
        CHECK(c["skip_message"] == h["ldt_entry_error"]);
  }
  SUBCASE("the segment table has the seed's layout") {
    const auto& j = small_run().j;
    const std::string t = format_segment_table(sec(j));
    const auto& h = j["header"];
    CHECK(t.rfind("\"" + h["cpu_model"].get<std::string>() + "\" @", 0) == 0);
    char fms[64];
    snprintf(fms, sizeof fms, "Mhz (%d,%d,%d):\n", h["family"].get<int>(), h["model"].get<int>(),
             h["stepping"].get<int>());
    CHECK(t.find(fms) != std::string::npos);
    CHECK(t.find("\nds=") != std::string::npos);
    CHECK(t.find(" TSC\n(entry fs=.. / gs=..: the selector the tested register held on entry to the loop") !=
          std::string::npos);
    for (const auto& c : j["cases"]) {
      const std::string head = "   " + c["name"].get<std::string>() + ": ";
      if (c.value("skipped", false))
        CHECK(t.find(head + "skipped: " + c["skip_message"].get<std::string>() + "\n") != std::string::npos);
      else
        CHECK(t.find(head) != std::string::npos);
    }
    CHECK(t.find("   gs with data selector, entry gs=2b: ") != std::string::npos);
    CHECK(t.find("   fs with data selector, entry fs=0: ") != std::string::npos);
    CHECK(t.find("ns/iteration (") != std::string::npos);
    // TSC ticks are never called cycles; the imul-chain figure says it is an estimate.
    CHECK(t.find(" estimated cycles)") != std::string::npos);
    CHECK_FALSE(std::regex_search(t, std::regex("[0-9] cycles\\)")));
  }
  SUBCASE("seed-exact text of a run here matches the seed's lines with the figures masked") {
    const auto& j = small_run().j;
    std::string t = format_segment_seed_text(sec(j));
    // The seed's last line when "cpu MHz" moved during the run (a host with cpufreq):
    // there exactly when the two readings differ as the seed's floats, and not a table line.
    const float mhz = float(j["header"]["mhz"].get<double>());
    const float after = float(j["header"].value("mhz_after", double(mhz)));
    const size_t moved = t.find("cpu speed changed ");
    CHECK((moved != std::string::npos) == (mhz != after));
    if (moved != std::string::npos) t.erase(moved);
    const auto want = golden::lines(mask(seed_table()));
    const auto tables = tables_of(t);
    // i386 (fs=0, gs non-null), then fs=gs= null, data (and LDT, GDT TLS, CPU/node where they load).
    CHECK(tables.size() >= 3);
    for (const auto& table : tables) {
      CAPTURE(table);
      const auto got = golden::lines(mask(table));
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(got[i]);
        const size_t colon = want[i].find(": ");
        if (colon != std::string::npos && got[i].rfind(want[i].substr(0, colon) + ": skipped: ", 0) == 0) continue;
        CHECK(got[i] == want[i]);
      }
    }
    const std::string data = j["header"]["selectors"]["data"];
    CHECK(golden::lines(tables.at(0)).at(1).rfind("ds=" + data.substr(2) + " fs=0 gs=", 0) == 0);
    CHECK(golden::lines(tables.at(0)).at(1).find("gs=0 ") == std::string::npos);
    CHECK(golden::lines(tables.at(1)).at(1).rfind("ds=" + data.substr(2) + " fs=0 gs=0 ", 0) == 0);
    CHECK(golden::lines(tables.at(2)).at(1).rfind("ds=" + data.substr(2) + " fs=2b gs=2b ", 0) == 0);
    CHECK(t.find(" CPUTIME \n") != std::string::npos);
  }
  SUBCASE("the segments section validates against the schemas") {
    const std::string d = tmp_dir();
    std::ofstream(d + "/seg.json") << small_run().j.dump(2);
    const std::string v = validate(d + "/seg.json");
    CHECK_MESSAGE(v.rfind("valid", 0) == 0, v);
    // And the schema rejects a skipped case without a reason, and an entry selector kind it does not know.
    auto bad = small_run().j;
    bad["cases"][0] = {{"name", "x"}, {"segment", "fs"}, {"selector", "0x0f"}, {"selector_kind", "ldt"},
                       {"variant", "2006"}, {"skipped", true}, {"skip_message", ""}};
    std::ofstream(d + "/bad.json") << bad.dump(2);
    CHECK(validate(d + "/bad.json").rfind("valid", 0) != 0);
    auto bad_entry = small_run().j;
    bad_entry["cases"][1]["entry_selector_kind"] = "tss";
    std::ofstream(d + "/bad2.json") << bad_entry.dump(2);
    CHECK(validate(d + "/bad2.json").rfind("valid", 0) != 0);
    std::filesystem::remove_all(d);
  }
}
