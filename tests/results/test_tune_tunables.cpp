// kex tune's glibc tunables on synthetic records: which the dispatch suggests (the
// crossovers' rule over the sizes it sends to rep and to non-temporal loops), and the
// report of their validation with known figures, against a golden text.
#include <doctest/doctest.h>

#include "src/model/tune_json.hpp"
#include "src/results/crossover.hpp"
#include "src/results/tune_text.hpp"
#include "src/results/tune_tunables.hpp"
#include "src/results/validation.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// A record whose dispatch gives each size the kernel paired with it (ascending sizes).
TuneRecord dispatched(Op op, const std::vector<std::pair<uint64_t, std::string>>& at) {
  TuneRecord t;
  t.op = op;
  for (const auto& [size, kernel] : at) {
    TuneVerdict v;
    v.size = size;
    v.ranked = v.ties = {kernel};
    v.dispatched = kernel;
    t.verdicts.push_back(v);
  }
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  return t;
}

const uint64_t KiB = 1024, MiB = 1024 * KiB;

/// A copy tune: AVX to 256 KiB, rep movsb at 1 and 4 MiB, non-temporal from 16 MiB up.
TuneRecord copy_tune() {
  TuneRecord t = dispatched(Op::copy, {{64 * KiB, "copy/avx/t/fwd"},
                                       {256 * KiB, "copy/avx/t/fwd"},
                                       {1 * MiB, "rep_movsb"},
                                       {4 * MiB, "copy/string/unroll:1"},
                                       {16 * MiB, "copy/avx/unroll:256/nt/fwd"},
                                       {64 * MiB, "copy/avx/unroll:256/nt/fwd"}});
  t.budget_s = 120;
  t.used_s = 61;
  t.margin = 0.01;
  t.kept = {"memcpy", "rep_movsb"};
  return t;
}

PairedRatio ratio(double r, double lo, double hi) { return {r, lo, hi, 15}; }

}  // namespace

TEST_CASE("tune_suggestions: rep movsb at its widest run, non-temporal only when it holds up to the largest size" *
          doctest::test_suite("text")) {
  const std::vector<Tunable> t = tune_suggestions(copy_tune());
  REQUIRE(t.size() == 2);
  CHECK(t[0].name == "glibc.cpu.x86_non_temporal_threshold");
  CHECK(t[0].value == 16 * MiB - 1);
  CHECK(t[0].below == 4 * MiB);
  CHECK(!t[0].above);
  CHECK(t[1].name == "glibc.cpu.x86_rep_movsb_threshold");
  CHECK(t[1].value == 1 * MiB - 1);  // the baseline and the forward byte string loop are both rep movsb
  CHECK(t[1].from == 1 * MiB);
  CHECK(t[1].to == 4 * MiB);
  CHECK(t[1].below == 256 * KiB);
  CHECK(t[1].above == 16 * MiB);
  CHECK(tunables_string(t) == "glibc.cpu.x86_non_temporal_threshold=16777215:glibc.cpu.x86_rep_movsb_threshold=1048575");
  // Non-temporal in the middle only: no threshold (glibc's path holds for every larger size).
  CHECK(tune_suggestions(dispatched(Op::copy, {{1 * MiB, "copy/sse/nt/fwd"}, {4 * MiB, "memcpy"}})).empty());
  // A backward string loop is not glibc's rep movsb; libc everywhere suggests nothing.
  CHECK(tune_suggestions(dispatched(Op::copy, {{1 * MiB, "copy/string/unroll:1/bwd"}, {4 * MiB, "memcpy"}})).empty());
  // Clears: rep stosb, with its sizes; the small non-temporal threshold is raised to glibc's minimum.
  const std::vector<Tunable> c =
      tune_suggestions(dispatched(Op::clear, {{4 * KiB, "clear/avx/t/fwd"}, {16 * KiB, "rep_stosb"}}));
  REQUIRE(c.size() == 1);
  CHECK(c[0].name == "glibc.cpu.x86_rep_stosb_threshold");
  CHECK(c[0].op == Op::clear);
  CHECK(c[0].value == 16 * KiB - 1);
  // A clear tune's non-temporal loops suggest nothing: the threshold is memcpy's.
  const std::vector<Tunable> nt_clear = tune_suggestions(
      dispatched(Op::clear, {{4 * KiB, "clear/avx/t/fwd"}, {16 * KiB, "rep_stosb"}, {64 * MiB, "clear/avx/nt/fwd"}}));
  REQUIRE(nt_clear.size() == 1);
  CHECK(nt_clear[0].name == "glibc.cpu.x86_rep_stosb_threshold");
  const std::vector<Tunable> low = tune_suggestions(dispatched(Op::copy, {{4 * KiB, "copy/sse/nt/fwd"}}));
  REQUIRE(low.size() == 1);
  CHECK(low[0].value == 0x4040);
}

