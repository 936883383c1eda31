#include "src/results/merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/noise.hpp"
#include "src/model/filter.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

struct Piece {
  std::string path;
  RunDoc run;
};

struct Group {
  std::string key;
  std::vector<Piece> pieces;
};

/// The noise of a merged run, from every piece's sentinel readings and counts: the
/// first piece's record alone would describe one run of several (seen: a merge of a
/// core-shared run, L1 loop 22.3 ticks/KiB, and a quiet one, 18.9, said 22.3). Without
/// the readings and record of every piece there is nothing true to say, and the record
/// goes; the readings there are stay.
void merge_noise(const std::vector<Piece>& pieces, RunDoc& out) {
  if (!out.context.protocol) return;
  std::vector<double> l1, mem;
  std::vector<SentinelWindow> readings;
  size_t disturbed = 0, tasks = 0, remeasured = 0, budget_tasks = 0;
  double budget = 0;
  bool every = true;  // every piece has its readings and its noise record
  for (const Piece& p : pieces) {
    const std::optional<Noise> n = run_noise(p.run.context);
    const std::vector<SentinelWindow>& listed = p.run.context.sentinel_readings;
    // A run without a sentinel (--no-sentinel) lists none and its record says it took none: none is missing.
    const bool has_readings = !listed.empty() || (n && n->readings == 0);
    every &= n && has_readings;
    if (!has_readings) continue;
    for (const SentinelWindow& x : listed) {
      readings.push_back(x);
      l1.push_back(x.reading.l1_ticks_per_kib);
      mem.push_back(x.reading.mem_ticks_per_kib);
    }
    if (!n) continue;
    disturbed += n->disturbed;
    tasks += n->tasks_measured;
    remeasured += n->remeasured_tasks;
    budget_tasks += n->budget_tasks;
    budget = n->budget;
  }
  out.context.sentinel_readings = readings;  // every reading that was taken is kept
  if (!every) {
    out.context.protocol->noise.reset();
    return;
  }
  out.context.protocol->noise = compute_noise(l1, mem, disturbed, tasks, remeasured, budget, budget_tasks, out.results);
}

/// The runs a results file's run holds: the runs of an earlier merge (its merged_from),
/// or itself.
std::vector<MergedFrom> runs_in(const RunContext& c, const std::string& path) {
  if (!c.merged_from.empty()) return c.merged_from;
  return {{path, c.host_name, c.date, c.shard_index, c.shard_count, c.run_id}};
}

/// Every input's runs, grouped by machine (in the order the machines first appear).
std::vector<Group> machine_groups(const std::vector<MergeInput>& inputs) {
  std::vector<Group> groups;
  for (const auto& in : inputs)
    for (const RunDoc& run : in.runs) {
      const std::string key = machine_key(run.context.machine);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
      if (it == groups.end()) {
        groups.push_back({key, {}});
        it = groups.end() - 1;
      }
      it->pieces.push_back({in.path, run});
    }
  if (groups.empty()) throw InputError("merge: no input files");
  return groups;
}

/// A file's distinct configs (an earlier merge of two machines run from one config holds
/// that config twice, once per machine), compared as JSON values as pooling compares them.
std::vector<ConfigJson> configs_of_file(const MergeInput& in) {
  std::vector<ConfigJson> v;
  for (const RunDoc& r : in.runs)
    for (const auto& c : r.context.configs)
      if (std::find(v.begin(), v.end(), c.config) == v.end()) v.push_back(c.config);
  return v;
}

/// Files of different configs merge, but the union is then not one sweep: say so.
void warn_different_configs(const std::vector<MergeInput>& inputs, std::vector<std::string>* warnings) {
  const auto within = [](const auto& x, const auto& y) {
    return std::all_of(x.begin(), x.end(), [&](const auto& e) { return std::find(y.begin(), y.end(), e) != y.end(); });
  };
  for (size_t i = 1; i < inputs.size() && warnings; ++i) {
    const auto a = configs_of_file(inputs[i]), b = configs_of_file(inputs[0]);
    if (!within(a, b) || !within(b, a)) {
      warnings->push_back(inputs[0].path + " and " + inputs[i].path + " were run from different configs");
      break;
    }
  }
}

