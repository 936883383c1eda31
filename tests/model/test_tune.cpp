// kex tune's decisions on synthetic data: the dispatch that switches as rarely as the
// tie sets allow, the race's drops (never the reference), and the tune section's JSON
// round trip with its errors for hostile files.
#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/model/dispatch_kernel.hpp"
#include "src/model/tune.hpp"
#include "src/model/tune_json.hpp"
#include "src/results/tune_text.hpp"

using namespace kex;

namespace {

TuneVerdict at(uint64_t size, std::vector<std::string> ties) {
  TuneVerdict v;
  v.size = size;
  v.ranked = ties;
  v.ties = std::move(ties);
  v.rounds = 10;
  return v;
}

/// A copy result at `size` measured in rounds 1..n, its median ticks `base` in each
/// round times the round's shared state (1 or 1.5) and its own small noise.
Result tune_member(const std::string& kernel, uint64_t size, double base, bool libc = false) {
  Result r;
  r.point = {kernel, {}};
  r.point.at.size = size;
  r.op = Op::copy;
  r.kind = libc ? KernelKind::baseline : KernelKind::generated;
  if (libc) r.libc = LibcFacts{Function::memcpy};
  r.tsc_hz = 1e9;
  for (uint64_t k = 1; k <= 12; ++k) {
    Repetition rep;
    rep.per_call.n = 8;
    rep.per_call.median = base * (k % 3 == 0 ? 1.5 : 1.0) * (1 + 0.001 * double(k % 4));
    rep.round = k;
    rep.stop_reason = "round";
    r.reps.push_back(rep);
  }
  return r;
}

}  // namespace

TEST_CASE("dispatch: the tied kernel that lasts longest, switches between the sizes it stops at" *
          doctest::test_suite("model")) {
  const std::vector<TuneVerdict> v = {at(1024, {"A", "B"}), at(4096, {"B"}), at(16384, {"C", "B"}),
                                      at(65536, {"C"}), at(262144, {"C", "D"})};
  std::vector<DispatchSwitch> sw;
  const DispatchTable t = choose_dispatch(v, &sw);
  REQUIRE(t.entries.size() == 2);
  CHECK(t.entries[0].kernel == "B");   // A lasts one size, B three
  CHECK(t.entries[0].max_bytes == 32768);  // the geometric mean of 16 KiB and 64 KiB
  CHECK(t.entries[1].kernel == "C");
  CHECK(t.entries[1].max_bytes == kDispatchRest);
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].from == "B");
  CHECK(sw[0].to == "C");
  CHECK(sw[0].low == 16384);
  CHECK(sw[0].high == 65536);
  CHECK(t.kernel_for(1) == "B");
  CHECK(t.kernel_for(32768) == "B");
  CHECK(t.kernel_for(32769) == "C");
  CHECK(t.kernel_for(kDispatchRest) == "C");
  CHECK(dispatch_text(t) == "32768:B,C");
  // Equal runs: the first in rank order; no verdicts: no table.
  CHECK(choose_dispatch({at(64, {"X", "Y"}), at(128, {"Y", "X"})}, nullptr).entries[0].kernel == "X");
  CHECK(choose_dispatch({}, nullptr).entries.empty());
  // Among ties, a kernel that takes any address before an aligned spec, even one ranked first
  // and tied longer; an aligned spec only where nothing else ties.
  const std::string aligned = "copy/avx/unroll:128/scratch:4/t/fwd/aligned", any = "copy/avx/unroll:128/scratch:4/t/fwd";
  const DispatchTable prefer = choose_dispatch({at(4096, {aligned, any}), at(8192, {aligned, any}), at(16384, {aligned}),
                                                at(32768, {"rep_movsb", any})},
                                               nullptr);
  REQUIRE(prefer.entries.size() == 3);
  CHECK(prefer.entries[0].kernel == any);
  CHECK(prefer.entries[1].kernel == aligned);
  CHECK(prefer.entries[2].kernel == "rep_movsb");
  // Adjacent sizes one byte apart still give an ascending table.
  const DispatchTable close = choose_dispatch({at(100, {"A"}), at(101, {"B"})}, nullptr);
  CHECK(close.entries[0].max_bytes == 100);
}

