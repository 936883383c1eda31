// The stub through which kex calls code it did not generate: a function with memcpy's
// or memset's ABI, entered with the kernel ABI (KernelFn: rdi = dst, rsi = src, rdx =
// bytes). The stub lives in the CodeArena like a generated kernel, so every outside
// implementation is called the same way (one tail jump) and races on equal terms.
#pragma once
#include <cstddef>
#include <cstdint>

#include "src/model/function.hpp"

namespace Xbyak {
class CodeGenerator;
}

namespace kex {

/// The stubs enter a function of `f`'s ABI (src/model/function.hpp): memcpy's and memmove's
/// (dst, src, bytes) as they are, memset's (dst, int fill, bytes) with `fill` put in esi first.
/// Emits `mov esi, fill` (memset only), `mov rax, fn`, `jmp rax`. `fn` must stay
/// valid while the arena's code runs (an address in this process).
void emit_outside_call(Xbyak::CodeGenerator& g, const void* fn, Function f, uint8_t fill);

/// Emits a call through `*slot`, a function pointer filled only in the processes that run
/// kernels (a shared object's symbol, src/run/shared_objects.hpp): `mov esi, fill` (memset
/// only), `mov rax, slot`, `mov rax, [rax]`, and `jmp rax`, or `ud2` (SIGILL) while the
/// slot is null (in kex's own process, or when the object could not be opened).
void emit_slot_call(Xbyak::CodeGenerator& g, void* const* slot, Function f, uint8_t fill);

/// Emits code kex loaded as bytes (an object's symbol and the pieces it reaches): `mov esi,
/// fill` (memset only) and a jump to `entry`, then `bytes` from a 64-byte boundary of the
/// emitted function, as laid out (position-independent: only relative references inside).
void emit_loaded_bytes(Xbyak::CodeGenerator& g, const uint8_t* bytes, size_t size, size_t entry, Function f,
                       uint8_t fill);

/// Where emit_loaded_bytes puts the symbol at `entry` of the bytes, from the start of what it
/// emits: past the jump (and memset's `mov esi`), from the next 64-byte boundary.
size_t loaded_entry_offset(Function f, size_t entry);

}  // namespace kex
