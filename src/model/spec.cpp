// Canonical names, parsing and validation of KernelSpec.
#include "src/core/text_split.hpp"
#include "src/model/spec.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "src/core/numbers.hpp"

namespace kex {

namespace {

using F = Feature;
const std::vector<RegClassInfo> kClasses = {
    // cls               name     width scratch nt  unroll dflt-scratch needs               nt needs
    {RegClass::gpr, "gpr", 8, 8, true, 64, 8, {}, F::sse2, "mov r64; movnti"},
    {RegClass::mmx, "mmx", 8, 8, true, 64, 8, F::mmx, F::mmxext, "movq mm; movntq; emms"},
    {RegClass::x87, "x87", 8, 8, false, 64, 8, {}, {}, "fild/fistp qword (bit exact)"},
    {RegClass::sse, "sse", 16, 16, true, 64, 4, F::sse2, {}, "movdqu/movdqa xmm; movntdq"},
    {RegClass::avx, "avx", 32, 16, true, 128, 4, F::avx, {}, "vmovdqu/vmovdqa ymm; vmovntdq; vzeroupper"},
    {RegClass::avx512, "avx512", 64, 32, true, 256, 4, F::avx512f, {}, "vmovdqu64/vmovdqa64 zmm; vmovntdq; vzeroupper"},
    {RegClass::string, "string", 1, 1, false, 8, 1, {}, {}, "rep movs/stos b|w|d|q (fast with erms/fsrm)"},
};

const std::vector<PrefetchInfo> kPrefetch = {
    {Prefetch::none, "none", {}},   {Prefetch::nta, "nta", F::sse}, {Prefetch::t0, "t0", F::sse},
    {Prefetch::t1, "t1", F::sse},   {Prefetch::t2, "t2", F::sse},   {Prefetch::w, "w", F::prefetchw},
    {Prefetch::load, "load", {}},
};

template <class E, size_t N>
std::optional<E> lookup(std::string_view s, const std::array<std::string_view, N>& names) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

const std::array<OpInfo, 3> kOps = {{
    {Op::copy, "copy", "memcpy", "rep movsb", "copied", true},
    {Op::clear, "clear", "memset", "rep stosb", "cleared", false},
    {Op::read, "read", "", "", "read", true},
}};
constexpr std::array<std::string_view, 2> kStore = {"temporal", "nontemporal"};
constexpr std::array<std::string_view, 2> kDir = {"forward", "backward"};
constexpr std::array<std::string_view, 2> kAlign = {"aligned", "unaligned"};
constexpr std::array<std::string_view, 2> kEdges = {"bytes", "overlap"};
constexpr std::array<std::string_view, kSmallCount> kSmall = {"bytes", "overlap", "mask", "rep", "table"};

/// A number of a name token, in the grammar of src/core/numbers.hpp (shared with
/// configs), checked against [lo, hi]; errors quote the token as typed.
long long parse_int(std::string_view token, std::string_view text, long long lo, long long hi) {
  try {
    return parse_integer(text, lo, hi);
  } catch (const NumberError& e) {
    throw std::invalid_argument("name token '" + std::string(token) + "': " + e.what());
  }
}

}  // namespace

const RegClassInfo& reg_class_info(RegClass c) { return kClasses[static_cast<size_t>(c)]; }
const std::vector<RegClassInfo>& reg_classes() { return kClasses; }
const std::vector<PrefetchInfo>& prefetch_kinds() { return kPrefetch; }

std::string reg_class_names(std::string_view sep) {
  std::string s;
  for (const auto& c : kClasses) s += (s.empty() ? "" : std::string(sep)) + std::string(c.name);
  return s;
}

std::string prefetch_names(std::string_view sep) {
  std::string s;
  for (const auto& p : kPrefetch) s += (s.empty() ? "" : std::string(sep)) + std::string(p.name);
  return s;
}

std::string small_names(std::string_view sep) {
  std::string s;
  for (const auto& n : kSmall) s += (s.empty() ? "" : std::string(sep)) + std::string(n);
  return s;
}

const OpInfo& op_info(Op op) { return kOps[static_cast<size_t>(op)]; }

std::string op_names(std::string_view sep) {
  std::string s;
  for (const auto& o : kOps) s += (s.empty() ? "" : std::string(sep)) + o.name;
  return s;
}

uint64_t read_fold(const uint8_t* src, uint64_t n) {
  uint8_t x = 0;
  for (uint64_t i = 0; i < n; ++i) x ^= src[i];
  return x;
}

std::string_view to_string(Op v) { return op_info(v).name; }
std::string_view to_string(RegClass v) { return reg_class_info(v).name; }
std::string_view to_string(Prefetch v) { return kPrefetch[static_cast<size_t>(v)].name; }
std::string_view to_string(Store v) { return kStore[static_cast<size_t>(v)]; }
std::string_view to_string(Direction v) { return kDir[static_cast<size_t>(v)]; }
std::string_view to_string(Align v) { return kAlign[static_cast<size_t>(v)]; }
std::string_view to_string(Edges v) { return kEdges[static_cast<size_t>(v)]; }
std::string_view to_string(Small v) { return kSmall[static_cast<size_t>(v)]; }
std::optional<Op> parse_op(std::string_view s) {
  for (const auto& o : kOps)
    if (s == o.name) return o.op;
  return std::nullopt;
}

std::optional<Op> parse_libc_op(std::string_view s) {
  const std::optional<Op> op = parse_op(s);
  return op && std::find(kLibcOps.begin(), kLibcOps.end(), *op) != kLibcOps.end() ? op : std::nullopt;
}
std::optional<RegClass> parse_reg_class(std::string_view s) {
  for (const auto& c : kClasses)
    if (s == c.name) return c.cls;
  return std::nullopt;
}
std::optional<Prefetch> parse_prefetch(std::string_view s) {
  for (const auto& p : kPrefetch)
    if (s == p.name) return p.kind;
  return std::nullopt;
}
std::optional<Store> parse_store(std::string_view s) { return lookup<Store>(s, kStore); }
std::optional<Direction> parse_direction(std::string_view s) { return lookup<Direction>(s, kDir); }
std::optional<Align> parse_align(std::string_view s) { return lookup<Align>(s, kAlign); }
std::optional<Edges> parse_edges(std::string_view s) { return lookup<Edges>(s, kEdges); }
std::optional<Small> parse_small(std::string_view s) { return lookup<Small>(s, kSmall); }

KernelSpec rep_string_spec(Op op) {
  KernelSpec s = default_spec(op, RegClass::string);
  s.unroll = 1;
  return s;
}

KernelSpec default_spec(Op op, RegClass regs) {
  KernelSpec s;
  s.op = op;
  s.regs = regs;
  s.unroll = reg_class_info(regs).default_unroll;
  s.scratch = reg_class_info(regs).default_scratch;
  if (op == Op::read) s.scratch = std::max<uint32_t>(1, std::min(s.scratch, reg_class_info(regs).max_scratch / 2));
  return s;
}

FeatureSet spec_needs(const KernelSpec& s) {
  const auto& c = reg_class_info(s.regs);
  FeatureSet f = c.needs | kPrefetch[static_cast<size_t>(s.prefetch)].needs;
  if (s.store == Store::nontemporal) f = f | c.nt_needs | Feature::sse;  // sfence
  if (s.small == Small::mask) f = f | Feature::avx512f | Feature::avx512bw | Feature::avx512vl;  // k-masked vmovdqu8
  return f;
}

std::string spec_name(const KernelSpec& s) {
  std::string n;
  n += to_string(s.op);
  n += '/';
  n += to_string(s.regs);
  n += "/unroll:" + std::to_string(s.unroll);
  if (s.regs != RegClass::string) n += "/scratch:" + std::to_string(s.scratch);
  if (s.prefetch != Prefetch::none) {
    n += "/pf:";
    n += to_string(s.prefetch);
    n += "@" + std::to_string(s.pf_distance);
    if (s.pf_every != 64) n += "/every:" + std::to_string(s.pf_every);
  }
  if (s.op != Op::read) n += s.store == Store::nontemporal ? "/nt" : "/t";
  n += s.direction == Direction::backward ? "/bwd" : "/fwd";
  if (s.align == Align::aligned) n += "/aligned";
  if (s.edges == Edges::overlap) n += "/overlap";
  if (s.small != Small::bytes) n += "/small:" + std::string(to_string(s.small));
  if (s.rep_above) n += "/rep:" + std::to_string(s.rep_above);
  if (s.block.bytes) {
    n += "/block:" + std::to_string(s.block.bytes);
    n += s.block.order == Direction::backward ? "@bwd" : "@fwd";
  }
  if (s.op == Op::clear && s.fill != 0) {
    static const char* hex = "0123456789abcdef";
    n += "/fill:0x";
    n += hex[s.fill >> 4];
    n += hex[s.fill & 15];
  }
  return n;
}

namespace {

/// Refuses a name with a control byte (errors quote tokens as typed: a NUL would cut
/// what() short).
void check_printable(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i)
    if (static_cast<unsigned char>(name[i]) < 0x20 || name[i] == 0x7f)
      throw std::invalid_argument("kernel name has a control character (byte " +
                                  std::to_string(static_cast<unsigned char>(name[i])) + " at offset " +
                                  std::to_string(i) + "); names are printable, e.g. copy/sse/unroll:64");
}

/// The axis a token sets: a bare word's (t, nt: store; fwd, bwd: direction; aligned,
/// unaligned: align; bytes, overlap: edges), else its key before ':'.
std::string token_axis(std::string_view t) {
  if (t == "t" || t == "nt") return "store";
  if (t == "fwd" || t == "bwd") return "direction";
  if (t == "aligned" || t == "unaligned") return "align";
  if (t == "bytes" || t == "overlap") return "edges";
  return std::string(t.substr(0, t.find(':')));
}

/// pf:KIND@DIST into `s`.
void apply_prefetch(KernelSpec& s, std::string_view t, std::string_view val) {
  auto at = val.find('@');
  auto kind = parse_prefetch(val.substr(0, at));
  if (!kind)
    throw std::invalid_argument("unknown prefetch in '" + std::string(t) + "' (allowed: " + prefetch_names(", ") + ")");
  s.prefetch = *kind;
  if (at == std::string_view::npos && s.prefetch != Prefetch::none)
    throw std::invalid_argument("'" + std::string(t) + "' needs a distance, e.g. pf:" +
                                std::string(to_string(s.prefetch)) + "@256");
  s.pf_distance = at == std::string_view::npos
                      ? 0
                      : static_cast<int32_t>(parse_int(t, val.substr(at + 1), -kMaxPfDistance, kMaxPfDistance));
}

/// block:N@fwd|bwd into `s`.
void apply_block(KernelSpec& s, std::string_view t, std::string_view val) {
  auto at = val.find('@');
  s.block.bytes = static_cast<uint32_t>(parse_int(t, val.substr(0, at), 64, 1 << 20));
  std::string_view ord = at == std::string_view::npos ? "bwd" : val.substr(at + 1);
  if (ord != "bwd" && ord != "fwd") throw std::invalid_argument("block order in '" + std::string(t) + "' must be fwd or bwd");
  s.block.order = ord == "bwd" ? Direction::backward : Direction::forward;
}

/// One token after op/regs into `s`. std::invalid_argument for an unknown token.
void apply_token(KernelSpec& s, std::string_view t) {
  const auto colon = t.find(':');
  const std::string_view key = t.substr(0, colon);
  const std::string_view val = colon == std::string_view::npos ? std::string_view{} : t.substr(colon + 1);
  if (t == "t" || t == "nt") s.store = t == "t" ? Store::temporal : Store::nontemporal;
  else if (t == "fwd" || t == "bwd") s.direction = t == "fwd" ? Direction::forward : Direction::backward;
  else if (t == "aligned" || t == "unaligned") s.align = t == "aligned" ? Align::aligned : Align::unaligned;
  else if (t == "bytes" || t == "overlap") s.edges = t == "bytes" ? Edges::bytes : Edges::overlap;
  else if (key == "unroll") s.unroll = static_cast<uint32_t>(parse_int(t, val, 1, 8192));
  else if (key == "scratch") s.scratch = static_cast<uint32_t>(parse_int(t, val, 1, 32));
  else if (key == "every") s.pf_every = static_cast<uint32_t>(parse_int(t, val, kMinPfEvery, kMaxPfEvery));
  else if (key == "fill") s.fill = static_cast<uint8_t>(parse_int(t, val, 0, 255));
  else if (key == "pf") apply_prefetch(s, t, val);
  else if (key == "block") apply_block(s, t, val);
  else if (key == "rep") s.rep_above = static_cast<uint32_t>(parse_int(t, val, 1, kMaxRepAbove));
  else if (key == "small") {
    const auto v = parse_small(val);
    if (!v) throw std::invalid_argument("'" + std::string(t) + "': allowed small:" + small_names("|"));
    s.small = *v;
  }
  else
    throw std::invalid_argument("unknown token '" + std::string(t) +
                                "' in kernel name (allowed: unroll:N scratch:N pf:KIND@DIST every:N t nt fwd bwd aligned "
                                "unaligned bytes overlap small:" + small_names("|") + " rep:N block:N@fwd|bwd fill:0xNN)");
}

}  // namespace