TEST_CASE("race drops: shown slower than the leader beyond the margin, never the reference" *
          doctest::test_suite("model")) {
  RunDoc run;
  run.results = {tune_member("copy/avx/t/fwd", 4096, 100), tune_member("copy/sse/t/fwd", 4096, 100.3),
                 tune_member("copy/gpr/t/fwd", 4096, 130), tune_member("memcpy", 4096, 140, true)};
  const std::vector<GroupAnswer> g = answer_groups(run);
  REQUIRE(g.size() == 1);
  const std::vector<RaceDrop> d = race_drops(g[0], run, 0.01, {"memcpy", "rep_movsb"}, 2);
  REQUIRE(d.size() == 1);
  CHECK(d[0].kernel == "copy/gpr/t/fwd");
  CHECK(d[0].leader == "copy/avx/t/fwd");
  CHECK(d[0].stage == 2);
  CHECK(d[0].vs_leader.low > 1.25);
  const TuneVerdict v = verdict_of(g[0], run);
  CHECK(v.size == 4096);
  CHECK(v.ties == std::vector<std::string>{"copy/avx/t/fwd", "copy/sse/t/fwd"});
  CHECK(v.ranked.back() == "memcpy");
}

TEST_CASE("the tune section: a round trip, and one-line errors for a hostile one" * doctest::test_suite("model")) {
  TuneRecord t;
  t.op = Op::clear;
  t.budget_s = 60;
  t.used_s = 41.5;
  t.margin = 0.01;
  t.kept = {"memset", "rep_stosb"};
  t.dispatch = choose_dispatch({at(256, {"clear/avx/t/fwd"}), at(1 << 20, {"rep_stosb"})}, &t.switches);
  t.verdicts = {at(256, {"clear/avx/t/fwd"})};
  t.verdicts[0].dispatched = "clear/avx/t/fwd";
  t.verdicts[0].vs_libc = {0.8, 0.75, 0.85, 10};
  t.stages = {{1, 5, 2, 40, 12.5, false}, {2, 10, 1, 3, 1.5, true}};
  t.drops = {{256, "clear/gpr/t/fwd", "clear/avx/t/fwd", "", 1, {1.4, 1.3, 1.5, 5}},
             {1 << 20, "clear/x87", "", "failed verification", 1, {}}};
  Tunable stosb{"glibc.cpu.x86_rep_stosb_threshold", 1048575, Op::clear, 1 << 20, 1 << 20, 256, std::nullopt, std::nullopt};
  Validation measured{"glibc.cpu.x86_rep_stosb_threshold=1048575", "", "glibc.cpu.x86_rep_stosb_threshold=1048575", 1, 15,
                      {{256, {1.0, 0.99, 1.01, 15}}, {1 << 20, {0.9, 0.88, 0.93, 15}}}};
  Tunable refined = stosb;  // a second value after the first was slower somewhere
  refined.value = 724000;
  refined.refines = 1048575;
  t.validation = TuneValidation{15, 20, 0.02, 3.5, "", {{stosb, measured}, {refined, measured}}};
  const nlohmann::ordered_json j = to_json(t);
  CHECK(!j["validation"]["checks"][0]["tunable"].contains("refines"));
  CHECK(j["validation"]["checks"][1]["tunable"]["refines"] == 1048575);
  CHECK(!j["dispatch"][1].contains("max_bytes"));
  CHECK(j["validation"]["checks"][0]["tunable"]["below"] == 256);
  CHECK(!j["validation"]["checks"][0]["tunable"].contains("above"));
  CHECK(!j["validation"].contains("not_measured"));
  const TuneRecord back = tune_from_json(nlohmann::json::parse(j.dump()), "f.json: /tune");
  CHECK(to_json(back).dump() == j.dump());
  CHECK(back.dispatch.kernel_for(16384) == "clear/avx/t/fwd");
  CHECK(back.dispatch.kernel_for(16385) == "rep_stosb");

  auto error_of = [&](const std::string& path, const nlohmann::json& value) {
    nlohmann::json bad = nlohmann::json::parse(j.dump());
    bad[nlohmann::json::json_pointer(path)] = value;
    try {
      tune_from_json(bad, "f.json: /tune");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("/op", "move") == "f.json: /tune/op: \"move\": allowed: copy, clear");
  // read is an op, but no dispatch's: kex emit --tune would write a memset of read kernels.
  CHECK(error_of("/op", "read") == "f.json: /tune/op: \"read\": allowed: copy, clear");
  CHECK(error_of("/validation/checks/0/tunable/op", "read") ==
        "f.json: /tune/validation/checks/0/tunable/op: \"read\": allowed: copy, clear");
  CHECK(error_of("/dispatch/0/max_bytes", nullptr) ==
        "f.json: /tune/dispatch/0/max_bytes: missing: only the last row takes every larger size");
  CHECK(error_of("/dispatch/1/max_bytes", 1 << 30) ==
        "f.json: /tune/dispatch/1/max_bytes: present on the last row: it takes every larger size, without max_bytes");
  // A row's kernel is one name: with a ',' kex emit --tune read it as two rows; a preset is no race's row.
  CHECK(error_of("/dispatch/0/kernel", "clear/sse/unroll:64/scratch:4/t/fwd,100000:memset") ==
        "f.json: /tune/dispatch/0/kernel: 'clear/sse/unroll:64/scratch:4/t/fwd,100000:memset': not one kernel name: a "
        "kernel spec name or a baseline (memcpy, memset, rep_movsb, rep_stosb), what kex tune races, or a dispatch kernel as the only row");
  CHECK(error_of("/dispatch/1/kernel", "linux/clear_page").find("f.json: /tune/dispatch/1/kernel: 'linux/clear_page': ") == 0);
  CHECK(error_of("/dispatch/1/kernel", "memset") == "no error");  // libc tied best: its row calls libc
  // A dispatch kernel (a stream's composition) only as the table's one row: beside others its ',' splits rows.
  CHECK(error_of("/dispatch/1/kernel", "dispatch:64:clear/sse,rep_stosb")
            .find("f.json: /tune/dispatch/1/kernel: 'dispatch:64:clear/sse,rep_stosb': not one kernel name") == 0);
  {
    nlohmann::json one = nlohmann::json::parse(j.dump());
    one["dispatch"] = nlohmann::json::array({{{"kernel", "dispatch:64:clear/sse,rep_stosb"}}});
    const TuneRecord r = tune_from_json(one, "f.json: /tune");
    CHECK(r.dispatch.entries.size() == 1);
    const DispatchTable flat = flat_dispatch(r.dispatch);
    REQUIRE(flat.entries.size() == 2);
    CHECK(flat.entries[0].max_bytes == 64);
    CHECK(flat.entries[0].kernel == spec_name(parse_spec_name("clear/sse")));
    CHECK(flat.entries[1].kernel == "rep_stosb");
  }
  CHECK(error_of("/dispatch/0/max_bytes", uint64_t(1) << 61) ==
        "f.json: /tune/dispatch/0/max_bytes: 2305843009213693952: expected an integer in 1..1152921504606846976");
  CHECK(error_of("/verdicts/0/ties", "x").find("f.json: /tune/verdicts/0/ties: \"x\": ") == 0);
  CHECK(error_of("/stages/1/rounds", -1).find("f.json: /tune/stages/1/rounds: -1: ") == 0);
  CHECK(error_of("/drops/0/vs_leader", 3).find("f.json: /tune/drops/0/vs_leader: 3: ") == 0);
  CHECK(error_of("/drops/0/kernel", "clear/gpr\x1b[2J").find("f.json: /tune/drops/0/kernel: ") == 0);
  CHECK(error_of("/extra", 1).find("f.json: /tune/extra: ") == 0);
  CHECK(error_of("/validation/checks/0/tunable/name", "x").find("f.json: /tune/validation/checks/0/tunable/name: \"x\": ") == 0);
  CHECK(error_of("/validation/checks/0/measured/sizes/1/change/low", -1)
            .find("f.json: /tune/validation/checks/0/measured/sizes/1/change/low: -1: ") == 0);
  CHECK(error_of("/validation/checks/1/tunable/refines", -1).find("f.json: /tune/validation/checks/1/tunable/refines: -1: ") ==
        0);
  CHECK(error_of("/validation/margin", 2).find("f.json: /tune/validation/margin: 2: ") == 0);
  // A file of a kex before the validation has none, and reads.
  nlohmann::json old = nlohmann::json::parse(j.dump());
  old.erase("validation");
  CHECK(!tune_from_json(old, "f.json: /tune").validation);
}

TEST_CASE("the tune report: each size's kernel with its intervals, the table for kex emit, names escaped" *
          doctest::test_suite("model")) {
  TuneRecord t;
  t.budget_s = 60;
  t.used_s = 30;
  t.kept = {"memcpy", "rep_movsb"};
  t.verdicts = {at(4096, {"copy/avx/t/fwd", "copy/sse/t/fwd"}), at(1 << 24, {"copy/avx/nt/fwd\x1b[31m"})};
  t.verdicts[0].dispatched = "copy/avx/t/fwd";
  t.verdicts[0].vs_libc = {0.8, 0.75, 0.85, 10};
  t.verdicts[0].vs_rep = {1.0, 0.99, 1.02, 10};
  t.verdicts[1].dispatched = "copy/avx/nt/fwd\x1b[31m";
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  const std::string text = format_tune(t, "vm (AMD)");
  CHECK(text.find("kex tune: copy on vm (AMD): 2 sizes, 30 s of a 60 s budget\n") == 0);
  CHECK(text.find("0.80x [0.75-0.85]") != std::string::npos);
  CHECK(text.find("same [0.99-1.02]") != std::string::npos);
  CHECK(text.find("  n <= 256 KiB   copy/avx/t/fwd\n") != std::string::npos);
  CHECK(text.find("switch copy/avx/t/fwd -> copy/avx/nt/fwd") != std::string::npos);
  CHECK(text.find("--dispatch '262144:copy/avx/t/fwd,copy/avx/nt/fwd") != std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
}

TEST_CASE("the tune report's table keeps its columns for names with non-ASCII characters and a long machine name" *
          doctest::test_suite("model")) {
  TuneRecord t;
  t.kept = {"m\xc3\xa9mcpy", "rep_movsb"};  // "mémcpy": 7 bytes, 6 columns
  t.verdicts = {at(4096, {"copy/avx/t/fwd"}), at(8192, {"copy/\xc3\xa9/t/fwd"})};  // 14 columns; 12 columns in 13 bytes
  t.verdicts[0].dispatched = "copy/avx/t/fwd";
  t.verdicts[1].dispatched = "copy/\xc3\xa9/t/fwd";
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  const std::string machine(400, 'm');
  const std::string text = format_tune(t, machine);
  // The whole machine name and the rest of the line (a 256-byte buffer cut both).
  CHECK(text.find("kex tune: copy on " + machine + ": 2 sizes, 0 s of a 0 s budget\n") == 0);
  // Names padded to the widest name's 14 columns, the header's "time / mémcpy" to 20.
  CHECK(text.find("\nsize       dispatch        ties time / m\xc3\xa9mcpy        time / rep_movsb     rounds\n") !=
        std::string::npos);
  CHECK(text.find("\n4 KiB      copy/avx/t/fwd     1 -                    -                    10\n") != std::string::npos);
  CHECK(text.find("\n8 KiB      copy/\xc3\xa9/t/fwd       1 -                    -                    10\n") !=
        std::string::npos);
}

TEST_CASE("the tune report of a tune stopped before a stage finished: no dispatch, no emit line, validation not measured" *
          doctest::test_suite("model")) {
  TuneRecord t;
  t.kept = {"memcpy", "rep_movsb"};
  t.validation = TuneValidation{};
  t.validation->not_measured = "stopped";
  const std::string text = format_tune(t, "vm");
  CHECK(text.find("\ndispatch: none (no stage finished)\n") != std::string::npos);
  CHECK(text.find("kex emit") == std::string::npos);
  CHECK(text.find("\nlibc tunables: not measured (stopped)\n") != std::string::npos);
  CHECK(text.find("none suggested") == std::string::npos);
}

TEST_CASE("the tune report with --glibc: each size's time over glibc's fastest variant beside memcpy's and rep's" *
          doctest::test_suite("model")) {
  TuneRecord t;
  t.budget_s = 60;
  t.used_s = 30;
  t.kept = {"memcpy", "rep_movsb", "glibc/__memcpy_avx_unaligned_erms", "glibc/__memcpy_erms"};
  t.verdicts = {at(4096, {"copy/avx/t/fwd"}), at(65536, {"copy/avx/t/fwd"})};
  for (TuneVerdict& v : t.verdicts) v.dispatched = "copy/avx/t/fwd";
  t.verdicts[0].vs_libc = {0.8, 0.75, 0.85, 10};
  t.verdicts[0].vs_rep = {0.9, 0.85, 0.95, 10};
  t.verdicts[0].glibc = "glibc/__memcpy_avx_unaligned_erms";
  t.verdicts[0].vs_glibc = {0.84, 0.8, 0.88, 10};
  t.verdicts[1].vs_libc = {1.0, 0.99, 1.02, 10};
  t.verdicts[1].vs_rep = {1.1, 1.05, 1.15, 10};
  t.verdicts[1].glibc = "glibc/__memcpy_erms\x1b[31m";
  t.verdicts[1].vs_glibc = {1.2, 1.1, 1.3, 10};
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  const std::string text = format_tune(t, "vm");
  const std::string table = text.substr(text.find('\n') + 1, text.find("dispatch:") - text.find('\n') - 1);
  CHECK(table ==
        "size       dispatch        ties time / memcpy        time / rep_movsb     time / glibc's fastest  rounds  glibc's fastest\n"
        "4 KiB      copy/avx/t/fwd     1 0.80x [0.75-0.85]    0.90x [0.85-0.95]    0.84x [0.80-0.88]           10  glibc/__memcpy_avx_unaligned_erms\n"
        "64 KiB     copy/avx/t/fwd     1 same [0.99-1.02]     1.10x [1.05-1.15]    1.20x [1.10-1.30]           10  glibc/__memcpy_erms\\x1b[31m\n");
  // Markdown: the same columns, the variant's name escaped for Markdown.
  const std::string md = format_tune_markdown(t, "vm");
  CHECK(md.find("| time / glibc's fastest | rounds | glibc's fastest |") != std::string::npos);
  CHECK(md.find("| 1.20x [1.10-1.30] | 10 | glibc/\\_\\_memcpy\\_erms") != std::string::npos);
  // The fields round-trip; a verdict without them (no --glibc, or a kex before them) reads, and the table keeps its columns.
  t.verdicts[1].glibc = "glibc/__memcpy_erms";  // a file's names hold no control characters (the reader refuses them)
  const TuneRecord back = tune_from_json(nlohmann::json::parse(to_json(t).dump()), "f.json: /tune");
  CHECK(back.verdicts[0].glibc == t.verdicts[0].glibc);
  CHECK(back.verdicts[1].vs_glibc.high == doctest::Approx(1.3));
  nlohmann::json old = nlohmann::json::parse(to_json(t).dump());
  for (auto& v : old["verdicts"]) v.erase("glibc"), v.erase("vs_glibc");
  const TuneRecord before = tune_from_json(old, "f.json: /tune");
  CHECK(before.verdicts[0].glibc.empty());
  CHECK(format_tune(before, "vm").find("glibc's fastest") == std::string::npos);
}
