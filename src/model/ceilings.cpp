#include "src/model/ceilings.hpp"

#include <algorithm>
#include <cstdio>

#include "src/core/units.hpp"
#include "src/model/group.hpp"

namespace kex {

namespace {

constexpr uint64_t kProbePage = 4096;

uint64_t half_in_pages(uint64_t bytes) {
  return std::min(kMaxCacheProbe, std::max(kProbePage, bytes / 2 / kProbePage * kProbePage));
}

/// The probe kinds a result can be: read, temporal write, non-temporal write.
enum class ProbeKind { read, write, nt_write, other };

ProbeKind kind_of(const Result& r) {
  if (!r.spec) return ProbeKind::other;
  if (r.op == Op::read) return ProbeKind::read;
  if (r.op != Op::clear) return ProbeKind::other;
  return r.spec->store == Store::nontemporal ? ProbeKind::nt_write : ProbeKind::write;
}

/// Keeps the faster of (gbps, name) and a result's median.
void keep_best(double& gbps, std::string& name, const Result& r) {
  const double g = gbps_at(moved_bytes(r.point.at), aggregate(r).median_ns);
  if (g > gbps) gbps = g, name = r.point.kernel;
}

/// A fraction printed as "0.61".
std::string frac(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::vector<ProbeLevel> probe_levels(uint64_t l1d, uint64_t l2, uint64_t llc) {
  std::vector<ProbeLevel> out;
  uint64_t below = 0;
  for (const auto& [name, bytes] : {std::pair<const char*, uint64_t>{"L1d", l1d}, {"L2", l2}, {"LLC", llc}}) {
    if (bytes == 0 || bytes <= below) continue;
    out.push_back({name, bytes, half_in_pages(bytes)});
    below = bytes;
  }
  if (below) out.push_back({"DRAM", 0, std::min(kMaxDramProbe, 4 * below)});
  return out;
}

std::vector<KernelSpec> probe_kernels(const std::function<bool(const KernelSpec&)>& runs) {
  std::vector<RegClass> classes;
  for (RegClass c : {RegClass::avx512, RegClass::avx, RegClass::sse})
    if (runs(default_spec(Op::read, c)) && classes.size() < 2) classes.push_back(c);
  std::vector<KernelSpec> out;
  for (size_t i = 0; i < classes.size(); ++i) {
    const uint32_t w = reg_class_info(classes[i]).width;
    for (uint32_t regs : i == 0 ? std::vector<uint32_t>{4, 8} : std::vector<uint32_t>{4}) {
      for (Op op : {Op::read, Op::clear})
        for (Store st : {Store::temporal, Store::nontemporal}) {
          if (op == Op::read && st == Store::nontemporal) continue;
          KernelSpec s = default_spec(op, classes[i]);
          s.unroll = regs * w;
          s.scratch = op == Op::read ? std::min(regs, reg_class_info(classes[i]).max_scratch / 2) : std::min(regs, 4u);
          s.store = st;
          if (validate(s).empty() && runs(s)) out.push_back(s);
        }
    }
  }
  return out;
}

Ceilings ceilings_from(const RunDoc& run, const std::vector<ProbeLevel>& levels, uint32_t rounds, double seconds) {
  Ceilings c;
  c.rounds = rounds;
  c.seconds = seconds;
  for (const ProbeLevel& p : levels) {
    CeilingLevel l{p.level, p.cache_bytes, p.size, 0, 0, 0, {}, {}, {}, std::nullopt};
    if (p.cache_bytes) l.size_from = p.from;
    const Result *read = nullptr, *write = nullptr;
    for (const Result& r : run.results) {
      if (!r.ok() || r.point.at.size != p.size || r.point.at.threads != 1) continue;
      switch (kind_of(r)) {
        case ProbeKind::read: keep_best(l.read_gbps, l.read_kernel, r); if (l.read_kernel == r.point.kernel) read = &r; break;
        case ProbeKind::write: keep_best(l.write_gbps, l.write_kernel, r); if (l.write_kernel == r.point.kernel) write = &r; break;
        case ProbeKind::nt_write: keep_best(l.nt_write_gbps, l.nt_write_kernel, r); break;
        case ProbeKind::other: break;
      }
    }
    if (p.level == "L1d") {
      if (read) c.l1d_load_bytes_per_cycle = entry_figures(*read).bytes_per_cycle;
      if (write) c.l1d_store_bytes_per_cycle = entry_figures(*write).bytes_per_cycle;
    }
    c.levels.push_back(std::move(l));
  }
  return c;
}

std::optional<Standing> standing_of(const Result& r, const Ceilings& c) {
  if (c.levels.empty() || !r.ok()) return std::nullopt;
  const Aggregate a = aggregate(r);
  if (a.median_ns <= 0) return std::nullopt;
  const uint64_t set = r.point.at.size * (r.op == Op::copy ? 2 : 1);
  const CeilingLevel* at = &c.levels.back();
  const CeilingLevel* bound = nullptr;  // the cache whose size bounds the level
  for (const CeilingLevel& l : c.levels) {
    if (l.cache_bytes) bound = &l;
    if (l.cache_bytes >= set) {
      at = &l;
      break;
    }
  }
  Standing s;
  s.level = at->level;
  s.size = r.point.at.size;
  s.op = r.op;
  s.gbps = gbps_at(moved_bytes(r.point.at), a.median_ns);
  s.bytes_per_cycle = entry_figures(r).bytes_per_cycle;
  s.nt = r.spec && r.spec->store == Store::nontemporal;
  s.probe_size = at->size;
  if (bound) s.bounded_by = bound->level, s.bound_from = bound->size_from;
  if (op_info(r.op).reads_src && at->read_gbps > 0) s.of_read = s.gbps / at->read_gbps;
  const double w = s.nt ? at->nt_write_gbps : at->write_gbps;
  if (r.op != Op::read && w > 0) s.of_write = s.gbps / w;
  return s;
}

std::optional<Standing> point_standing(const RunDoc& run, const ExplainPoint& p) {
  if (!run.context.ceilings) return std::nullopt;
  for (const Result& r : run.results) {
    if (r.point.kernel != p.kernel || r.point.at.size != p.size) continue;
    const auto g = group_of(r.op, r.fill(), r.point.at);
    if (!g || group_label(*g) != p.group) continue;
    std::optional<Standing> s = standing_of(r, *run.context.ceilings);
    if (s) s->sizes_from = run.context.machine.cache_source.value_or("");
    return s;
  }
  return std::nullopt;
}

std::string standing_text(const Standing& s) {
  char head[160];
  std::snprintf(head, sizeof head, "at %s this %s moves %.1f GB/s", format_bytes(s.size).c_str(),
                std::string(to_string(s.op)).c_str(), s.gbps);
  std::string out = head;
  if (s.bytes_per_cycle > 0) out += " (" + frac(s.bytes_per_cycle) + " bytes per core cycle)";
  out += " from " + s.level;
  std::vector<std::string> parts;
  if (s.of_read) parts.push_back(frac(*s.of_read) + " of one core's read bandwidth here");
  if (s.of_write)
    parts.push_back(frac(*s.of_write) + " of its " + (s.nt ? "non-temporal write" : "temporal write") + " bandwidth");
  if (parts.empty()) return out + ": no ceiling of its kind was measured";
  out += ": " + parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  if (s.of_read.value_or(0) <= 1 && s.of_write.value_or(0) <= 1) return out;
  // Never above a ceiling without saying why.
  out += "; above the ceiling: the " + s.level + " ceilings are what its probes reached at " + format_bytes(s.probe_size);
  if (s.bound_from == SizeSource::measured)
    return out + ", and the " + s.bounded_by +
           "'s size was measured (the largest footprint one read probe ran at its speed, in steps of 2x): a faster "
           "level serves this point than its size says, or the level ends between two footprints probed";
  return out + ", and the levels' sizes are the machine's report" +
         (s.sizes_from.empty() ? "" : " (" + s.sizes_from + ")") +
         ", not measured: a faster level serves this point than its size says, or the reported sizes are not "
         "where the bandwidth changes (a VM may report its host's L3)";
}

}  // namespace kex