/// A run given twice (the same file, a copy, or inside an earlier merge) would count
/// its repetitions twice. Two runs are one when their run ids agree or, where either
/// has none (files from before run ids), their host, date and shard do.
void check_each_run_once(const Group& g) {
  std::vector<std::pair<MergedFrom, std::string>> seen_run;  // each run, and the file it came in
  for (const auto& p : g.pieces)
    for (const MergedFrom& r : runs_in(p.run.context, p.path)) {
      if (r.date.empty()) continue;
      for (const auto& [s, file] : seen_run) {
        const bool same = !r.run_id.empty() && !s.run_id.empty()
                              ? r.run_id == s.run_id
                              : r.host_name == s.host_name && r.date == s.date && r.shard_index == s.shard_index;
        if (same)
          throw InputError(p.path + ": the same run as " + (file == p.path ? "another run in it" : file) + " (host " +
                           r.host_name + ", date " + r.date + (r.run_id.empty() ? "" : ", run " + r.run_id) +
                           "): pooling a run with itself would count its repetitions twice");
      }
      seen_run.push_back({r, p.path});
    }
}

/// The shards of a machine's pieces: their count (0 or 1: not sharded) and the file of each.
struct Shards {
  size_t count = 0;
  std::map<size_t, std::string> seen;
  bool complete() const { return count <= 1 || seen.size() == count; }
};

