// `kex crossovers --validate` on synthetic measurements: the sizes a tunable is checked
// at, the verdicts (helps, no measurable gain, slower) and their wording.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/core/error.hpp"
#include "src/results/validation.hpp"

using namespace kex;

namespace {

Tunable movsb() {
  Tunable t;
  t.name = "glibc.cpu.x86_rep_movsb_threshold";
  t.value = 262144;
  t.from = 262144;
  t.to = 1048576;
  t.below = 131072;
  t.above = 2097152;
  return t;
}

Validation validation_of(std::vector<PairedRatio> r) {
  Validation v;
  v.tunables = v.tuned_saw = "glibc.cpu.x86_rep_movsb_threshold=262144";
  v.rounds = 15;
  v.cpu = 1;
  const uint64_t sizes[] = {131072, 262144, 1048576};
  for (size_t i = 0; i < r.size(); ++i) v.sizes.push_back({sizes[i], r[i]});
  return v;
}

}  // namespace

TEST_CASE("validation_job: the sizes around a threshold, memcpy or memset") {
  LibcJob j = validation_job(movsb(), 20);
  CHECK(j.op == Op::copy);
  // a quarter, a half and the last size the crossover did not hold, three inside it, its first and last
  CHECK(j.sizes == std::vector<uint64_t>{32768, 65536, 131072, 155840, 185344, 220416, 262144, 1048576});
  CHECK(j.budget_ms == 20);
  Tunable nt = movsb();
  nt.name = "glibc.cpu.x86_non_temporal_threshold";
  nt.below.reset();
  nt.to = nt.from;  // no later size known: twice the first is checked
  CHECK(validation_job(nt, 5).sizes == std::vector<uint64_t>{262144, 524288});
  Tunable st = movsb();
  st.op = Op::clear;
  CHECK(validation_job(st, 5).op == Op::clear);
}

TEST_CASE("validation: a suggestion that does not measurably help is 'no measurable gain' and not advised") {
  const Validation flat = validation_of({{1.004, 0.991, 1.012, 15}, {0.990, 0.975, 1.003, 15}, {0.985, 0.97, 0.999, 15}});
  CHECK(judge(flat, 0.02) == Gain::no_measurable_gain);
  CHECK(format_validation(movsb(), flat, 0.02) ==
        "  glibc.cpu.x86_rep_movsb_threshold=262144 (memcpy; the tuned child saw "
        "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=262144, the default child none):\n"
        "    128 KiB   tuned/default 1.004 [0.991, 1.012] over 15 rounds: no measurable change\n"
        "    256 KiB   tuned/default 0.990 [0.975, 1.003] over 15 rounds: no measurable change\n"
        "    1 MiB     tuned/default 0.985 [0.970, 0.999] over 15 rounds: no measurable change\n"
        "    -> no measurable gain: not advised\n");
  CHECK(format_validated_advice({movsb()}, {judge(flat, 0.02)}) ==
        "  validated: none of the suggestions helped measurably; no advice\n");
  // The same figures at a margin of 0: 1 MiB's interval lies below 1.
  CHECK(judge(flat, 0) == Gain::helps);
}

TEST_CASE("validation: helps when faster beyond the margin somewhere and slower nowhere - slower is not advised") {
  const Validation good = validation_of({{1.0, 0.99, 1.01, 15}, {0.90, 0.88, 0.93, 15}, {0.85, 0.83, 0.87, 15}});
  CHECK(judge(good, 0.02) == Gain::helps);
  CHECK(format_validation(movsb(), good, 0.02).find("    256 KiB   tuned/default 0.900 [0.880, 0.930] over 15 rounds: "
                                                   "faster\n") != std::string::npos);
  CHECK(format_validation(movsb(), good, 0.02).find("-> helps\n") != std::string::npos);
  const Validation mixed = validation_of({{1.10, 1.05, 1.14, 15}, {0.90, 0.88, 0.93, 15}, {0.85, 0.83, 0.87, 15}});
  CHECK(judge(mixed, 0.02) == Gain::hurts);
  CHECK(format_validation(movsb(), mixed, 0.02).find("-> slower with it: not advised\n") != std::string::npos);
  Tunable nt = movsb();
  nt.name = "glibc.cpu.x86_non_temporal_threshold";
  nt.value = 8388608;
  CHECK(format_validated_advice({nt, movsb()}, {Gain::hurts, Gain::helps}) ==
        "  validated: GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=262144\n");
  const Validation few = validation_of({{0, 0, 0, 0}});
  CHECK(judge(few, 0.02) == Gain::undecided);
  CHECK(format_validation(movsb(), few, 0.02).find("too few rounds") != std::string::npos);
}

TEST_CASE("validation: fewer than 6 rounds give no verdict, however tight their [min, max]") {
  const Validation three = validation_of({{0.60, 0.59, 0.61, 3}, {1.50, 1.45, 1.55, 5}, {0.70, 0.69, 0.71, 6}});
  CHECK(judge(three, 0.02) == Gain::helps);  // only the 6-round size decides
  const std::string text = format_validation(movsb(), three, 0.02);
  CHECK(text.find("128 KiB   tuned/default 0.600 [0.590, 0.610] over 3 rounds: too few rounds for a 95% interval\n") !=
        std::string::npos);
  CHECK(text.find("over 5 rounds: too few rounds for a 95% interval\n") != std::string::npos);
  CHECK(text.find("over 6 rounds: faster\n") != std::string::npos);
  // A 1.7x gain over 3 rounds is not "no gain": the rounds cannot decide, and it says so.
  const Validation short_gain = validation_of({{0.60, 0.59, 0.61, 3}});
  CHECK(judge(short_gain, 0.02) == Gain::undecided);
  CHECK(format_validation(movsb(), short_gain, 0.02).find(
            "    -> not enough rounds to decide (a size needs 6 for a 95% interval): not advised, not ruled out\n") !=
        std::string::npos);
  CHECK(format_validated_advice({movsb()}, {Gain::undecided}) ==
        "  validated: no suggestion helped measurably (1 of 1 had too few rounds to decide: give the validation a larger "
        "budget); no advice\n");
}

