#include "src/model/tune_compose.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "src/model/dispatch_kernel.hpp"
#include "src/model/spec.hpp"

namespace kex {

namespace {

/// The spec a name gives: a spec name (valid) or rep_movsb/rep_stosb; nullopt for any other.
std::optional<KernelSpec> as_spec(const std::string& name) {
  if (name == "rep_movsb" || name == "rep_stosb") return rep_string_spec(name == "rep_movsb" ? Op::copy : Op::clear);
  try {
    KernelSpec s = parse_spec_name(name);
    if (validate(s).empty()) return s;
  } catch (const std::invalid_argument&) {
  }
  return std::nullopt;
}

/// `name` canonical when it is a valid dispatch, else nullopt.
std::optional<std::string> dispatch_or_none(const std::string& name) {
  try {
    return dispatch_kernel_name(parse_dispatch_kernel(name));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void add(std::vector<std::string>& out, const std::string& center, const std::optional<std::string>& name) {
  if (name && *name != center && std::find(out.begin(), out.end(), *name) == out.end()) out.push_back(*name);
}

/// The factors a threshold moves by at `level`: 1/2, 3/4, 3/2 and 2 at 0; then 2^(+-1/4),
/// 2^(+-1/8), ... (each level half the last one's step, in log2).
std::vector<double> move_factors(int level) {
  if (level == 0) return {0.5, 0.75, 1.5, 2};
  const double f = std::exp2(1.0 / double(uint64_t(1) << (level + 1)));
  return {1 / f, f};
}

/// `v` times `f`, to the nearest whole number.
uint64_t moved(uint64_t v, double f) { return uint64_t(std::llround(double(v) * f)); }

/// rep:N moved by each of move_factors(level).
void threshold_moves(const KernelSpec& c, const std::string& center, int level, std::vector<std::string>& out) {
  for (double f : move_factors(level)) {
    const uint64_t n = moved(c.rep_above, f);
    if (n > kMaxRepAbove || n == c.rep_above) continue;
    KernelSpec s = c;
    s.rep_above = uint32_t(n);
    if (validate(s).empty()) add(out, center, spec_name(s));
  }
}

/// Each bound of a dispatch at half and at twice its value (level 0), or moved by
/// move_factors(level) beyond.
void bound_moves(const DispatchKernel& d, const std::string& center, int level, std::vector<std::string>& out) {
  const std::vector<double> factors = level == 0 ? std::vector<double>{0.5, 2} : move_factors(level);
  for (size_t i = 0; i + 1 < d.table.entries.size(); ++i)
    for (const double f : factors) {
      DispatchTable t = d.table;
      const uint64_t b = t.entries[i].max_bytes;
      t.entries[i].max_bytes = moved(b, f);
      const bool above_previous = i == 0 || t.entries[i].max_bytes > t.entries[i - 1].max_bytes;
      const bool below_next = i + 2 == t.entries.size() || t.entries[i].max_bytes < t.entries[i + 1].max_bytes;
      if (above_previous && below_next && t.entries[i].max_bytes != b)
        add(out, center, dispatch_or_none(std::string(kDispatchPrefix) + dispatch_text(t)));
    }
}

}  // namespace

std::vector<uint64_t> compose_bounds(const Distribution& d) {
  std::vector<uint64_t> out;
  for (double q : {0.5, 0.75, 0.9})
    if (const uint64_t b = distribution_quantile(d, q); b && std::find(out.begin(), out.end(), b) == out.end())
      out.push_back(b);
  return out;
}

std::vector<std::string> compose_lower(const TuneVerdict& v, const std::vector<RaceDrop>& drops) {
  std::vector<std::string> out;
  for (const std::string& k : v.ranked)
    if (k != v.dispatched && out.size() < 3) out.push_back(k);
  std::vector<RaceDrop> near = drops;
  std::erase_if(near, [](const RaceDrop& d) { return !d.why.empty() || d.vs_leader.rounds == 0; });
  std::stable_sort(near.begin(), near.end(),
                   [](const RaceDrop& a, const RaceDrop& b) { return a.vs_leader.ratio < b.vs_leader.ratio; });
  for (size_t i = 0; i < near.size() && out.size() < 4; ++i)
    if (std::find(out.begin(), out.end(), near[i].kernel) == out.end()) out.push_back(near[i].kernel);
  return out;
}

std::vector<std::string> compose_neighbours(const std::string& center, const std::vector<std::string>& lower,
                                            const std::vector<uint64_t>& bounds, int level) {
  std::vector<std::string> out;
  if (is_dispatch_name(center)) {
    try {
      bound_moves(parse_dispatch_kernel(center), center, level, out);
    } catch (const std::invalid_argument&) {
    }
    return out;
  }
  const std::optional<KernelSpec> c = as_spec(center);
  if (!c || (c->op != Op::copy && c->op != Op::clear)) return out;
  if (c->rep_above) threshold_moves(*c, center, level, out);
  if (level > 0) return out;  // finer levels move the thresholds only
  const std::string rep = c->op == Op::copy ? "rep_movsb" : "rep_stosb";
  std::vector<KernelSpec> loops;  // the center first, then the others, rep:N dropped, each once
  auto loop = [&](KernelSpec s) {
    s.rep_above = 0;
    if (s.regs != RegClass::string && s.op == c->op && std::find(loops.begin(), loops.end(), s) == loops.end())
      loops.push_back(s);
  };
  if (c->regs != RegClass::string) loop(*c);
  for (const std::string& n : lower)
    if (const auto s = as_spec(n)) loop(*s);
  for (const KernelSpec& a : loops)
    for (uint64_t t : bounds) {
      if (t < reg_class_info(a.regs).width) continue;
      std::vector<std::string> uppers = {rep};
      for (const KernelSpec& b : loops)
        if (!(b == a)) uppers.push_back(spec_name(b));
      for (const std::string& u : uppers) {
        std::string name = std::string(kDispatchPrefix) + std::to_string(t) + ":" + spec_name(a) + ",";
        if (c->rep_above && u != rep && t + 1 < c->rep_above)
          name += std::to_string(c->rep_above - 1) + ":" + u + "," + rep;  // keep the center's rep threshold
        else
          name += u;
        add(out, center, dispatch_or_none(name));
      }
    }
  return out;
}

}  // namespace kex
