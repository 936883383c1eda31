// A dispatch kernel: one entry, a compare chain on the size, then each row's member.
#include <cstdint>
#include <vector>

#include "generators/emit.hpp"

namespace kex {

void emit_dispatch(Xbyak::CodeGenerator& g, const DispatchKernel& d) {
  using Xbyak::CodeGenerator;
  std::vector<Xbyak::Label> rows(d.members.size());
  for (size_t i = 0; i + 1 < d.members.size(); ++i) {
    const uint64_t bound = d.table.entries[i].max_bytes;
    if (bound <= INT32_MAX) {
      g.cmp(g.rdx, uint32_t(bound));
    } else {
      g.mov(g.r11, bound);
      g.cmp(g.rdx, g.r11);
    }
    g.jbe(rows[i], CodeGenerator::T_NEAR);
  }
  // The last row (every larger size) falls through; the others follow it.
  emit_kernel(g, d.members.back());
  for (size_t i = 0; i + 1 < d.members.size(); ++i) {
    g.L(rows[i]);
    emit_kernel(g, d.members[i]);
  }
}

}  // namespace kex