KernelSpec parse_spec_name(std::string_view name) {
  check_printable(name);
  const std::vector<std::string_view> tok = split_view(name, '/');
  if (tok.size() < 2)
    throw std::invalid_argument("kernel name '" + std::string(name) + "' must start with op/regs, e.g. copy/sse");
  auto op = parse_op(tok[0]);
  if (!op) throw std::invalid_argument("unknown op '" + std::string(tok[0]) + "' (allowed: " + op_names() + ")");
  auto regs = parse_reg_class(tok[1]);
  if (!regs)
    throw std::invalid_argument("unknown register class '" + std::string(tok[1]) + "' (allowed: " +
                                reg_class_names() + ")");
  KernelSpec s = default_spec(*op, *regs);
  std::vector<std::string> seen;  // each axis may be given once
  for (size_t i = 2; i < tok.size(); ++i) {
    if (tok[i].empty())
      throw std::invalid_argument("empty token in kernel name '" + std::string(name) + "' (a doubled or trailing '/')");
    const std::string axis = token_axis(tok[i]);
    if (std::find(seen.begin(), seen.end(), axis) != seen.end())
      throw std::invalid_argument("'" + axis + "' is given twice in kernel name '" + std::string(name) + "'");
    seen.push_back(axis);
    apply_token(s, tok[i]);
  }
  if (std::find(seen.begin(), seen.end(), "scratch") == seen.end()) s.scratch = fit_scratch(s);
  return s;
}