/// The shards of `g`, each once and of one count; a missing one is a warning.
Shards check_shards(const Group& g, std::vector<std::string>* warnings) {
  Shards sh;
  for (const auto& p : g.pieces) {
    const RunContext& c = p.run.context;
    if (c.shard_count == 1 && g.pieces.size() == 1) break;
    if (c.shard_count <= 1) continue;
    if (sh.count && c.shard_count != sh.count)
      throw InputError(p.path + ": context.shard.count: " + std::to_string(c.shard_count) + ": other shards of machine " +
                       g.key + " say " + std::to_string(sh.count) + "; merge shards of one run");
    sh.count = c.shard_count;
    auto [it, fresh] = sh.seen.emplace(c.shard_index, p.path);
    if (!fresh)
      throw InputError(p.path + ": context.shard.index: " + std::to_string(c.shard_index) + ": shard " +
                       std::to_string(c.shard_index) + "/" + std::to_string(c.shard_count) + " of machine " + g.key +
                       " is also in " + it->second);
  }
  if (sh.count > 1 && sh.seen.size() < sh.count && warnings) {
    std::string missing;
    for (size_t i = 0; i < sh.count; ++i)
      if (!sh.seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    warnings->push_back("machine " + g.key + ": shard(s) " + missing + " of " + std::to_string(sh.count) +
                        " missing: the merged point set is incomplete");
  }
  return sh;
}

/// Whole runs of one machine and the same configs pool as extra repetitions.
bool poolable(const Group& g) {
  const auto configs_of = [](const RunDoc& d) {
    std::vector<ConfigJson> v;
    for (const auto& c : d.context.configs) v.push_back(c.config);
    return v;
  };
  bool pool = g.pieces.size() > 1;
  for (const auto& p : g.pieces)
    pool &= p.run.context.shard_count == 1 && configs_of(p.run) == configs_of(g.pieces.front().run);
  return pool;
}

/// A piece's points into `out`: a point already there is refused, or with `pool` its
/// repetitions join the earlier ones (a point measured in one run only takes that run's).
/// Its rounds are numbered after `round_offset`: each piece numbered its own from 1, and a
/// round pairs only what one process measured in one window.
void add_points(const Piece& p, const Group& g, bool pool, uint64_t round_offset,
                std::map<std::string, std::string>& where, RunDoc& out) {
  for (Result r : p.run.results) {
    for (Repetition& rep : r.reps)
      if (rep.round) rep.round += round_offset;
    const std::string name = r.name();
    auto [it, fresh] = where.emplace(name, p.path);
    if (!fresh && pool) {
      auto same = std::find_if(out.results.begin(), out.results.end(), [&](const Result& x) { return x.name() == name; });
      if (!same->ok() && r.ok()) *same = r;
      else if (r.ok()) same->reps.insert(same->reps.end(), r.reps.begin(), r.reps.end());
      continue;
    }
    if (!fresh)
      throw InputError(p.path + ": benchmarks: " + name + ": also in " + it->second + " (machine " + g.key +
                       "); merge shards of one run, whole runs of the same configs (pooled as repetitions), or "
                       "runs of different machines");
    out.results.push_back(r);
  }
}

/// The merged context's shard, run and pool fields, from the pieces and their shards.
void finish_context(const Group& g, const Shards& sh, bool pool, RunDoc& out) {
  out.context.shard_index = 0;
  out.context.shard_count = sh.complete() ? 1 : sh.count;
  out.context.merged_shards.clear();
  if (!sh.complete())
    for (auto& [i, _] : sh.seen) out.context.merged_shards.push_back(i);
  if (g.pieces.size() == 1 && sh.count <= 1 && g.pieces.front().run.context.merged_from.empty())
    out.context.merged_from.clear();
  if (out.context.merged_from.size() > 1) out.context.run_id.clear();  // several runs: merged_from names each
  if (pool) {  // a piece that is itself a pool counts its own runs
    size_t runs = 0;
    for (const auto& p : g.pieces) runs += p.run.context.pooled_runs ? p.run.context.pooled_runs : 1;
    out.context.pooled_runs = runs;
  }
}

/// The pieces of one machine placed the workers of their multi-threaded points alike:
/// else their figures are of different machines' worth of contention (InputError).
void check_same_workers(const Group& g) {
  const auto places = [](const Piece& p) {
    return p.run.context.protocol ? p.run.context.protocol->threads : std::vector<ThreadPlace>{};
  };
  const Piece* with = nullptr;
  for (const Piece& p : g.pieces) {
    if (places(p).empty()) continue;
    if (!with) with = &p;
    else if (places(p) != places(*with))
      throw InputError(p.path + ": context/protocol/threads: its workers ran on other CPUs than those of " + with->path +
                       " (machine " + g.key + "); runs with different placements are not merged");
  }
}

/// One machine's pieces as one run.
RunDoc merge_group(Group& g, std::vector<std::string>* warnings) {
  std::stable_sort(g.pieces.begin(), g.pieces.end(), [](const Piece& a, const Piece& b) {
    return a.run.context.shard_index < b.run.context.shard_index;
  });
  check_each_run_once(g);
  const Shards sh = check_shards(g, warnings);
  const bool pool = poolable(g);
  RunDoc out;
  out.context = g.pieces.front().run.context;
  out.context.merged_from.clear();
  out.context.interrupted = false;
  std::map<std::string, std::string> where;
  check_same_workers(g);
  uint64_t round_offset = 0;
  for (const auto& p : g.pieces) {
    const RunContext& c = p.run.context;
    for (const MergedFrom& r : runs_in(c, p.path)) out.context.merged_from.push_back(r);  // the runs, not earlier merges
    out.context.interrupted |= c.interrupted;
    if (!out.context.segments && c.segments) out.context.segments = c.segments;
    if (&p != &g.pieces.front()) out.context.seed_tables.insert(out.context.seed_tables.end(), c.seed_tables.begin(),
                                                                c.seed_tables.end());
    add_points(p, g, pool, round_offset, where, out);
    uint64_t last = 0;  // the piece's highest round
    for (const Result& r : p.run.results)
      for (const Repetition& rep : r.reps) last = std::max(last, rep.round);
    round_offset += last;
  }
  finish_context(g, sh, pool, out);
  if (g.pieces.size() > 1) merge_noise(g.pieces, out);
  return out;
}

}  // namespace

std::vector<RunDoc> merge_results(const std::vector<MergeInput>& inputs, std::vector<std::string>* warnings) {
  std::vector<Group> groups = machine_groups(inputs);
  warn_different_configs(inputs, warnings);
  std::vector<RunDoc> merged;
  for (auto& g : groups) merged.push_back(merge_group(g, warnings));
  return merged;
}

