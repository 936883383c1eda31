// `kex info`'s facts and its two writers (text for a terminal, JSON), apart from
// probing, so that each writer is checked on fixed facts (tests/golden/info.json).
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/info.hpp"
#include "src/run/counters.hpp"
#include "src/run/machine.hpp"

namespace kex {

/// What `kex info` reports: the machine as probed and what it lists beside it.
struct InfoFacts {
  explicit InfoFacts(const Machine& machine) : m(machine) {}
  const Machine& m;
  std::vector<int> allowed;            ///< the affinity mask before pinning
  std::vector<Counter> counters;       ///< kex's counter names and the software events
  std::vector<double> load;            ///< 1-, 5- and 15-minute load averages (empty: unknown)
  std::string pmu_note;                ///< pmu_status().message
  std::vector<std::string> pfm_pmus;   ///< libpfm4's tables for this CPU
  IfuncRecord ifunc;                   ///< what this process's memcpy, memmove and memset resolved to
  std::string version, git_commit, build_type;
};

/// Probes the facts (counters opened and closed, the load read now).
InfoFacts info_facts(const std::vector<int>& allowed);

/// The facts as `kex info --json` writes them: the machine as results describe it
/// (context.machine), with the facts beside it.
InfoRecord info_record(const InfoFacts& f);

/// `kex info --json`: info_record's JSON (src/model/info_json.cpp); dump(2) is the text.
inline auto info_json(const InfoFacts& f) { return to_json(info_record(f)); }

/// `kex info`'s lines; `pin_cpu` is the CPU a run pins to. Text from the machine is escaped
/// for the terminal.
std::string info_text(const InfoFacts& f, int pin_cpu);

}  // namespace kex