namespace {

/// A validation of `t` at these sizes with these tuned/default ratios (15 rounds, tight).
Validation at_sizes(const Tunable& t, std::vector<std::pair<uint64_t, double>> r) {
  Validation v;
  v.tunables = v.tuned_saw = t.name + "=" + std::to_string(t.value);
  v.rounds = 15;
  for (const auto& [size, ratio] : r) v.sizes.push_back({size, {ratio, ratio - 0.01, ratio + 0.01, 15}});
  return v;
}

}  // namespace

TEST_CASE("refined_tunable: a value that was slower somewhere moves between the faster and the slower sizes") {
  // Raised (kex tune, this VM): glibc's vector loop instead of rep movsb up to 27583 was
  // faster to 25.8 KiB and slower at 26.4 KiB: the new value lies between them.
  Tunable raised = movsb();
  raised.value = 27583;
  raised.from = 27584;
  const Validation v = at_sizes(raised, {{6336, 0.61}, {25280, 0.79}, {26432, 0.93}, {27008, 1.17}, {27584, 1.0}});
  REQUIRE(judge(v, 0.02) == Gain::hurts);
  const std::optional<Tunable> r = refined_tunable(raised, v, 0.02);
  REQUIRE(r);
  CHECK(r->value == 26718);  // floor(sqrt(26432 * 27008))
  CHECK(r->refines == 27583);
  CHECK(r->from == raised.from);
  CHECK(format_validation(*r, at_sizes(*r, {{26432, 0.93}}), 0.02)
            .find("\n    refines 27583, slower at some sizes: this value lies between those it made faster and those it made "
                  "slower\n") !=
        std::string::npos);
  CHECK(!refined_tunable(*r, v, 0.02));  // once

  // Lowered: rep from 100000 up was slower at its first sizes and faster above them.
  Tunable lowered = movsb();
  lowered.value = 99999;
  const Validation low = at_sizes(lowered, {{50000, 1.0}, {120000, 1.2}, {150000, 1.1}, {200000, 0.8}});
  const std::optional<Tunable> l = refined_tunable(lowered, low, 0.02);
  REQUIRE(l);
  CHECK(l->value == 173205);  // floor(sqrt(150000 * 200000))

  // No value helps: nothing faster; faster and slower interleaved; changes on both sides.
  CHECK(!refined_tunable(raised, at_sizes(raised, {{25280, 1.0}, {27008, 1.17}}), 0.02));
  CHECK(!refined_tunable(raised, at_sizes(raised, {{6336, 1.2}, {25280, 0.79}, {27008, 1.17}}), 0.02));
  CHECK(!refined_tunable(raised, at_sizes(raised, {{25280, 0.79}, {27008, 1.17}, {40000, 0.9}}), 0.02));
  // A value that helps or changes nothing is not refined.
  CHECK(!refined_tunable(raised, at_sizes(raised, {{25280, 0.79}}), 0.02));
  // The non-temporal threshold stays at glibc's minimum or above: no room below 0x4040.
  Tunable nt = raised;
  nt.name = "glibc.cpu.x86_non_temporal_threshold";
  nt.value = 20000;
  CHECK(!refined_tunable(nt, at_sizes(nt, {{8000, 0.8}, {12000, 1.2}}), 0.02));
}

TEST_CASE("check_validation_job: a crossover beyond what a libc child times, or its memory limit, is one line first") {
  Tunable far = movsb();
  far.value = far.from = uint64_t(32) << 30;  // a crossover at 32 GiB
  far.to = uint64_t(32) << 30;
  far.below = uint64_t(16) << 30;
  CHECK_THROWS_WITH_AS(check_validation_job(validation_job(far, 20), far),
                       "--validate: 'glibc.cpu.x86_rep_movsb_threshold=34359738368' needs libc timed at 64 GiB "
                       "(68719476736 bytes): the libc children time sizes up to 4 GiB; leave --validate out, or give "
                       "sizes up to that",
                       InputError);
  CHECK_NOTHROW(check_validation_job(validation_job(movsb(), 20), movsb()));
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("the ulimit -v part skipped: AddressSanitizer reserves more address space than any ulimit -v leaves");
  return;
#endif
  // Under an address-space limit of 2 GiB, two buffers of 1 GiB do not fit (in a child: the limit stays there).
  Tunable gib = movsb();
  gib.value = gib.from = uint64_t(512) << 20;
  gib.to = uint64_t(1) << 30;
  gib.below = uint64_t(256) << 20;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    rlimit lim{};
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = rlim_t(2) << 30;
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
    try {
      check_validation_job(validation_job(gib, 20), gib);
    } catch (const InputError& e) {
      const std::string m = e.what();
      _exit(m.find(") pass the address-space limit (ulimit -v) of 2 GiB; raise it, or leave --validate out") != std::string::npos ? 0 : 4);
    }
    _exit(5);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
}
