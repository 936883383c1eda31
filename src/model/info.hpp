// What `kex info --json` writes: the machine as results describe it (context.machine)
// and what `kex info` lists beside it, as one record with one field table
// (src/model/info_json.cpp). src/cli/info.cpp fills it from the probed facts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"

namespace kex {

/// `kex info --json`'s document.
struct InfoRecord {
  MachineInfo machine;                            ///< its fields come first, as in context.machine
  std::string kex_version, kex_git_commit, kex_build_type;
  std::string allowed_cpus;                       ///< the affinity mask before pinning ("0-3,8")
  std::vector<double> load_avg;                   ///< 1-, 5- and 15-minute load averages (empty: unknown)
  std::optional<std::string> cpu_scaling_warning; ///< set when frequency scaling is on
  std::string pmu_note;                           ///< why there is no PMU ("" when there is one)
  std::vector<std::string> libpfm4_pmus;          ///< libpfm4's tables for this CPU
  std::vector<CounterRecord> counters;            ///< kex's counter names and the software events ("available": ok)
  IfuncRecord ifunc;                              ///< what memcpy, memmove and memset resolved to
};

/// The record as `kex info --json` prints it (dump(2)): the machine's keys, then the
/// others in the order above.
nlohmann::ordered_json to_json(const InfoRecord& r);

}  // namespace kex