uint32_t fit_scratch(const KernelSpec& s) {
  if (s.regs == RegClass::string) return 1;
  const uint32_t regs = std::max<uint32_t>(1, s.unroll / reg_class_info(s.regs).width);
  return std::min(default_spec(s.op, s.regs).scratch, regs);
}

uint32_t required_alignment(const KernelSpec& s) {
  if (s.align == Align::aligned && s.regs != RegClass::string) return reg_class_info(s.regs).width;
  return 1;
}

namespace {

/// Why a read cannot take `s`'s class or axes ("" when it can): reads fold their loads
/// into accumulators with a bitwise XOR, one accumulator beside each scratch register.
std::string read_reason(const KernelSpec& s) {
  const auto& c = reg_class_info(s.regs);
  if (s.regs == RegClass::string)
    return "the string class has no read form (rep lods keeps only the last element, so nothing folds the loads)";
  if (s.regs == RegClass::x87)
    return "the x87 class has no read form (x87 has no bitwise combine to fold its loads)";
  if (s.scratch > c.max_scratch / 2)
    return "scratch " + std::to_string(s.scratch) + " is out of range for read/" + c.name + " (1.." +
           std::to_string(c.max_scratch / 2) + ": a read keeps an accumulator beside each register)";
  if (s.store == Store::nontemporal) return "a read has no stores, so no non-temporal store";
  if (s.edges == Edges::overlap) return "a read takes no overlap edges (a byte loaded twice would fold twice)";
  if (s.small != Small::bytes)
    return "a read takes small:bytes only (small:" + std::string(to_string(s.small)) +
           ": the small strategies are a copy's and a clear's)";
  if (s.block.bytes) return "block prefetch applies to copies only";
  if (s.rep_above) return "a read takes no rep:N (rep movs/stos are a copy's and a clear's)";
  return {};
}

}  // namespace

