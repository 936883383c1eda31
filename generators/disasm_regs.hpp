// What a kernel's code does to rax, for kex emit's wrappers: a kernel that leaves rax alone
// can be entered by a tail jump with rax = dst already set, so memcpy's and memset's return
// value needs no call frame (src/results/emit_gas.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace kex {

/// True when control entering `code` at its start and leaving by one of its `ret`s finds
/// rax as it was: every byte decodes (Capstone; a move into a mask register, which Capstone 4
/// does not decode, by its VEX form), no instruction writes rax, eax, ax, al or ah
/// (explicitly or implicitly, Capstone's register access lists), no call, and no branch that
/// could leave the code (a direct one outside its bytes, an indirect one through memory).
/// A jump through a register (a jump table's) stays inside kex's generated code. One form of
/// writing rax is kept: a save, straight-line code from `mov rN, rax` to `mov rax, rN`
/// (rN one of r8-r11, not written in between; no branch, call or ret inside; no jump into
/// it past its first instruction; then no jump through a register anywhere), as a clear's
/// rep stosb needs al = the fill. False when unsure: a false answer only costs the caller a
/// call frame.
bool keeps_rax(const uint8_t* code, size_t size);

}  // namespace kex
