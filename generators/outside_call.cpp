#include "generators/outside_call.hpp"

#include <xbyak/xbyak.h>

namespace kex {

void emit_outside_call(Xbyak::CodeGenerator& g, const void* fn, OutsideAbi abi, uint8_t fill) {
  using namespace Xbyak::util;
  if (abi == OutsideAbi::memset) g.mov(esi, uint32_t(fill));  // memset(dst, fill, bytes): rdx stays
  g.mov(rax, reinterpret_cast<uint64_t>(fn));
  g.jmp(rax);  // a tail call: fn's ret returns to the kernel's caller
}

}  // namespace kex
