#include "src/model/tune_json.hpp"

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"

namespace kex {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ordered_json verdict_json(const SizeVerdict& v) {
  return {{"size", v.size},           {"rounds", v.rounds},      {"ranked", v.ranked},
          {"ties", v.ties},           {"dispatched", v.dispatched}, {"vs_leader", ratio_json(v.vs_leader)},
          {"vs_libc", ratio_json(v.vs_libc)}, {"vs_rep", ratio_json(v.vs_rep)}};
}

ordered_json drop_json(const RaceDrop& d) {
  ordered_json j = {{"size", d.size}, {"kernel", d.kernel}, {"stage", d.stage}};
  if (d.why.empty()) {
    j["leader"] = d.leader;
    j["vs_leader"] = ratio_json(d.vs_leader);
  } else {
    j["why"] = d.why;
  }
  return j;
}

/// Typed reads with the JSON path in every error.
struct Reader {
  const json& j;
  std::string where;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(where + "/" + key, what);
  }
  const json& at(const char* key) const {
    if (!j.is_object() || !j.contains(key)) fail(key, "missing");
    return j[key];
  }
  std::string str(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(key, v.dump() + ": expected a string");
    return v.get<std::string>();
  }
  double number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, v.dump() + ": expected a number");
    return v.get<double>();
  }
  uint64_t uint(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      fail(key, v.dump() + ": expected a non-negative integer");
    return v.get<uint64_t>();
  }
  bool flag(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) fail(key, v.dump() + ": expected true or false");
    return v.get<bool>();
  }
  std::vector<std::string> strings(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(key, "expected a list of strings");
    std::vector<std::string> out;
    for (const json& e : v) {
      if (!e.is_string()) fail(key, e.dump() + ": expected a string");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  /// Each element of the list `key` read by `f` with its own path.
  template <class F>
  void each(const char* key, F f) const {
    const json& v = at(key);
    if (!v.is_array()) fail(key, "expected a list");
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_object()) fail(std::string(key) + "/" + std::to_string(i), "expected an object");
      f(Reader{v[i], where + "/" + key + "/" + std::to_string(i)});
    }
  }
  PairedRatio ratio(const char* key) const {
    const json& v = at(key);
    if (!v.is_object()) fail(key, "expected an object (ratio, low, high, rounds)");
    const Reader r{v, where + "/" + key};
    return {r.number("ratio"), r.number("low"), r.number("high"), r.uint("rounds")};
  }
};

SizeVerdict verdict_from(const Reader& r) {
  SizeVerdict v;
  v.size = r.uint("size");
  v.rounds = r.uint("rounds");
  v.ranked = r.strings("ranked");
  v.ties = r.strings("ties");
  v.dispatched = r.str("dispatched");
  v.vs_leader = r.ratio("vs_leader");
  v.vs_libc = r.ratio("vs_libc");
  v.vs_rep = r.ratio("vs_rep");
  return v;
}

RaceDrop drop_from(const Reader& r) {
  RaceDrop d;
  d.size = r.uint("size");
  d.kernel = r.str("kernel");
  d.stage = uint32_t(r.uint("stage"));
  if (r.j.contains("why")) {
    d.why = r.str("why");
  } else {
    d.leader = r.str("leader");
    d.vs_leader = r.ratio("vs_leader");
  }
  return d;
}

DispatchTable dispatch_from(const Reader& r) {
  DispatchTable t;
  r.each("dispatch", [&](const Reader& e) {
    const json& m = e.at("max_bytes");
    DispatchEntry d;
    d.kernel = e.str("kernel");
    d.max_bytes = m.is_null() ? kDispatchRest : e.uint("max_bytes");
    if (!t.entries.empty() && (t.entries.back().max_bytes == kDispatchRest || d.max_bytes <= t.entries.back().max_bytes))
      e.fail("max_bytes", m.dump() + ": rows must ascend, the last one null (every larger size)");
    t.entries.push_back(std::move(d));
  });
  if (!t.entries.empty() && t.entries.back().max_bytes != kDispatchRest)
    r.fail("dispatch", "the last row's max_bytes must be null (every larger size)");
  return t;
}

}  // namespace

ordered_json to_json(const TuneRecord& t) {
  ordered_json j;
  j["op"] = to_string(t.op);
  j["budget_s"] = t.budget_s;
  j["used_s"] = t.used_s;
  j["margin"] = t.margin;
  j["kept"] = t.kept;
  ordered_json d = ordered_json::array();
  for (const DispatchEntry& e : t.dispatch.entries)
    d.push_back({{"max_bytes", e.max_bytes == kDispatchRest ? ordered_json(nullptr) : ordered_json(e.max_bytes)},
                 {"kernel", e.kernel}});
  j["dispatch"] = d;
  j["switches"] = ordered_json::array();
  for (const DispatchSwitch& s : t.switches)
    j["switches"].push_back({{"from", s.from}, {"to", s.to}, {"low", s.low}, {"high", s.high}, {"boundary", s.boundary}});
  j["verdicts"] = ordered_json::array();
  for (const SizeVerdict& v : t.verdicts) j["verdicts"].push_back(verdict_json(v));
  j["stages"] = ordered_json::array();
  for (const RaceStage& s : t.stages)
    j["stages"].push_back({{"stage", s.stage}, {"rounds", s.rounds}, {"sizes", s.sizes},
                           {"candidates", s.candidates}, {"seconds", s.seconds}, {"refine", s.refine}});
  j["drops"] = ordered_json::array();
  for (const RaceDrop& x : t.drops) j["drops"].push_back(drop_json(x));
  return j;
}

TuneRecord tune_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected an object (the tune section)");
  const Reader r{j, where};
  TuneRecord t;
  const std::string op = r.str("op");
  const auto parsed = parse_op(op);
  if (!parsed) r.fail("op", "\"" + op + "\": allowed copy, clear");
  t.op = *parsed;
  t.budget_s = r.number("budget_s");
  t.used_s = r.number("used_s");
  t.margin = r.number("margin");
  t.kept = r.strings("kept");
  t.dispatch = dispatch_from(r);
  r.each("switches", [&](const Reader& e) {
    t.switches.push_back({e.str("from"), e.str("to"), e.uint("low"), e.uint("high"), e.uint("boundary")});
  });
  r.each("verdicts", [&](const Reader& e) { t.verdicts.push_back(verdict_from(e)); });
  r.each("stages", [&](const Reader& e) {
    t.stages.push_back({uint32_t(e.uint("stage")), uint32_t(e.uint("rounds")), e.uint("sizes"), e.uint("candidates"),
                        e.number("seconds"), e.flag("refine")});
  });
  r.each("drops", [&](const Reader& e) { t.drops.push_back(drop_from(e)); });
  return t;
}

}  // namespace kex
