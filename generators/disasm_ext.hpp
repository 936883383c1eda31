// Disassembly that also decodes what Capstone 4 rejects in 64-bit mode.
#pragma once
#include "generators/disasm.hpp"

namespace kex {

/// Like disassemble(), but when Capstone stops at a 3DNow! `prefetch m8` (0F 0D /0,
/// which Capstone 4 does not decode in 64-bit mode) it emits it as mnemonic "prefetch"
/// with Capstone's operand text for the same ModRM and carries on, decoding the rest at
/// its true offset (so later branch targets stay right). Stops at any other undecodable
/// byte, like disassemble().
std::vector<Insn> disassemble_all(const uint8_t* code, size_t size, Syntax syntax = Syntax::intel);

}  // namespace kex
