#include "src/model/ablation.hpp"

#include <algorithm>
#include <cstdio>

namespace kex {

namespace {

std::string store_word(Store s) { return s == Store::nontemporal ? "nt" : "t"; }

std::string prefetch_word(const KernelSpec& s) {
  if (s.prefetch == Prefetch::none) return "none";
  return std::string(to_string(s.prefetch)) + "@" + std::to_string(s.pf_distance);
}

std::string element_word(uint32_t unroll) {
  switch (unroll) {
    case 1: return "b";
    case 2: return "w";
    case 4: return "d";
    default: return "q";
  }
}

/// Collects the neighbours: each once, never the kernel itself.
struct Collector {
  const KernelSpec& k;
  std::vector<Neighbour> out;
  void add(const KernelSpec& s, std::string coordinate, std::string from, std::string to) {
    if (s == k) return;
    if (std::any_of(out.begin(), out.end(), [&](const Neighbour& n) { return n.spec == s; })) return;
    out.push_back({s, std::move(coordinate), std::move(from), std::move(to), validate(s)});
  }
};

void string_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  const char* mov = k.op == Op::copy ? "movs" : "stos";
  KernelSpec s = k;
  s.unroll = k.unroll == 8 ? 1 : 8;
  c.add(s, "element", mov + element_word(k.unroll), mov + element_word(s.unroll));
}

void prefetch_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  if (k.prefetch == Prefetch::none) return;
  KernelSpec s = k;
  s.prefetch = Prefetch::none, s.pf_distance = 0, s.pf_every = 64;
  c.add(s, "prefetch", prefetch_word(k), "none");
  for (int32_t d : {k.pf_distance / 2, k.pf_distance * 2}) {
    s = k;
    s.pf_distance = d;
    c.add(s, "prefetch distance", std::to_string(k.pf_distance), std::to_string(d));
  }
  s = k;
  s.prefetch = k.prefetch == Prefetch::nta ? Prefetch::t0 : Prefetch::nta;
  c.add(s, "prefetch instruction", std::string(to_string(k.prefetch)), std::string(to_string(s.prefetch)));
}

/// Unroll halved and doubled; a halved unroll lowers scratch to the registers it uses.
void unroll_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  const uint32_t width = reg_class_info(k.regs).width;
  for (uint32_t u : {k.unroll / 2, k.unroll * 2}) {
    KernelSpec s = k;
    s.unroll = u;
    std::string to = std::to_string(u);
    if (u >= width && s.scratch > u / width) {
      s.scratch = u / width;
      to += " (scratch " + std::to_string(s.scratch) + ")";
    }
    c.add(s, "unroll", std::to_string(k.unroll), to);
  }
}

void register_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  for (uint32_t n : {k.scratch / 2, k.scratch * 2}) {
    KernelSpec s = k;
    s.scratch = n;
    c.add(s, "scratch", std::to_string(k.scratch), std::to_string(n));
  }
  if (const auto narrow = narrower_class(k.regs)) {
    KernelSpec s = k;
    s.regs = *narrow;
    s.scratch = std::min(k.scratch, reg_class_info(*narrow).max_scratch);
    std::string to(to_string(*narrow));
    if (s.scratch != k.scratch) to += " (scratch " + std::to_string(s.scratch) + ")";
    c.add(s, "regs", std::string(to_string(k.regs)), to);
  }
}

void layout_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  KernelSpec s = k;
  s.store = k.store == Store::temporal ? Store::nontemporal : Store::temporal;
  if (k.op != Op::read && (k.store == Store::nontemporal || reg_class_info(k.regs).has_nt))
    c.add(s, "store", store_word(k.store), store_word(s.store));
  s = k;
  s.align = k.align == Align::aligned ? Align::unaligned : Align::aligned;
  c.add(s, "align", std::string(to_string(k.align)), std::string(to_string(s.align)));
  s = k;
  s.edges = k.edges == Edges::bytes ? Edges::overlap : Edges::bytes;
  if (k.op != Op::read) c.add(s, "edges", std::string(to_string(k.edges)), std::string(to_string(s.edges)));
  s = k;
  s.small = k.small == Small::bytes ? Small::overlap : Small::bytes;
  if (k.op != Op::read && k.regs != RegClass::string)
    c.add(s, "small", std::string(to_string(k.small)), std::string(to_string(s.small)));
  if (k.block.bytes) {
    s = k;
    s.block = {};
    c.add(s, "block prefetch", std::to_string(k.block.bytes), "off");
  }
}

void common_neighbours(Collector& c) {
  const KernelSpec& k = c.k;
  KernelSpec s = k;
  s.direction = k.direction == Direction::forward ? Direction::backward : Direction::forward;
  c.add(s, "direction", std::string(to_string(k.direction)), std::string(to_string(s.direction)));
  if (k.op == Op::clear) {
    s = k;
    s.fill = k.fill == 0 ? 0xff : 0;
    char from[8], to[8];
    std::snprintf(from, sizeof from, "0x%02x", k.fill);
    std::snprintf(to, sizeof to, "0x%02x", s.fill);
    c.add(s, "fill", from, to);
  }
}

}  // namespace

std::optional<RegClass> narrower_class(RegClass c) {
  switch (c) {
    case RegClass::avx512: return RegClass::avx;
    case RegClass::avx: return RegClass::sse;
    case RegClass::sse:
    case RegClass::mmx:
    case RegClass::x87: return RegClass::gpr;
    default: return std::nullopt;
  }
}

std::vector<Neighbour> neighbours(const KernelSpec& k) {
  Collector c{k, {}};
  if (k.regs == RegClass::string) {
    string_neighbours(c);
  } else {
    layout_neighbours(c);
    prefetch_neighbours(c);
    unroll_neighbours(c);
    register_neighbours(c);
  }
  common_neighbours(c);
  return c.out;
}

void mark_unrunnable(std::vector<Neighbour>& ns, std::string (*missing)(FeatureSet)) {
  for (Neighbour& n : ns)
    if (n.refused.empty())
      if (const std::string m = missing(spec_needs(n.spec)); !m.empty()) n.refused = "this CPU lacks " + m;
}

}  // namespace kex
