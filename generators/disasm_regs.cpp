#include "generators/disasm_regs.hpp"

#include <capstone/capstone.h>

namespace kex {

namespace {

bool is_rax(unsigned reg) {
  return reg == X86_REG_RAX || reg == X86_REG_EAX || reg == X86_REG_AX || reg == X86_REG_AL || reg == X86_REG_AH;
}

/// Whether one decoded instruction keeps rax and control inside [0, size).
bool insn_keeps_rax(csh h, const cs_insn& in, size_t size) {
  cs_regs read, write;
  uint8_t nread = 0, nwrite = 0;
  if (cs_regs_access(h, &in, read, &nread, write, &nwrite) != CS_ERR_OK) return false;
  for (uint8_t i = 0; i < nwrite; ++i)
    if (is_rax(write[i])) return false;
  if (in.id == X86_INS_INT3) return true;  // padding: it traps, it never returns
  if (cs_insn_group(h, &in, CS_GRP_CALL) || cs_insn_group(h, &in, CS_GRP_INT) || cs_insn_group(h, &in, CS_GRP_IRET))
    return false;
  if (in.id == X86_INS_SYSCALL || in.id == X86_INS_SYSENTER) return false;
  if (!cs_insn_group(h, &in, CS_GRP_JUMP)) return true;
  const cs_x86& x = in.detail->x86;
  if (x.op_count != 1) return false;
  const cs_x86_op& op = x.operands[0];
  if (op.type == X86_OP_IMM) return op.imm >= 0 && static_cast<uint64_t>(op.imm) < size;
  return op.type == X86_OP_REG;
}

/// The length of a VEX-encoded move into a mask register from a register at `p` (`kmov k, k`:
/// 0F 90 /r, `kmov k, r32/r64`: 0F 92 /r, ModRM.mod 3), which Capstone 4 does not decode (the
/// small:mask path's kmovq k1, r11); 0 for anything else. It writes a mask register only.
size_t mask_move_length(const uint8_t* p, size_t n) {
  size_t at = 0;
  if (n >= 4 && p[0] == 0xc5) at = 2;                               // C5 [R vvvv L pp]: map 0F
  else if (n >= 5 && p[0] == 0xc4 && (p[1] & 0x1f) == 1) at = 3;  // C4 [RXB mmmmm = 1] [W vvvv L pp]
  if (!at || (p[at] != 0x90 && p[at] != 0x92) || (p[at + 1] >> 6) != 3) return 0;
  return at + 2;
}

}  // namespace

bool keeps_rax(const uint8_t* code, size_t size) {
  csh h;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) return false;
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  size_t pos = 0;
  bool keeps = true;
  while (keeps && pos < size) {
    cs_insn* ins = nullptr;
    const size_t n = cs_disasm(h, code + pos, size - pos, pos, 0, &ins);
    for (size_t i = 0; i < n && keeps; ++i) {
      keeps = insn_keeps_rax(h, ins[i], size);
      pos = ins[i].address + ins[i].size;
    }
    cs_free(ins, n);
    if (!keeps || pos >= size) break;
    const size_t skip = mask_move_length(code + pos, size - pos);
    if (!skip) keeps = false;
    pos += skip;
  }
  cs_close(&h);
  return keeps;
}

}  // namespace kex
