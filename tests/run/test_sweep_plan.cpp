// A run planned once: the SweepPlan carries the configs' kernel plans and the points,
// and run_sweep measures only a complete plan of its own shard.
#include <doctest/doctest.h>

#include <stdexcept>

#include "src/model/config.hpp"
#include "src/model/filter.hpp"
#include "src/run/sweep.hpp"

using namespace kex;

namespace {
const char* kTwoKernels = R"({"sizes": [4096, 8192], "kernels": [{"op": "copy", "regs": "avx"}],
  "baselines": ["memcpy"], "max_time_per_point": 0.002, "min_samples": 3})";
/// The canonical name of the config's kernel (its defaults spelt out).
const std::string kAvxKernel = "copy/avx/unroll:128/scratch:4/t/fwd";

RunOptions quiet_options() {
  RunOptions o;
  o.progress = false;
  return o;
}
}  // namespace

TEST_CASE("plan_sweep keeps each config's plans and each point's config, plan and coordinates" * doctest::test_suite("plan")) {
  const std::vector<Config> configs{parse_config(kTwoKernels, "t.json")};
  const SweepPlan p = plan_sweep(configs, quiet_options());
  REQUIRE(p.complete);
  REQUIRE(p.plans.size() == 1);
  REQUIRE(p.configs.size() == 1);
  REQUIRE(p.names == std::vector<std::string>{kAvxKernel + "/4096", kAvxKernel + "/8192", "memcpy/4096", "memcpy/8192"});
  REQUIRE(p.slots.size() == p.names.size());
  for (size_t i = 0; i < p.slots.size(); ++i) {
    CHECK(p.slots[i].name == p.names[i]);
    CHECK(p.slots[i].config == 0);
    CHECK(p.slots[i].at.size == (i % 2 ? 8192u : 4096u));
    CHECK(p.plans[0].plans.at(p.slots[i].plan).key == p.names[i].substr(0, p.names[i].rfind('/')));
  }
  RunOptions shard = quiet_options();
  shard.shard_index = 1;
  shard.shard_count = 2;
  CHECK(plan_sweep(configs, shard).names == std::vector<std::string>{kAvxKernel + "/8192", "memcpy/8192"});
}

TEST_CASE("plans made before --filter serve the filtered configs: the same points as planning them anew" * doctest::test_suite("plan")) {
  std::vector<Config> configs{parse_config(kTwoKernels, "t.json")};
  const RunOptions opt = quiet_options();
  std::vector<ConfigPlans> plans = plan_configs(configs, *opt.loaded);
  configs[0].filter = parse_name_filter("/4096$", "--filter");
  const SweepPlan once = plan_sweep(configs, std::move(plans), opt);
  CHECK(once.names == std::vector<std::string>{kAvxKernel + "/4096", "memcpy/4096"});
  CHECK(once.names == plan_sweep(configs, quiet_options()).names);
  CHECK_THROWS_AS(plan_sweep(configs, std::vector<ConfigPlans>{}, quiet_options()), std::invalid_argument);
}

TEST_CASE("run_sweep refuses a plan cut short at max_points or made for another shard, before measuring" * doctest::test_suite("plan")) {
  const std::vector<Config> configs{parse_config(kTwoKernels, "t.json")};
  const SweepPlan cut = plan_sweep(configs, quiet_options(), 1);
  REQUIRE_FALSE(cut.complete);
  CHECK(cut.names.size() == 2);  // max_points + 1
  CHECK_THROWS_AS(run_sweep(cut, quiet_options()), std::invalid_argument);
  const SweepPlan whole = plan_sweep(configs, quiet_options());
  RunOptions other = quiet_options();
  other.shard_count = 2;
  CHECK_THROWS_AS(run_sweep(whole, other), std::invalid_argument);
}
