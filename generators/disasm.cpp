#include "generators/disasm.hpp"

#include <capstone/capstone.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace kex {

std::vector<Insn> disassemble(const uint8_t* code, size_t size, Syntax syntax, uint64_t offset) {
  csh h;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) throw std::runtime_error("capstone: cs_open failed");
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  if (syntax == Syntax::att) cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  cs_insn* ins = nullptr;
  size_t n = cs_disasm(h, code, size, offset, 0, &ins);
  std::vector<Insn> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Insn in{ins[i].address, std::vector<uint8_t>(ins[i].bytes, ins[i].bytes + ins[i].size), ins[i].mnemonic,
            ins[i].op_str, std::nullopt};
    const cs_x86& x = ins[i].detail->x86;
    if (cs_insn_group(h, &ins[i], CS_GRP_BRANCH_RELATIVE) && x.op_count == 1 && x.operands[0].type == X86_OP_IMM)
      in.target = static_cast<uint64_t>(x.operands[0].imm);
    out.push_back(std::move(in));
  }
  cs_free(ins, n);
  cs_close(&h);
  return out;
}

std::string format_listing(const std::vector<Insn>& insns) {
  std::string s;
  char buf[64];
  for (const auto& i : insns) {
    snprintf(buf, sizeof buf, "%6llx:  ", static_cast<unsigned long long>(i.offset));
    s += buf;
    std::string hex;
    for (auto b : i.bytes) {
      snprintf(buf, sizeof buf, "%02x ", b);
      hex += buf;
    }
    hex.resize(std::max<size_t>(hex.size(), 33), ' ');
    s += hex + " " + i.mnemonic + (i.operands.empty() ? "" : " " + i.operands) + "\n";
  }
  return s;
}

namespace {

/// ".L<symbol>_<hex offset>": local to the file, and unique when several kernels'
/// sources are concatenated.
std::string label(const std::string& symbol, uint64_t offset) {
  char buf[32];
  snprintf(buf, sizeof buf, "_%llx", static_cast<unsigned long long>(offset));
  return ".L" + symbol + buf;
}

std::string byte_line(const uint8_t* p, size_t n, const std::string& what) {
  std::string s = "\t.byte ";
  char buf[8];
  for (size_t k = 0; k < n; ++k) {
    snprintf(buf, sizeof buf, "%s0x%02x", k ? ", " : "", p[k]);
    s += buf;
  }
  return s + (what.empty() ? "" : "\t# " + what) + "\n";
}

/// rel32 jmp/call (E9/E8) or jcc (0F 80..8F) without prefixes: the forms an assembler
/// would shorten to rel8 when the target is near, unless told {disp32}.
bool is_rel32_branch(const Insn& i) {
  const auto& b = i.bytes;
  return (b.size() == 5 && (b[0] == 0xE8 || b[0] == 0xE9)) || (b.size() == 6 && b[0] == 0x0F && (b[1] & 0xF0) == 0x80);
}
/// rel8 jmp/jcc/loop/jrcxz (EB, 70..7F, E0..E3) without prefixes.
bool is_rel8_branch(const Insn& i) {
  const auto& b = i.bytes;
  return b.size() == 2 && (b[0] == 0xEB || (b[0] & 0xF0) == 0x70 || (b[0] >= 0xE0 && b[0] <= 0xE3));
}

/// Capstone's text for one instruction, as GNU as and llvm-mc read it. Capstone gives
/// the x87 state-image operands of fnsave/frstor/fnstenv/fldenv a "dword ptr" that the
/// assemblers refuse (the image is 108/28 bytes); they take the bare [mem].
std::string as_text(const Insn& i, Syntax syntax) {
  std::string ops = i.operands;
  if (syntax == Syntax::intel &&
      (i.mnemonic == "fnsave" || i.mnemonic == "frstor" || i.mnemonic == "fnstenv" || i.mnemonic == "fldenv")) {
    auto p = ops.find(" ptr ");
    if (p != std::string::npos) ops = ops.substr(p + 5);
  }
  return i.mnemonic + (ops.empty() ? "" : " " + ops);
}

/// A nop longer than one byte: Capstone's text ("nop word ptr [rax + rax]", "nopw
/// (%rax,%rax)") omits the zero displacement that sets its length.
bool is_long_nop(const Insn& i) { return i.mnemonic.rfind("nop", 0) == 0 && i.bytes.size() > 1; }

/// A rep/repne prefix before the operand-size prefix (Xbyak's `rep movsw` is F3 66 A5):
/// the assemblers write 66 first, so the text would not give these bytes back.
bool rep_before_66(const Insn& i) {
  return i.bytes.size() > 2 && (i.bytes[0] == 0xF3 || i.bytes[0] == 0xF2) && i.bytes[1] == 0x66;
}

}  // namespace

std::string format_asm(const std::vector<Insn>& insns, const uint8_t* code, size_t size, Syntax syntax,
                       const std::string& symbol, const std::vector<std::string>& comment,
                       const std::optional<McaRegion>& region) {
  std::set<uint64_t> starts;
  for (const auto& i : insns) starts.insert(i.offset);
  starts.insert(size);
  std::set<uint64_t> labels;
  for (const auto& i : insns)
    if (i.target && starts.count(*i.target)) labels.insert(*i.target);

  std::string s;
  for (const auto& c : comment) s += "# " + c + "\n";
  s += syntax == Syntax::intel ? "\t.intel_syntax noprefix\n" : "\t.att_syntax\n";
  s += "\t.text\n\t.p2align 6\n\t.globl " + symbol + "\n\t.type " + symbol + ", @function\n" + symbol + ":\n";
  size_t pos = 0;
  for (const auto& i : insns) {
    if (region && i.offset == region->end) s += "# LLVM-MCA-END\n";
    if (region && i.offset == region->begin) s += "# LLVM-MCA-BEGIN " + region->name + "\n";
    if (labels.count(i.offset)) s += label(symbol, i.offset) + ":\n";
    const std::string text = as_text(i, syntax);
    if (i.target && labels.count(*i.target) && (is_rel8_branch(i) || is_rel32_branch(i)))
      s += std::string("\t") + (is_rel32_branch(i) ? "{disp32} " : "") + i.mnemonic + " " + label(symbol, *i.target) + "\n";
    else if (i.target || is_long_nop(i) || rep_before_66(i))
      // A branch out of the code (none is emitted today), or an instruction whose text
      // does not pin its encoding: the bytes themselves, the text in a comment.
      s += byte_line(i.bytes.data(), i.bytes.size(), text);
    else
      s += "\t" + text + "\n";
    pos = i.offset + i.bytes.size();
  }
  if (region && pos == region->end) s += "# LLVM-MCA-END\n";
  if (pos < size) s += byte_line(code + pos, size - pos, "not decoded");
  if (labels.count(size)) s += label(symbol, size) + ":\n";
  s += "\t.size " + symbol + ", .-" + symbol + "\n";
  return s;
}

std::string format_hex(const uint8_t* code, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t k = 0; k < size; ++k) {
    s += digits[code[k] >> 4];
    s += digits[code[k] & 15];
    if (k % 32 == 31 || k + 1 == size) s += '\n';
  }
  return s;
}

}  // namespace kex
