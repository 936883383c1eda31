#include "src/run/journal_tune.hpp"

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"

namespace kex {

namespace {

constexpr double kYear = 366 * 86400.0;

template <class IO, class M>
void map_mark(IO& io, M& m) {
  io.whole("stage", m.stage, 1u, 100000u);
  io.whole("rounds", m.rounds, 1u, 100000u);
  io.wholes("sizes", m.sizes, 100000, uint64_t(0), UINT64_MAX);  // 0: a stream's race
  io.flag("refine", m.refine);
  io.flag("compose", m.compose);
  io.real("seconds", m.seconds, 0, kYear);
  io.real("used_s", m.used_s, 0, kYear);
}

}  // namespace

nlohmann::json to_json(const TuneStageMark& m) {
  nlohmann::json j;
  FieldWriter w(j);
  map_mark(w, m);
  return j;
}

TuneStageMark tune_stage_from(const nlohmann::json& j, const std::string& where) {
  TuneStageMark m;
  FieldReader in(j, where);
  map_mark(in, m);
  in.finish();
  return m;
}

}  // namespace kex
