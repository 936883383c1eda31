#include "src/results/segment_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <vector>

#include <fmt/core.h>

#include "src/core/stats.hpp"

namespace kex {

std::string compact_hex(const std::optional<std::string>& selector) {
  if (!selector) return "-";
  std::string t = *selector;  // from a file: anything; kex writes "0x2b"
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.erase(0, 2);
  if (t.empty() || t.size() > 8 || t.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return "?";
  return fmt::format("{:x}", static_cast<unsigned>(std::stoul(t, nullptr, 16)));
}

namespace {

/// Integers from 10 up (as in the seed), one decimal from 1, two below.
std::string num_text(double v) { return fmt::format("{:.{}f}", v, v >= 10 ? 0 : v >= 1 ? 1 : 2); }

/// The block of the table a case belongs to: "2006/ldt", "mixed/data", "latency", ...
std::string group_of(const SegmentCase& c) {
  const std::string kind = word_or_empty(c.selector_kind);
  if (c.variant == SegVariant::baseline || c.variant == SegVariant::loop2006) return "2006/" + kind;
  if (c.variant == SegVariant::mixed) return "mixed/" + kind;
  return word_or_empty(c.variant);
}

/// The median ns and estimated cycles of the measured cases `keep` accepts (0, 0: none).
template <class Keep>
std::pair<double, double> median_case(const std::vector<SegmentCase>& cases, Keep keep) {
  std::vector<double> ns, cycles;
  for (const auto& c : cases)
    if (c.measured() && keep(c)) {
      ns.push_back(*c.ns_per_iteration);
      cycles.push_back(c.est_cycles_per_iteration.value_or(0.0));
    }
  return {median(ns), median(cycles)};
}

/// "57 ns (~211 cycles)"; one decimal below 10 ns.
std::string ns_text(const std::pair<double, double>& v) {
  const int digits = v.first < 10 ? 1 : 0;
  return fmt::format("{:.{}f} ns (~{:.{}f} cycles)", v.first, digits, v.second, digits);
}

/// The 2006 loop's line of the summary: per register the median when the pop
/// reloads null and when it reloads a non-null selector.
std::string loop_2006_line(const std::vector<SegmentCase>& cases) {
  std::string loop;
  for (SegReg seg : {SegReg::fs, SegReg::gs}) {
    const auto null_entry = median_case(cases, [&](const SegmentCase& c) {
      return c.variant == SegVariant::loop2006 && c.segment == seg && c.entry_selector_kind == SelectorKind::null;
    });
    const auto other = median_case(cases, [&](const SegmentCase& c) {
      return c.variant == SegVariant::loop2006 && c.segment == seg && c.entry_selector_kind &&
             *c.entry_selector_kind != SelectorKind::null;
    });
    if (null_entry.first > 0 || other.first > 0)
      loop += std::string(loop.empty() ? "" : "; ") + std::string(to_string(seg)) + " " + (null_entry.first > 0 ? ns_text(null_entry) : "-") +
              " / " + (other.first > 0 ? ns_text(other) : "-");
  }
  if (loop.empty()) return {};
  return "segments: push, load, pop of a selector (the 2006 loop), pop reloading null / non-null: " + loop + "\n";
}

/// The modern costs' line: a load plain and through fs/gs, a null selector load.
std::string modern_line(const std::vector<SegmentCase>& cases) {
  std::string modern;
  for (SegVariant v : {SegVariant::latency, SegVariant::throughput}) {
    const auto plain =
        median_case(cases, [&](const SegmentCase& c) { return c.variant == v && c.segment == SegReg::none; });
    const auto zero = median_case(cases, [&](const SegmentCase& c) {
      return c.variant == v && c.segment != SegReg::none && c.base == "0x0";
    });
    const auto nonzero = median_case(cases, [&](const SegmentCase& c) {
      return c.variant == v && c.segment != SegReg::none && c.base && !c.base->empty() && *c.base != "0x0";
    });
    if (plain.first > 0)
      modern += std::string(modern.empty() ? "" : "; ") + std::string(to_string(v)) + " " + ns_text(plain) + ", via fs/gs base 0 " +
                ns_text(zero) + ", non-zero base " + ns_text(nonzero);
  }
  const auto null_load = median_case(cases, [&](const SegmentCase& c) { return c.variant == SegVariant::null_load; });
  if (null_load.first > 0) modern += "; a null selector load " + ns_text(null_load);
  return modern.empty() ? std::string() : "segments: a load's " + modern + "\n";
}

/// The selector kinds never measured here, each with the first reason.
std::string not_measured_line(const std::vector<SegmentCase>& cases) {
  std::map<std::string, std::pair<size_t, std::string>> missing;  // kind -> (measured, reason)
  for (const auto& c : cases) {
    if (c.variant == SegVariant::baseline) continue;  // the loop without segment work measures no selector
    auto& m = missing[word_or_empty(c.selector_kind)];  // by word: the line lists them in its order
    if (!c.skipped) ++m.first;
    else if (m.second.empty()) m.second = c.skip_message;
  }
  std::string not_measured;
  for (const auto& [kind, m] : missing)
    if (m.first == 0) not_measured += (not_measured.empty() ? "" : "; ") + kind + " (" + m.second + ")";
  return not_measured.empty() ? std::string() : "segments not measured here: " + not_measured + "\n";
}

}  // namespace

std::string format_segment_summary(const SegmentSection& section) {
  return loop_2006_line(section.cases) + modern_line(section.cases) + not_measured_line(section.cases);
}

std::string format_segment_table(const SegmentSection& section) {
  const SegmentHeader& h = section.header;
  // The seed's header line, with a CPU model of any length (a 512-byte buffer cut a long one and the newline).
  std::string out = fmt::format("\"{}\" @{:g}Mhz ({},{},{}):\n", h.cpu_model, h.mhz, h.family, h.model, h.stepping);
  auto sel = [&](const char* name) { return compact_hex(selector_named(h.selectors, name)); };
  out += "ds=" + sel("ds") + " ss=" + sel("ss") + " fs=" + sel("fs") + " gs=" + sel("gs") + " ldt=" + sel("ldt") +
         " gdt=" + sel("gdt") + " " + h.timer + "\n";
  if (std::any_of(section.cases.begin(), section.cases.end(), [](const SegmentCase& c) { return c.entry_selector; }))
    out += "(entry fs=.. / gs=..: the selector the tested register held on entry to the loop; the loop's push saves "
           "it and its pop reloads it)\n";
  std::string prev;
  for (const SegmentCase& c : section.cases) {
    const std::string g = group_of(c);
    if (g != prev) {
      const bool mixed_start = g.rfind("mixed/", 0) == 0 && prev.rfind("mixed/", 0) != 0;
      const bool modern_start = g.find('/') == std::string::npos && prev.find('/') != std::string::npos;
      if (!prev.empty()) out += "\n";
      if (mixed_start) out += "mixed: an access through the restored selector every iteration\n";
      if (modern_start) out += "modern costs (one load per iteration):\n";
      prev = g;
    }
    out += "   " + c.name + ": ";
    if (c.skipped) {
      out += "skipped: " + c.skip_message + "\n";
      continue;
    }
    out += num_text(c.ns_per_iteration.value_or(0)) + "ns/iteration (" + num_text(c.ticks_per_iteration.value_or(0)) +
           " ticks, ~" + num_text(c.est_cycles_per_iteration.value_or(0)) + " estimated cycles)" +
           (c.variant == SegVariant::baseline ? " (loop overhead: the unrolled loop with no segment work)" : "") + "\n";
  }
  const double mhz = h.mhz, after = h.mhz_after.value_or(mhz);
  if (mhz > 0 && std::fabs(after - mhz) / mhz > 0.001)
    out += fmt::format("warning: cpu MHz changed during the run ({:g} -> {:g})\n", mhz, after);
  return out;
}

namespace {

/// The kind of selector a register held on entry to the 2006 loop; none for the
/// loop without one (the `<none>` loop, older results without entry selectors).
using EntryKind = std::optional<SelectorKind>;

/// The 2006-loop case for (segment, loaded selector kind, entry selector kind);
/// segment none finds the `<none>` loop. Null when the section has no such case.
const SegmentCase* find_2006(const std::vector<SegmentCase>& cases, SegReg seg, SelectorKind kind, EntryKind entry) {
  for (const auto& c : cases) {
    if (c.segment != seg || c.selector_kind != kind) continue;
    if (seg == SegReg::none ? c.variant == SegVariant::baseline
                            : c.variant == SegVariant::loop2006 && c.entry_selector_kind == entry)
      return &c;
  }
  return nullptr;
}

bool measured(const SegmentCase* c) { return c && !c->skipped; }

/// The seed's integer: total ns / iterations, truncated (unsigned long long division).
std::string seed_ns(const SegmentCase& c, bool cputime) {
  unsigned long long ns;
  if (cputime) ns = *c.cputime_ns / *c.timed_iterations;
  else ns = static_cast<unsigned long long>(std::floor(c.ns_per_iteration.value_or(0.0)));
  return std::to_string(ns) + "ns/iteration";
}

/// The three blocks the seed printed: data, LDT and GDT (the set_thread_area
/// selector, else the CPU/node one; the header's gdt= then says 7b).
std::vector<std::pair<SelectorKind, const char*>> seed_blocks(const std::vector<SegmentCase>& cases) {
  SelectorKind gdt_kind = SelectorKind::gdt_tls;
  bool tls_ran = false;
  for (const auto& c : cases) tls_ran |= c.selector_kind == SelectorKind::gdt_tls && measured(&c);
  if (!tls_ran && find_2006(cases, SegReg::none, SelectorKind::gdt_cpunode, std::nullopt))
    gdt_kind = SelectorKind::gdt_cpunode;
  return {{SelectorKind::data, "data"}, {SelectorKind::ldt, "LDT"}, {gdt_kind, "GDT"}};
}

using Blocks = std::vector<std::pair<SelectorKind, const char*>>;

/// The tables to print, as (fs entry kind, gs entry kind): first the i386 situation
/// (fs null, gs a non-null GDT selector, glibc's TLS one there), then one per entry
/// kind in the section's order with a measured fs or gs line; one as the registers
/// started for a section without entry selectors (older results).
std::vector<std::pair<EntryKind, EntryKind>> seed_tables(const std::vector<SegmentCase>& cases, const Blocks& blocks) {
  std::vector<SelectorKind> kinds;
  for (const auto& c : cases) {
    const EntryKind k = c.entry_selector_kind;
    if (k && c.variant == SegVariant::loop2006 && std::find(kinds.begin(), kinds.end(), *k) == kinds.end())
      kinds.push_back(*k);
  }
  auto ran = [&](SegReg seg, EntryKind k) {
    for (const auto& [kind, label] : blocks)
      if (measured(find_2006(cases, seg, kind, k))) return true;
    return false;
  };
  std::vector<std::pair<EntryKind, EntryKind>> tables;
  const SelectorKind i386_gs = ran(SegReg::gs, SelectorKind::gdt_tls) ? SelectorKind::gdt_tls : SelectorKind::data;
  if (ran(SegReg::fs, SelectorKind::null) && ran(SegReg::gs, i386_gs)) tables.push_back({SelectorKind::null, i386_gs});
  for (const SelectorKind k : kinds)
    if (ran(SegReg::fs, k) || ran(SegReg::gs, k)) tables.push_back({k, k});
  if (kinds.empty()) tables.push_back({std::nullopt, std::nullopt});
  return tables;
}

/// One of the seed's tables: its two header lines, then a block per selector.
std::string seed_table(const SegmentSection& section, const Blocks& blocks, EntryKind fs_kind, EntryKind gs_kind) {
  const SegmentHeader& h = section.header;
  const auto& cases = section.cases;
  const SegmentCase* fs_any = nullptr;
  const SegmentCase* gs_any = nullptr;
  bool cputime = true;
  for (const auto& [kind, label] : blocks) {
    for (const auto* c : {find_2006(cases, SegReg::none, kind, std::nullopt), find_2006(cases, SegReg::fs, kind, fs_kind),
                          find_2006(cases, SegReg::gs, kind, gs_kind)})
      if (measured(c) && !(c->cputime_ns && c->timed_iterations)) cputime = false;
    if (!fs_any) fs_any = find_2006(cases, SegReg::fs, kind, fs_kind);
    if (!gs_any) gs_any = find_2006(cases, SegReg::gs, kind, gs_kind);
  }
  std::string out;
  char line[512];
  // "%s" @%gMhz (%d,%d,%d):  with the MHz as the float the seed read it into.
  snprintf(line, sizeof line, "\"%s\" @%gMhz (%d,%d,%d):\n", h.cpu_model.c_str(), double(float(h.mhz)), h.family,
           h.model, h.stepping);
  out += line;
  const bool has_data = std::any_of(h.selectors.begin(), h.selectors.end(), [](const auto& s) { return s.first == "data"; });
  const std::string data_sel = compact_hex(selector_named(h.selectors, has_data ? "data" : "ds"));
  auto entry = [&](EntryKind kind, const SegmentCase* c, const char* reg) {
    if (!kind) return compact_hex(selector_named(h.selectors, reg));
    return c ? compact_hex(c->entry_selector) : std::string("-");
  };
  auto selector_of = [](const SegmentCase* c) { return c ? compact_hex(c->selector) : std::string("-"); };
  // ds=%x fs=%x gs=%x ldt=%x gdt=%x %s %s  (clock, then the empty SYNC field)
  out += "ds=" + data_sel + " fs=" + entry(fs_kind, fs_any, "fs") + " gs=" + entry(gs_kind, gs_any, "gs") +
         " ldt=" + selector_of(find_2006(cases, SegReg::none, SelectorKind::ldt, std::nullopt)) +
         " gdt=" + selector_of(find_2006(cases, SegReg::none, blocks[2].first, std::nullopt)) + " " + (cputime ? "CPUTIME" : "TSC") +
         " \n";
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& [kind, label] = blocks[b];
    if (b) out += "\n";
    const std::pair<const char*, const SegmentCase*> rows[] = {
        {"<none>", find_2006(cases, SegReg::none, kind, std::nullopt)},
        {"fs", find_2006(cases, SegReg::fs, kind, fs_kind)},
        {"gs", find_2006(cases, SegReg::gs, kind, gs_kind)}};
    for (const auto& [who, c] : rows) {
      out += std::string("   ") + who + " with " + label + " selector: ";
      if (!c) out += "skipped: not in these results\n";
      else if (c->skipped) out += "skipped: " + c->skip_message + "\n";
      else out += seed_ns(*c, cputime) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string format_segment_seed_text(const SegmentSection& section) {
  const Blocks blocks = seed_blocks(section.cases);
  const auto tables = seed_tables(section.cases, blocks);
  std::string out;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (t) out += "\n";
    out += seed_table(section, blocks, tables[t].first, tables[t].second);
  }
  const float mhz = float(section.header.mhz), after = float(section.header.mhz_after.value_or(double(mhz)));
  if (mhz != after) {
    char line[128];
    snprintf(line, sizeof line, "cpu speed changed %f->%f?! disable CPUFREQ\n", double(mhz), double(after));
    out += line;
  }
  return out;
}

}  // namespace kex