namespace {

/// The "machines:" block: each machine's key, hosts, entries measured and shards.
std::string machines_block(const std::vector<RunDoc>& runs) {
  std::string o = "machines:\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunContext& ctx = runs[i].context;
    std::set<std::string> hosts;
    if (!ctx.merged_from.empty())
      for (const auto& f : ctx.merged_from) hosts.insert(f.host_name);
    else hosts.insert(ctx.host_name);
    std::string hs;  // host names and CPU models come from the files: escaped
    for (const auto& h : hosts) hs += (hs.empty() ? "" : ", ") + terminal_text(h);
    size_t ok = 0;
    for (const auto& r : runs[i].results) ok += r.ok();
    std::string shards = ctx.shard_count == 1 ? "complete" : std::to_string(ctx.merged_shards.size()) + " of " +
                                                                 std::to_string(ctx.shard_count) + " shards";
    o += "  M" + std::to_string(i + 1) + "  " + terminal_text(machine_key(ctx.machine)) + "\n      hosts: " + hs +
         fmt::format("; {} of {} entries measured; shards: {}\n", ok, runs[i].results.size(), shards);
  }
  return o;
}

/// Per machine: size -> median GB/s of one row.
using RowFigures = std::vector<std::map<uint64_t, double>>;

/// The geometric mean of each machine's GB/s over the sizes every machine that has the
/// row measured (NAN: none).
std::vector<double> common_means(const RowFigures& per) {
  std::set<uint64_t> common;
  bool first = true;
  for (const auto& m : per) {
    if (m.empty()) continue;
    std::set<uint64_t> s, x;
    for (auto& [size, _] : m) s.insert(size);
    std::set_intersection(common.begin(), common.end(), s.begin(), s.end(), std::inserter(x, x.begin()));
    common = first ? s : x;
    first = false;
  }
  std::vector<double> vals(per.size(), NAN);
  for (size_t i = 0; i < per.size(); ++i) {
    if (per[i].empty() || common.empty()) continue;
    double ls = 0;
    for (uint64_t s : common) ls += std::log(per[i].at(s));
    vals[i] = std::exp(ls / double(common.size()));
  }
  return vals;
}

}  // namespace

std::string machine_table(const std::vector<RunDoc>& runs, const std::string& filter, bool per_point) {
  const NameFilter name_filter = parse_name_filter(filter, "--filter");
  std::ostringstream o;
  o << machines_block(runs);
  // row (kernel and condition, or point name) -> per machine: size -> GB/s
  std::vector<std::string> order;
  std::map<std::string, RowFigures> data;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const Result& r : runs[i].results) {
      if (!r.ok()) continue;
      std::string key = r.point.kernel;
      if (per_point) key = r.name();
      else if (const std::string c = condition_label(condition(r.point.at)); !c.empty()) key += " @ " + c;
      if (!name_filter.keep(key)) continue;
      auto [it, fresh] = data.emplace(key, RowFigures(runs.size()));
      if (fresh) order.push_back(key);
      it->second[i][r.point.at.size] = median_gbps(r);
    }
  size_t w = per_point ? 9 : 6;
  for (const auto& k : order) w = std::max(w, display_width(terminal_text(k)));  // names come from the files
  o << "\n"
    << (per_point ? "median GB/s per entry" : "GB/s per kernel: geometric mean of median GB/s over the sizes every machine measured")
    << " (10^9 bytes/s; - = not measured; M2/M1 > 1: M2 is faster):\n";
  o << pad_right(per_point ? "benchmark" : "kernel", w);
  for (size_t i = 0; i < runs.size(); ++i) o << fmt::format(" {:>10}", "M" + std::to_string(i + 1));
  if (runs.size() > 1) o << "   M2/M1";
  o << "\n";
  for (const auto& k : order) {
    const std::vector<double> vals = common_means(data[k]);
    o << pad_right(terminal_text(k), w);
    for (double v : vals) o << (std::isnan(v) ? fmt::format(" {:>10}", "-") : fmt::format(" {:>10.3f}", v));
    if (vals.size() > 1)
      o << (std::isnan(vals[0]) || std::isnan(vals[1]) ? fmt::format(" {:>7}", "-")
                                                       : fmt::format(" {:>7.3f}", vals[1] / vals[0]));
    o << "\n";
  }
  return o.str();
}

}  // namespace kex
