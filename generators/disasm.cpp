#include "generators/disasm.hpp"

#include <capstone/capstone.h>

#include <cstdio>
#include <stdexcept>

namespace kex {

std::vector<Insn> disassemble(const uint8_t* code, size_t size) {
  csh h;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) throw std::runtime_error("capstone: cs_open failed");
  cs_insn* ins = nullptr;
  size_t n = cs_disasm(h, code, size, 0, 0, &ins);
  std::vector<Insn> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back({ins[i].address, std::vector<uint8_t>(ins[i].bytes, ins[i].bytes + ins[i].size),
                   ins[i].mnemonic, ins[i].op_str});
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

}  // namespace kex