TEST_CASE("the tune report's validation: per tunable and size the change with its interval, advice only what helps" *
          doctest::test_suite("golden")) {
  TuneRecord t = copy_tune();
  const std::vector<Tunable> s = tune_suggestions(t);
  TuneValidation v;
  v.rounds = 15;
  v.budget_ms = 20;
  v.margin = 0.02;
  v.seconds = 8.4;
  for (const Tunable& x : s) {
    TunableCheck c{x, {}};
    c.measured.tunables = c.measured.tuned_saw = tunables_string({x});
    c.measured.cpu = 1;
    c.measured.rounds = 15;
    c.measured.sizes.push_back({*x.below, ratio(1.003, 0.991, 1.012)});
    c.measured.sizes.push_back({x.from, ratio(0.980, 0.960, 0.990)});
    v.checks.push_back(c);
  }
  v.checks[0].measured.sizes.push_back({32 * MiB, ratio(0.990, 0.975, 1.004)});  // non-temporal: no size beyond 2%
  // rep movsb from 1 MiB (glibc's vector loop below it): 15% faster at 256 KiB, 10% slower at
  // 768 KiB, then refined between them.
  v.checks[1].measured.sizes = {{256 * KiB, ratio(0.850, 0.830, 0.870)},
                                {768 * KiB, ratio(1.100, 1.080, 1.120)},
                                {1 * MiB, ratio(0.995, 0.985, 1.004)}};
  const std::optional<Tunable> r = refined_tunable(v.checks[1].tunable, v.checks[1].measured, v.margin);
  REQUIRE(r);
  CHECK(r->value == 454046);  // floor(sqrt(256 KiB * 768 KiB))
  TunableCheck again{*r, v.checks[1].measured};
  again.measured.tunables = again.measured.tuned_saw = tunables_string({*r});
  again.measured.sizes[1].change = ratio(1.001, 0.990, 1.010);
  v.checks.push_back(again);
  t.validation = v;
  CHECK(golden::check("tune-validation.txt", format_tune(t, "vm (AMD)")) == "");
  // The record round-trips through the reader, validation and all.
  const nlohmann::ordered_json j = to_json(t);
  CHECK(to_json(tune_from_json(nlohmann::json::parse(j.dump()), "f.json: /tune")).dump() == j.dump());

  // Nothing suggested: one line. Suggested but not measured: one line, no values, no advice.
  TuneRecord none = dispatched(Op::clear, {{4 * KiB, "memset"}});
  none.validation = TuneValidation{};
  const std::string quiet = format_tune(none, "vm");
  CHECK(quiet.substr(quiet.find("libc tunables")) == "libc tunables: none suggested (the dispatch never switches to rep stosb)\n");
  TuneRecord skipped = copy_tune();
  skipped.validation = TuneValidation{15, 20, 0.02, 0, "--no-validate", {{s[0], {}}, {s[1], {}}}};
  const std::string text = format_tune(skipped, "vm");
  CHECK(text.substr(text.find("libc tunables")) ==
        "libc tunables: 2 suggested (x86_non_temporal_threshold, x86_rep_movsb_threshold), not measured "
        "(--no-validate): no advice\n");
  CHECK(text.find("GLIBC_TUNABLES") == std::string::npos);
}
