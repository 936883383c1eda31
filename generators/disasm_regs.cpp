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

}  // namespace

bool keeps_rax(const uint8_t* code, size_t size) {
  csh h;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) return false;
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* ins = nullptr;
  const size_t n = cs_disasm(h, code, size, 0, 0, &ins);
  size_t covered = 0;
  bool keeps = true;
  for (size_t i = 0; i < n && keeps; ++i) {
    keeps = insn_keeps_rax(h, ins[i], size);
    covered = ins[i].address + ins[i].size;
  }
  if (covered != size) keeps = false;
  cs_free(ins, n);
  cs_close(&h);
  return keeps;
}

}  // namespace kex
