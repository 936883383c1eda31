#include "generators/disasm_regs.hpp"

#include <capstone/capstone.h>

#include <utility>
#include <vector>

namespace kex {

namespace {

bool is_rax(unsigned reg) {
  return reg == X86_REG_RAX || reg == X86_REG_EAX || reg == X86_REG_AX || reg == X86_REG_AL || reg == X86_REG_AH;
}

/// The registers a save of rax may use: r8-r11 (caller-saved, never an argument of memcpy's
/// or memset's), each with the names of its parts Capstone reports a write under.
constexpr unsigned kSaveRegs[4][4] = {{X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
                                      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
                                      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
                                      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B}};

/// The row of kSaveRegs `reg` (any of its parts) belongs to, or -1.
int save_row(unsigned reg) {
  for (int r = 0; r < 4; ++r)
    for (unsigned part : kSaveRegs[r])
      if (part == reg) return r;
  return -1;
}

/// `mov a, b` between two 64-bit registers: a's and b's rows in kSaveRegs (-1 for rax, -2
/// for any other register); false for any other instruction.
bool reg_move(const cs_insn& in, int& to, int& from) {
  const cs_x86& x = in.detail->x86;
  if (in.id != X86_INS_MOV || x.op_count != 2 || x.operands[0].type != X86_OP_REG || x.operands[1].type != X86_OP_REG)
    return false;
  auto row = [](unsigned r) { return r == X86_REG_RAX ? -1 : r >= X86_REG_R8 && r <= X86_REG_R11 ? save_row(r) : -2; };
  to = row(x.operands[0].reg);
  from = row(x.operands[1].reg);
  return true;
}

/// The scan of keeps_rax: rax is either untouched or, inside a save (mov rN, rax ... mov rax,
/// rN; rN one of r8-r11), held in rN. Inside a save rax may be written, rN may not, and no
/// instruction branches, calls or returns; no jump may land after a save's first instruction
/// up to its last (a jump through a register, whose target is unknown, is refused when the
/// code has a save at all).
struct RaxScan {
  size_t size;
  int saved = -1;       ///< the row of kSaveRegs holding rax, or -1
  uint64_t save_at = 0;  ///< the current save's first instruction
  std::vector<std::pair<uint64_t, uint64_t>> saves;  ///< (first, last] of each save
  std::vector<uint64_t> targets;                     ///< direct jumps' targets
  bool indirect = false;                             ///< a jump through a register

  /// Whether the instruction keeps rax and control inside [0, size), as far as it alone says.
  bool step(csh h, const cs_insn& in) {
    cs_regs read, write;
    uint8_t nread = 0, nwrite = 0;
    if (cs_regs_access(h, &in, read, &nread, write, &nwrite) != CS_ERR_OK) return false;
    int to = 0, from = 0;
    const bool move = reg_move(in, to, from);
    if (saved < 0 && move && to >= 0 && from == -1) {  // mov rN, rax: a save begins
      saved = to;
      save_at = in.address;
      return true;
    }
    if (saved >= 0 && move && to == -1 && from == saved) {  // mov rax, rN: it ends
      saves.emplace_back(save_at, in.address);
      saved = -1;
      return true;
    }
    for (uint8_t i = 0; i < nwrite; ++i)
      if ((saved < 0 && is_rax(write[i])) || (saved >= 0 && save_row(write[i]) == saved)) return false;
    if (in.id == X86_INS_INT3) return true;  // padding: it traps, it never returns
    if (cs_insn_group(h, &in, CS_GRP_CALL) || cs_insn_group(h, &in, CS_GRP_INT) || cs_insn_group(h, &in, CS_GRP_IRET))
      return false;
    if (in.id == X86_INS_SYSCALL || in.id == X86_INS_SYSENTER) return false;
    const bool leaves = cs_insn_group(h, &in, CS_GRP_JUMP) || cs_insn_group(h, &in, CS_GRP_RET);
    if (saved >= 0 && leaves) return false;
    if (!cs_insn_group(h, &in, CS_GRP_JUMP)) return true;
    const cs_x86& x = in.detail->x86;
    if (x.op_count != 1) return false;
    const cs_x86_op& op = x.operands[0];
    if (op.type == X86_OP_IMM) {
      targets.push_back(static_cast<uint64_t>(op.imm));
      return op.imm >= 0 && static_cast<uint64_t>(op.imm) < size;
    }
    indirect = indirect || op.type == X86_OP_REG;
    return op.type == X86_OP_REG;
  }

  /// After the last instruction: no save left open, none entered past its first instruction.
  bool done() const {
    if (saved >= 0 || (indirect && !saves.empty())) return false;
    for (uint64_t t : targets)
      for (const auto& [first, last] : saves)
        if (t > first && t <= last) return false;
    return true;
  }
};

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
  RaxScan scan{size};
  while (keeps && pos < size) {
    cs_insn* ins = nullptr;
    const size_t n = cs_disasm(h, code + pos, size - pos, pos, 0, &ins);
    for (size_t i = 0; i < n && keeps; ++i) {
      keeps = scan.step(h, ins[i]);
      pos = ins[i].address + ins[i].size;
    }
    cs_free(ins, n);
    if (!keeps || pos >= size) break;
    const size_t skip = mask_move_length(code + pos, size - pos);
    if (!skip) keeps = false;
    pos += skip;
  }
  cs_close(&h);
  return keeps && scan.done();
}

}  // namespace kex
