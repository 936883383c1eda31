// Outside code in kex's code arena: loaded bytes (asm/NAME) are placed from a 64-byte
// boundary behind a jump to their entry (memset's fill put in esi first), relative
// references inside them intact; a shared object's symbol is called through its slot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "generators/jit.hpp"
#include "generators/outside_call.hpp"
#include "src/model/spec.hpp"

using namespace kex;

namespace {

/// Emits one function into a fresh arena and returns it (the arena lives as long as the test).
KernelFn arena_function(CodeArena& arena, const std::function<void(Xbyak::CodeGenerator&)>& emit) {
  const size_t i = arena.add(emit);
  arena.finalize();
  return arena.ref(i).as<KernelFn>();
}

void* slot_target(void* d, const void* s, size_t n) { return std::memmove(d, s, n); }

}  // namespace

TEST_CASE("emit_loaded_bytes: the entry runs, a relative jump inside the bytes lands where it did" *
          doctest::test_suite("generators")) {
  // Offset 0: mov rcx, rdx; rep movsb; ret. Then int3 up to 16, where the entry jumps back to 0.
  std::vector<uint8_t> blob = {0x48, 0x89, 0xd1, 0xf3, 0xa4, 0xc3};
  blob.resize(16, 0xcc);
  blob.push_back(0xeb);
  blob.push_back(uint8_t(-18));  // jmp rel8 to offset 0 (from 18)
  CodeArena arena;
  const KernelFn f = arena_function(arena, [&](Xbyak::CodeGenerator& g) {
    emit_loaded_bytes(g, blob.data(), blob.size(), 16, Function::memcpy, 0);
  });
  const uint8_t* code = reinterpret_cast<const uint8_t*>(f);
  CHECK(std::memcmp(code + 64, blob.data(), blob.size()) == 0);  // the bytes from the next 64-byte boundary
  std::vector<uint8_t> src(300), dst(301, 0xee);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 1);
  f(dst.data(), src.data(), 300);
  CHECK(std::memcmp(dst.data(), src.data(), 300) == 0);
  CHECK(dst[300] == 0xee);
  // The timed loop enters the symbol itself, where loaded_entry_offset says it lies.
  CHECK(loaded_entry_offset(Function::memcpy, 16) == 64 + 16);
  std::fill(dst.begin(), dst.end(), 0xee);
  reinterpret_cast<KernelFn>(const_cast<uint8_t*>(code) + loaded_entry_offset(Function::memcpy, 16))(dst.data(), src.data(), 299);
  CHECK(std::memcmp(dst.data(), src.data(), 299) == 0);
  CHECK(dst[299] == 0xee);
}

TEST_CASE("emit_loaded_bytes with memset's ABI: the fill byte reaches the code in esi" * doctest::test_suite("generators")) {
  const std::vector<uint8_t> blob = {0x48, 0x89, 0xd1, 0x89, 0xf0, 0xf3, 0xaa, 0xc3};  // mov rcx,rdx; mov eax,esi; rep stosb; ret
  CodeArena arena;
  const KernelFn f = arena_function(arena, [&](Xbyak::CodeGenerator& g) {
    emit_loaded_bytes(g, blob.data(), blob.size(), 0, Function::memset, 0x5a);
  });
  std::vector<uint8_t> dst(100, 0);
  f(dst.data(), nullptr, 99);
  CHECK(std::count(dst.begin(), dst.end() - 1, 0x5a) == 99);
  CHECK(dst[99] == 0);
  // Entered at the symbol, memset's ABI takes the fill in esi from the caller (the timed loop).
  using MemsetFn = void (*)(void*, int, size_t);
  const uint8_t* code = reinterpret_cast<const uint8_t*>(f);
  reinterpret_cast<MemsetFn>(const_cast<uint8_t*>(code) + loaded_entry_offset(Function::memset, 0))(dst.data(), 0x33, 50);
  CHECK(std::count(dst.begin(), dst.begin() + 50, 0x33) == 50);
  CHECK(dst[50] == 0x5a);
}

TEST_CASE("emit_slot_call: calls what the slot holds when the code runs" * doctest::test_suite("generators")) {
  void* slot = nullptr;
  CodeArena arena;
  const KernelFn f = arena_function(arena, [&](Xbyak::CodeGenerator& g) { emit_slot_call(g, &slot, Function::memcpy, 0); });
  slot = reinterpret_cast<void*>(&slot_target);  // filled after the code was emitted, as a worker does
  const char src[] = "loaded in the worker";
  char dst[sizeof src] = {};
  f(dst, src, sizeof src);
  CHECK(std::string(dst) == src);
}
