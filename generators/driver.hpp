// The timed loop, generated (docs/DESIGN.md "Streams, the call path"): per call it loads
// the call's arguments from an array made before timing and calls the competitor, and
// nothing else, so every competitor (a kex kernel, a stub into libc, glibc or loaded code,
// the empty routine) is entered the same way, by one indirect call through a register.
// A fixed size is an array of one call; chunked calls, a stream's calls, are longer arrays.
//
// The code (`consume` adds a call of read_back(dst, bytes) after each call, its value added
// to [rsp]); one call per pass (a fixed size) takes the first loop, several (chunks, a
// stream) the second, whose record pointer wraps to the first call without a branch:
//   push rbx, rbp, r12..r15; sub rsp, 8        ; rsp 16-aligned at each call; [rsp] = 0
//   r12 = calls, r14 = passes, r15 = fn
//   one:  mov rdi, [r12]; mov rsi, [r12+8]; mov rdx, [r12+16]; call r15; dec r14; jnz one
//   many: r14 = count * passes; rbp = calls + count * 24; rbx = r12
//   next: mov rdi, [rbx]; mov rsi, [rbx+8]; mov rdx, [rbx+16]; call r15
//         add rbx, 24; cmp rbx, rbp; cmovae rbx, r12; dec r14; jnz next
//   rax = [rsp]; add rsp, 8; pop ...; ret
// (A loop over passes around a loop over calls cost 0.3-0.5 ns more per call at one call
// per pass on the Zen 5 VM than these: its two branches per call.)
#pragma once
#include <cstddef>
#include <cstdint>

#include "src/model/spec.hpp"

namespace Xbyak {
class CodeGenerator;
}

namespace kex {

/// One call's arguments, in the kernel ABI's order (rdi, rsi, rdx): 24 bytes, as the
/// generated loop reads them.
struct CallArgs {
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;  ///< null for a clear (its stub puts the fill byte in esi)
  uint64_t bytes = 0;
};
static_assert(sizeof(CallArgs) == 24, "the timed loop reads 24-byte records");

/// What a consume loop calls after each call: reads [dst, dst + bytes) back and returns a
/// value that depends on every byte.
using ReadBackFn = uint64_t (*)(const uint8_t* dst, size_t bytes);

/// The generated loop: calls `fn` with calls[0..count) in order, `passes` times (nothing when
/// count or passes is 0); returns the sum of read_back's values (0 without consume).
using DriverFn = uint64_t (*)(const CallArgs* calls, size_t count, uint64_t passes, KernelFn fn);

/// Emits the loop; with `read_back` (not null), a call of it over each call's destination
/// bytes after the call, inside the timing (the consume axis).
void emit_driver(Xbyak::CodeGenerator& g, ReadBackFn read_back);

/// Emits the empty competitor: a bare `ret`. Timed as any competitor, its time per call is
/// the timed loop's own cost per call.
void emit_empty(Xbyak::CodeGenerator& g);

}  // namespace kex
