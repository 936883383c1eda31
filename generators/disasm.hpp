// Disassembly of generated code with Capstone (x86-64, Intel syntax).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

struct Insn {
  uint64_t offset;       ///< from the start of the code
  std::vector<uint8_t> bytes;
  std::string mnemonic;  ///< e.g. "movntdq"
  std::string operands;  ///< e.g. "xmmword ptr [rdi + 0x10], xmm1"
};

/// Decodes `size` bytes. Stops at the first undecodable byte. Throws
/// std::runtime_error if Capstone cannot be opened.
std::vector<Insn> disassemble(const uint8_t* code, size_t size);

/// "offset: hex bytes   mnemonic operands" lines, one per instruction.
std::string format_listing(const std::vector<Insn>& insns);

}  // namespace kex
