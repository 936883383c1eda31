// `kex info --json`'s one field table (src/model/info.hpp): the machine's table of the
// results' context, then the facts kex info lists beside it.
#include "src/model/field_records.hpp"
#include "src/model/info.hpp"
#include "src/model/machine_fields.hpp"

namespace kex {

namespace {

template <class IO, class R>
void map_info(IO& io, R& r) {
  namespace mf = machine_fields;
  mf::map_machine(io, r.machine);
  io.text("kex_version", r.kex_version, mf::kAsWritten);
  io.text("kex_git_commit", r.kex_git_commit, mf::kAsWritten);
  io.text("kex_build_type", r.kex_build_type, mf::kAsWritten);
  io.text("allowed_cpus", r.allowed_cpus, mf::kAsWritten);
  io.reals("load_avg", r.load_avg, 3, 0, mf::kUnbounded);
  mf::maybe_text(io, "cpu_scaling_warning", r.cpu_scaling_warning);
  io.text("pmu_note", r.pmu_note, mf::kAsWritten);
  io.texts("libpfm4_pmus", r.libpfm4_pmus, mf::kMaxItems, mf::kAsWritten);
  io.list("counters", r.counters, 0, mf::kMaxItems, [](auto& e, auto& c) {
    e.text("name", c.name, mf::kAsWritten);
    e.text("event", c.event, mf::kAsWritten);
    e.flag("hardware", c.hardware);
    e.flag("available", c.ok);
    e.text("reason", c.reason, mf::kAsWritten);
  });
  io.object("ifunc", [&](auto& f) { mf::map_ifunc(f, r.ifunc); });
}

}  // namespace

nlohmann::ordered_json to_json(const InfoRecord& r) {
  return record_json(r, [](auto& io, auto& x) { map_info(io, x); });
}

}  // namespace kex
