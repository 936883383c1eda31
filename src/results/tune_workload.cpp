#include "src/results/tune_workload.hpp"

#include "src/model/dispatch_kernel.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>

#include "src/core/units.hpp"
#include "src/model/paired.hpp"
#include "src/model/source.hpp"
#include "src/model/spec.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/stream_text.hpp"
#include "src/results/tune_file.hpp"

namespace kex {

namespace {

/// What small strategy `s` does below one width (Small, src/model/spec.hpp).
std::string small_text(Small s, Op op) {
  switch (s) {
    case Small::bytes: return "single bytes";
    case Small::overlap: return "two overlapping moves";
    case Small::mask: return "one AVX-512BW masked move";
    case Small::rep: return op == Op::clear ? "rep stosb" : "rep movsb";
    case Small::table: return "two overlapping moves, the size class by a jump table";
  }
  return "?";
}

std::string loop_text(const KernelSpec& s) {
  std::string t = fmt::format("the {} loop, {} B an iteration", reg_class_info(s.regs).name, s.unroll);
  t += s.edges == Edges::overlap ? ", overlapping moves at the edges" : ", single bytes at the edges";
  if (s.store == Store::nontemporal) t += ", non-temporal stores";
  if (s.direction == Direction::backward) t += ", backward";
  return t;
}

/// The whole of a kernel that is not a spec's loop: rep, libc, glibc's variant, other code.
std::string code_text(const std::string& name, Op op) {
  if (name == "rep_movsb" || name == "rep_stosb") return name == "rep_movsb" ? "rep movsb" : "rep stosb";
  if (name == "memcpy" || name == "memset") return "the C library's " + name;
  if (name.rfind("glibc/", 0) == 0) return "glibc's " + name.substr(6);
  return op == Op::clear ? "its code (a memset)" : "its code (a memcpy)";
}

/// A spec's parts in the order the skeleton tests them: below one width its small path,
/// from rep:N rep, the loop between.
std::vector<StrategyRange> spec_ranges(const KernelSpec& s) {
  const uint64_t w = reg_class_info(s.regs).width;
  const std::string rep = s.op == Op::clear ? "rep stosb" : "rep movsb";
  if (s.regs == RegClass::string) return {{0, kNoBound, rep}};
  std::vector<StrategyRange> out;
  uint64_t from = 0;
  if (s.edges == Edges::overlap || s.small != Small::bytes) {
    out.push_back({0, w - 1, small_text(s.small, s.op)});
    from = w;
  }
  if (!s.rep_above) {
    out.push_back({from, kNoBound, loop_text(s)});
    return out;
  }
  if (s.rep_above > from) out.push_back({from, s.rep_above - 1, loop_text(s)});
  out.push_back({std::max<uint64_t>(from, s.rep_above), kNoBound, rep});
  return out;
}

std::string range_text(uint64_t lo, uint64_t hi) {
  if (lo == 0 && hi == kNoBound) return "every size";
  if (hi == kNoBound) return format_bytes(lo) + " and up";
  if (lo == hi) return format_bytes(lo);
  return hi < 1024 ? fmt::format("{}-{} B", lo, hi) : format_bytes(lo) + "-" + format_bytes(hi);
}

/// Why the tune chose `kernel` (the stream's one verdict): its place in the race.
std::string why_text(const TuneRecord& tune, const std::string& kernel) {
  if (tune.verdicts.empty() || tune.verdicts[0].ranked.empty()) return "no verdict recorded";
  const TuneVerdict& v = tune.verdicts[0];
  const size_t others = v.ranked.size() - 1, dropped = tune.drops.size();
  std::string t;
  const char* on = tune.streams.empty() ? "the stream" : "the mix (the weighted time per call)";
  if (v.ranked[0] == kernel) t = fmt::format("fastest on {} over {} rounds, of {} still racing", on, v.rounds, others + 1);
  else t = fmt::format("tied with the fastest, {} (its time {}), over {} rounds", md_text(v.ranked[0]),
                       ratio_text(v.vs_leader), v.rounds);
  std::vector<std::string> tied;
  for (const std::string& k : v.ties)
    if (k != kernel) tied.push_back(md_text(k));
  if (!tied.empty()) {
    t += "; within the margin of it:";
    for (size_t i = 0; i < tied.size(); ++i) t += (i ? ", " : " ") + tied[i];
  }
  if (dropped) t += fmt::format("; {} candidate{} left the race earlier, slower", dropped, dropped == 1 ? "" : "s");
  return t;
}

std::string dispatch_table(const TuneRecord& tune) {
  std::vector<std::vector<std::string>> rows;
  uint64_t lo = 0;
  for (const DispatchEntry& e : tune.dispatch.entries) {
    const uint64_t hi = e.max_bytes == kDispatchRest ? kNoBound : e.max_bytes;
    std::string how;
    for (const StrategyRange& r : strategy_ranges(e.kernel, tune.op, lo, hi))
      how += (how.empty() ? "" : "; ") + range_text(r.lo, r.hi) + ": " + r.what;
    rows.push_back({range_text(lo, hi), md_text(e.kernel), md_text(how), why_text(tune, e.kernel)});
    if (hi == kNoBound) break;
    lo = hi + 1;
  }
  return md_table({"sizes", "kernel", "strategy", "why chosen"}, "llll", rows);
}

/// ns per call of `r` (median over its repetitions) on its point's calls.
double ns_per_call(const Result& r) { return aggregate(r).median_ns / double(calls_per_operation(r.point.at)); }

/// The stream group's members the table compares, by role.
struct Competitors {
  const Result* tuned = nullptr;
  std::vector<std::pair<std::string, const Result*>> others;  ///< label (Markdown), result
};

Competitors competitors(const RunDoc& view, const GroupAnswer& g, const std::string& tuned, Op op) {
  Competitors c;
  const std::string pick = pick_of(view, op);
  const Result *libc = nullptr, *glibc = nullptr, *picked = nullptr, *rep = nullptr;
  for (const RankedMember& m : g.members) {  // fastest first
    const Result& r = view.results[m.result];
    const bool listed = r.impl && source_row(r.impl->source).ifunc_listed;
    if (r.point.kernel == tuned) c.tuned = &r;
    else if (r.libc) libc = &r;
    else if (listed && r.impl->symbol == pick) picked = &r;
    else if (listed && !glibc) glibc = &r;
    else if (r.point.kernel == "rep_movsb" || r.point.kernel == "rep_stosb") rep = &r;
  }
  const std::string fn = op == Op::clear ? "memset" : "memcpy";
  if (libc) c.others.push_back({fn + (pick.empty() ? "" : " (ifunc's pick, " + md_text(pick) + ")"), libc});
  if (picked) c.others.push_back({"ifunc's pick as glibc's variant, " + md_text(picked->point.kernel), picked});
  if (glibc) c.others.push_back({"glibc's fastest variant, " + md_text(glibc->point.kernel), glibc});
  if (rep) c.others.push_back({md_text(rep->point.kernel), rep});
  return c;
}

std::string time_table(const Competitors& c, const std::string& tuned) {
  std::vector<std::vector<std::string>> rows = {
      {"the tuned kernel, " + md_text(tuned), fmt::format("{:.2f}", ns_per_call(*c.tuned)), "-"}};
  for (const auto& [label, r] : c.others)
    rows.push_back({label, fmt::format("{:.2f}", ns_per_call(*r)),
                    ratio_text(paired_ratio(round_times(*c.tuned), round_times(*r)))});
  return md_table({"on the stream", "ns per call", "tuned kernel's time over it [95% interval]"}, "lrr", rows);
}

/// The sizes the file measured the tuned kernel at without a stream, beside the others'.
std::string fixed_table(const RunDoc& run, const Competitors& c, const std::string& tuned) {
  std::vector<uint64_t> sizes;
  for (const Result& r : run.results)
    if (r.point.kernel == tuned && r.point.at.stream.empty() && fixed_point(run, tuned, r.point.at.size, 1) == &r)
      sizes.push_back(r.point.at.size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.empty()) return "The tune measured no fixed sizes beside the stream.\n";
  std::vector<std::string> header = {"size", "tuned ns"};
  for (const auto& o : c.others) header.push_back(md_text(o.second->point.kernel) + " ns");
  std::vector<std::vector<std::string>> rows;
  for (uint64_t n : sizes) {
    std::vector<std::string> row = {format_bytes(n), fmt::format("{:.2f}", ns_per_call(*fixed_point(run, tuned, n, 1)))};
    for (const auto& o : c.others) {
      const Result* r = fixed_point(run, o.second->point.kernel, n, 1);
      row.push_back(r ? fmt::format("{:.2f}", ns_per_call(*r)) : "-");
    }
    rows.push_back(row);
  }
  return "Fixed sizes the file measured (ns per call, warm, the default layout):\n\n" +
         md_table(header, "l" + std::string(header.size() - 1, 'r'), rows);
}

/// " (weight 0.25 of the mix)" for a stream of the tune's mix; "" otherwise.
std::string mix_weight(const TuneRecord& tune, const std::string& stream) {
  for (const StreamVerdict& v : tune.streams)
    if (v.stream == stream) return fmt::format(" (weight {:.3g} of the mix)", v.weight);
  return "";
}

}  // namespace

std::string tune_workload_markdown(const RunDoc& run, const TuneRecord& tune) {
  if (tune.stream.empty() || tune.dispatch.entries.empty()) return "";
  const std::string fn = tune.op == Op::clear ? "memset" : "memcpy", tuned = tune.dispatch.entries[0].kernel;
  const char* what = tune.streams.empty() ? "stream" : "the mix of streams";  // a mix: its streams joined by ','
  std::string s = fmt::format("A {} for {} {} (footprint {}): `kex emit --tune` writes this dispatch.\n\n", fn, what,
                              md_text(tune.stream), md_text(tune.footprint)) +
                  dispatch_table(tune) + "\n";
  const RunDoc view = race_view(run, tune);
  std::vector<GroupAnswer> answers = answer_groups(view, tune.margin);
  const auto place = [&](const GroupAnswer& g) {  // a mix's streams in the order given
    size_t i = 0;
    while (i < tune.streams.size() && tune.streams[i].stream != g.key.at.stream) ++i;
    return i;
  };
  std::stable_sort(answers.begin(), answers.end(), [&](const auto& a, const auto& b) { return place(a) < place(b); });
  std::optional<Competitors> first;  // the fixed sizes' table reads its competitors' names
  for (const GroupAnswer& g : answers) {
    if (!is_stream_group(g)) continue;
    const Competitors c = competitors(view, g, tuned, tune.op);
    if (!c.tuned) continue;
    if (tune.streams.empty())
      s += fmt::format("Time per call on the stream, in the race's {} paired rounds (median over rounds):\n\n", g.rounds);
    else
      s += fmt::format("On stream {}{}: time per call in the race's {} paired rounds (median over rounds):\n\n",
                       md_text(g.key.at.stream), mix_weight(tune, g.key.at.stream), g.rounds);
    s += time_table(c, tuned) + "\n";
    if (!first) first = c;
    if (tune.streams.empty()) break;  // one stream: its group
  }
  if (!first) return s + "The file holds no paired rounds of the tuned kernel on the stream.\n";
  if (std::none_of(first->others.begin(), first->others.end(), [](const auto& o) { return o.first.rfind("glibc's", 0) == 0; }))
    s += "glibc's variants did not race (kex tune --glibc races them).\n\n";
  return s + fixed_table(run, *first, tuned);
}

std::vector<StrategyRange> strategy_ranges(const std::string& name, Op op, uint64_t lo, uint64_t hi) {
  if (is_dispatch_name(name)) {  // a composed dispatch: each row's member over the row's sizes
    std::vector<StrategyRange> out;
    const DispatchTable t = flat_dispatch({{{kDispatchRest, name}}});
    uint64_t row_lo = 0;
    for (const DispatchEntry& e : t.entries) {
      const uint64_t row_hi = e.max_bytes == kDispatchRest ? kNoBound : e.max_bytes;
      if (std::max(lo, row_lo) <= std::min(hi, row_hi))
        for (const StrategyRange& r : strategy_ranges(e.kernel, op, std::max(lo, row_lo), std::min(hi, row_hi)))
          out.push_back(r);
      if (row_hi == kNoBound) break;
      row_lo = row_hi + 1;
    }
    return out;
  }
  std::vector<StrategyRange> all;
  try {
    all = spec_ranges(parse_spec_name(name));
  } catch (const std::invalid_argument&) {
    all = {{0, kNoBound, code_text(name, op)}};
  }
  std::vector<StrategyRange> out;
  for (StrategyRange r : all) {
    r.lo = std::max(r.lo, lo);
    r.hi = std::min(r.hi, hi);
    if (r.lo <= r.hi) out.push_back(r);
  }
  return out;
}

}  // namespace kex
