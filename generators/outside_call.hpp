// The stub through which kex calls code it did not generate: a function with memcpy's
// or memset's ABI, entered with the kernel ABI (KernelFn: rdi = dst, rsi = src, rdx =
// bytes). The stub lives in the CodeArena like a generated kernel, so every outside
// implementation is called the same way (one tail jump) and races on equal terms.
#pragma once
#include <cstdint>

namespace Xbyak {
class CodeGenerator;
}

namespace kex {

/// The ABI of the function a stub calls.
enum class OutsideAbi {
  memcpy,  ///< (dst, src, bytes): memcpy and memmove; the stub jumps to it as is
  memset,  ///< (dst, int fill, bytes): the stub puts `fill` in esi first
};

/// Emits `mov esi, fill` (memset only), `mov rax, fn`, `jmp rax`. `fn` must stay
/// valid while the arena's code runs (an address in this process).
void emit_outside_call(Xbyak::CodeGenerator& g, const void* fn, OutsideAbi abi, uint8_t fill);

}  // namespace kex
