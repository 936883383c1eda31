#include "src/run/dispatch_plan.hpp"

#include <algorithm>

#include "generators/emit.hpp"

namespace kex {

KernelPlan dispatch_plan(const DispatchKernel& d) {
  KernelPlan k;
  k.key = dispatch_kernel_name(d);
  k.kind = KernelKind::dispatch;
  k.op = d.op;
  k.width = reg_class_info(d.members.front().regs).width;
  k.unroll = 1;
  k.edges = dispatch_edges(d.table);
  for (size_t i = 0; i < d.members.size(); ++i) {
    const KernelSpec& s = d.members[i];
    const uint64_t w = reg_class_info(s.regs).width, u = s.unroll;
    k.alignment = std::max(k.alignment, required_alignment(s));
    k.unroll = std::max(k.unroll, s.unroll);
    for (uint64_t n : {w - 1, w, w + 1, u - 1, u, u + 1, 2 * u + w + 1})
      if (std::find(k.edges.begin(), k.edges.end(), n) == k.edges.end()) k.edges.push_back(n);
    if (const std::string why = cpu_unsupported_reason(s); !why.empty() && k.skip.empty())
      k.skip = d.table.entries[i].kernel + ": " + why;
  }
  k.dispatch = d;
  k.emit = [d](Xbyak::CodeGenerator& g) { emit_dispatch(g, d); };
  return k;
}

}  // namespace kex
