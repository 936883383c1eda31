#include "src/model/dispatch_kernel.hpp"

#include <stdexcept>

#include "src/core/error.hpp"

namespace kex {

namespace {

/// One member's spec, or the reason it cannot be one.
KernelSpec member_spec(const std::string& name) {
  if (name == "rep_movsb") return rep_string_spec(Op::copy);
  if (name == "rep_stosb") return rep_string_spec(Op::clear);
  if (is_dispatch_name(name)) throw std::invalid_argument("'" + name + "': a dispatch cannot hold another dispatch");
  KernelSpec s;
  try {
    s = parse_spec_name(name);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("'" + name + "': a member is a kex spec name or rep_movsb, rep_stosb (" +
                                std::string(e.what()) + ")");
  }
  if (const std::string bad = validate(s); !bad.empty()) throw std::invalid_argument("'" + name + "': " + bad);
  if (s.op != Op::copy && s.op != Op::clear)
    throw std::invalid_argument("'" + name + "': a dispatch serves copies or clears, not " + std::string(to_string(s.op)));
  if (s.fill) throw std::invalid_argument("'" + name + "': a dispatch's clears write 0 (no fill:0xNN)");
  if (s.rep_above)
    throw std::invalid_argument("'" + name + "': rep:N is a dispatch of its own; give rep_movsb or rep_stosb a row");
  return s;
}

/// A member's canonical name.
std::string member_name(const KernelSpec& s) {
  if (s == rep_string_spec(Op::copy)) return "rep_movsb";
  if (s == rep_string_spec(Op::clear)) return "rep_stosb";
  return spec_name(s);
}

}  // namespace

bool is_dispatch_name(std::string_view name) { return name.substr(0, kDispatchPrefix.size()) == kDispatchPrefix; }

DispatchKernel parse_dispatch_kernel(std::string_view name) {
  if (!is_dispatch_name(name)) throw std::invalid_argument("a dispatch name starts with dispatch:");
  DispatchKernel d;
  try {
    d.table = parse_dispatch(name.substr(kDispatchPrefix.size()), "dispatch");
  } catch (const InputError& e) {
    throw std::invalid_argument(e.what());
  }
  const size_t rows = d.table.entries.size();
  if (rows < 2 || rows > kMaxDispatchRows)
    throw std::invalid_argument("a dispatch has 2 to " + std::to_string(kMaxDispatchRows) + " rows (SIZE:NAME,...,NAME), not " +
                                std::to_string(rows));
  for (DispatchEntry& e : d.table.entries) {
    d.members.push_back(member_spec(e.kernel));
    if (d.members.back().op != d.members.front().op)
      throw std::invalid_argument("'" + e.kernel + "': every member has the first's op (" +
                                  std::string(to_string(d.members.front().op)) + ")");
    e.kernel = member_name(d.members.back());
  }
  d.op = d.members.front().op;
  return d;
}

std::string dispatch_kernel_name(const DispatchKernel& d) { return std::string(kDispatchPrefix) + dispatch_text(d.table); }

DispatchTable flat_dispatch(const DispatchTable& t) {
  if (t.entries.size() != 1 || !is_dispatch_name(t.entries.front().kernel)) return t;
  return parse_dispatch_kernel(t.entries.front().kernel).table;
}

std::vector<uint64_t> dispatch_edges(const DispatchTable& t) {
  std::vector<uint64_t> out;
  for (const DispatchEntry& e : t.entries) {
    if (e.max_bytes == kDispatchRest) continue;
    if (e.max_bytes) out.push_back(e.max_bytes - 1);
    out.push_back(e.max_bytes);
    out.push_back(e.max_bytes + 1);
  }
  return out;
}

}  // namespace kex
