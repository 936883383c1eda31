#include "src/run/baselines.hpp"

#include <cstring>

namespace kex {

namespace {
// noinline + a runtime size: the compiler emits a call to glibc's ifunc-selected memcpy/memset.
__attribute__((noinline)) void libc_memcpy(void* d, const void* s, size_t n) {
  std::memcpy(d, s, n);
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void libc_memset(void* d, const void*, size_t n) {
  std::memset(d, 0, n);
  asm volatile("" ::: "memory");
}
}  // namespace

std::optional<Baseline> find_baseline(const std::string& name) {
  if (name == "memcpy") return Baseline{name, Op::copy, libc_memcpy, std::nullopt};
  if (name == "memset") return Baseline{name, Op::clear, libc_memset, std::nullopt};
  if (name == "rep_movsb" || name == "rep_stosb") {
    KernelSpec s = default_spec(name == "rep_movsb" ? Op::copy : Op::clear, RegClass::string);
    s.unroll = 1;
    return Baseline{name, s.op, nullptr, s};
  }
  return std::nullopt;
}

}  // namespace kex
