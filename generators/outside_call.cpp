#include "generators/outside_call.hpp"

#include <xbyak/xbyak.h>

namespace kex {

void emit_outside_call(Xbyak::CodeGenerator& g, const void* fn, Function f, uint8_t fill) {
  using namespace Xbyak::util;
  if (function_row(f).fill_in_esi) g.mov(esi, uint32_t(fill));  // memset(dst, fill, bytes): rdx stays
  g.mov(rax, reinterpret_cast<uint64_t>(fn));
  g.jmp(rax);  // a tail call: fn's ret returns to the kernel's caller
}

void emit_slot_call(Xbyak::CodeGenerator& g, void* const* slot, Function f, uint8_t fill) {
  using namespace Xbyak::util;
  if (function_row(f).fill_in_esi) g.mov(esi, uint32_t(fill));
  g.mov(rax, reinterpret_cast<uint64_t>(slot));
  g.mov(rax, g.ptr[rax]);
  g.test(rax, rax);
  Xbyak::Label none;
  g.jz(none);
  g.jmp(rax);  // a tail call, as emit_outside_call's
  g.L(none);
  g.ud2();  // the object is not open in this process
}

size_t loaded_entry_offset(Function f, size_t entry) {
  const size_t prefix = function_row(f).fill_in_esi ? 5 : 0;  // mov esi, imm32
  return (prefix + 5 + 63) / 64 * 64 + entry;
}

void emit_loaded_bytes(Xbyak::CodeGenerator& g, const uint8_t* bytes, size_t size, size_t entry, Function f,
                       uint8_t fill) {
  using namespace Xbyak::util;
  const size_t start = g.getSize();  // the arena places each function at a 64-byte boundary
  if (function_row(f).fill_in_esi) g.mov(esi, uint32_t(fill));
  // jmp rel32 (5 bytes) to the blob's entry; the blob starts at the next 64-byte boundary.
  const size_t target = loaded_entry_offset(f, entry), blob = target - entry;
  g.db(0xe9);
  g.dd(uint32_t(int32_t(int64_t(target) - int64_t(g.getSize() + 4 - start))));
  while (g.getSize() - start < blob) g.db(0xcc);  // int3 between the jump and the blob
  for (size_t i = 0; i < size; ++i) g.db(bytes[i]);
}

}  // namespace kex