namespace {

std::string num(uint64_t v) { return std::to_string(v); }
std::string num(int64_t v) { return std::to_string(v); }

/// Why the string class cannot take `s` ("" when it can): rep movs/stos is its whole code.
std::string string_reason(const KernelSpec& s) {
  if (s.unroll != 1 && s.unroll != 2 && s.unroll != 4 && s.unroll != 8)
    return "unroll " + num(uint64_t(s.unroll)) + " for the string class is the element size: allowed 1, 2, 4, 8";
  if (s.scratch != 1) return "scratch " + num(uint64_t(s.scratch)) + " not allowed for the string class (only 1)";
  if (s.prefetch != Prefetch::none) return "the string class takes no prefetch (rep movs/stos)";
  if (s.store == Store::nontemporal) return "the string class has no non-temporal store";
  if (s.block.bytes) return "the string class takes no block prefetch";
  if (s.align == Align::aligned) return "the string class has no aligned form";
  if (s.edges == Edges::overlap)
    return "the string class has no edges to overlap (rep movs/stos moves every byte itself; overlap needs a "
           "class wider than one byte)";
  if (s.small != Small::bytes) return "the string class has no small path (rep movs/stos moves every byte itself)";
  if (s.rep_above) return "the string class takes no rep:N (it is rep movs/stos at every size)";
  return {};
}

/// Why a loop class (`c`, not string) cannot take `s`'s unroll, scratch, store or edges.
std::string loop_reason(const KernelSpec& s, const RegClassInfo& c) {
  const uint64_t unroll = s.unroll, scratch = s.scratch, width = c.width;
  if (unroll == 0 || unroll % width != 0)
    return "unroll " + num(unroll) + " is not a positive multiple of the " + c.name + " width (" + num(width) + " bytes)";
  if (unroll > 8192) return "unroll " + num(unroll) + " is above the limit of 8192 bytes";
  if (scratch < 1 || scratch > c.max_scratch)
    return "scratch " + num(scratch) + " is out of range for " + c.name + " (1.." + num(uint64_t(c.max_scratch)) + ")";
  if (scratch > unroll / width)
    return "scratch " + num(scratch) + " exceeds the registers one iteration of unroll " + num(unroll) + " uses (" +
           num(unroll / width) + ")";
  if (s.store == Store::nontemporal && !c.has_nt) return std::string("the ") + c.name + " class has no non-temporal store";
  if (s.edges == Edges::overlap && c.width < 2)
    return std::string("the ") + c.name + " class moves one byte at a time: overlap needs a class wider than one byte";
  return {};
}

/// Why `s`'s prefetch (kind, interval, distance) cannot be emitted ("" when it can).
std::string prefetch_reason(const KernelSpec& s) {
  if (s.prefetch == Prefetch::none)
    return s.pf_distance != 0 || s.pf_every != 64 ? "prefetch distance/interval given without a prefetch kind" : "";
  const int64_t d = s.pf_distance;
  if (s.pf_every < kMinPfEvery || s.pf_every > kMaxPfEvery || s.pf_every % 8 != 0)
    return "prefetch interval " + num(uint64_t(s.pf_every)) + " must be a multiple of 8 bytes in " +
           num(uint64_t(kMinPfEvery)) + ".." + num(uint64_t(kMaxPfEvery));
  if (d < -kMaxPfDistance || d > kMaxPfDistance)
    return "prefetch distance " + num(d) + " is out of range (" + num(int64_t(-kMaxPfDistance)) + ".." +
           num(int64_t(kMaxPfDistance)) + ")";
  if (s.prefetch == Prefetch::load && s.direction == Direction::forward && d < 0)
    return "a load prefetch of a forward loop needs a distance >= 0 (got " + num(d) + ")";
  if (s.prefetch == Prefetch::load && s.direction == Direction::backward && d > 0)
    return "a load prefetch of a backward loop needs a distance <= 0 (got " + num(d) + ")";
  if (s.prefetch == Prefetch::load && s.block.bytes) return "block prefetch and a load prefetch cannot be combined";
  return {};
}

/// Why `s`'s block prefetch, fill or rep:N cannot be emitted ("" when they can).
std::string extras_reason(const KernelSpec& s, const RegClassInfo& c) {
  const uint64_t block = s.block.bytes;
  if (block) {
    if (s.op != Op::copy) return "block prefetch applies to copies only";
    if (s.direction != Direction::forward) return "block prefetch needs a forward copy";
    if (block % 64 != 0 || block % s.unroll != 0)
      return "block prefetch size " + num(block) + " must be a multiple of 64 and of unroll " + num(uint64_t(s.unroll));
    if (block > (1u << 20)) return "block prefetch size " + num(block) + " is above 1 MiB";
  }
  if (s.op != Op::clear && s.fill != 0) return "fill applies to clear only";
  if (s.rep_above && (s.rep_above < c.width || s.rep_above > kMaxRepAbove))
    return "rep:" + num(uint64_t(s.rep_above)) + " is out of range: " + num(uint64_t(c.width)) + " (the class width) to " +
           num(uint64_t(kMaxRepAbove)) + " bytes";
  return {};
}

}  // namespace

std::string validate(const KernelSpec& s) {
  const auto& c = reg_class_info(s.regs);
  std::string r = s.op == Op::read ? read_reason(s) : "";
  if (r.empty()) r = s.regs == RegClass::string ? string_reason(s) : loop_reason(s, c);
  if (r.empty()) r = prefetch_reason(s);
  if (r.empty()) r = extras_reason(s, c);
  return r;
}

}  // namespace kex
