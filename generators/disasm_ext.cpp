#include "generators/disasm_ext.hpp"

#include <algorithm>

namespace kex {

std::vector<Insn> disassemble_all(const uint8_t* code, size_t size, Syntax syntax) {
  std::vector<Insn> out;
  size_t pos = 0;
  while (pos < size) {
    // Each piece is decoded at its real offset: Capstone computes branch targets
    // from the address it is given.
    for (auto& i : disassemble(code + pos, size - pos, syntax, pos)) {
      pos = i.offset + i.bytes.size();
      out.push_back(std::move(i));
    }
    if (pos >= size) break;
    // 3DNow! prefetch: 0F 0D with ModRM.reg == 0. Decode the same bytes as prefetchw
    // (reg == 1), which Capstone knows, for the length and operand text.
    if (size - pos < 3 || code[pos] != 0x0F || code[pos + 1] != 0x0D || ((code[pos + 2] >> 3) & 7) != 0) break;
    std::vector<uint8_t> tmp(code + pos, code + std::min(size, pos + 15));
    tmp[2] |= 1 << 3;
    auto w = disassemble(tmp.data(), tmp.size(), syntax, pos);
    if (w.empty() || w[0].mnemonic != "prefetchw") break;
    Insn i;
    i.offset = pos;
    i.bytes.assign(code + pos, code + pos + w[0].bytes.size());
    i.mnemonic = "prefetch";
    i.operands = w[0].operands;
    out.push_back(std::move(i));
    pos += w[0].bytes.size();
  }
  return out;
}

}  // namespace kex
