// CPU feature gating: a spec this CPU cannot run is skipped, never executed.
#include <xbyak/xbyak_util.h>

#include "generators/emit.hpp"

namespace kex {

std::string cpu_unsupported_reason(const KernelSpec& s) {
  using C = Xbyak::util::Cpu;
  static const C cpu;
  auto need = [&](C::Type t, const char* what) -> std::string {
    return cpu.has(t) ? std::string{} : std::string("this CPU lacks ") + what;
  };
  std::string r;
  switch (s.regs) {
    case RegClass::gpr:
      if (s.store == Store::nontemporal) r = need(C::tSSE2, "SSE2 (movnti)");
      break;
    case RegClass::mmx:
      r = need(C::tMMX, "MMX");
      if (r.empty() && s.store == Store::nontemporal) r = need(C::tMMX2, "SSE/MMX-ext (movntq)");
      break;
    case RegClass::x87:
    case RegClass::string: break;
    case RegClass::sse: r = need(C::tSSE2, "SSE2"); break;
    case RegClass::avx: r = need(C::tAVX, "AVX (with OS YMM state)"); break;
    case RegClass::avx512: r = need(C::tAVX512F, "AVX-512F (with OS ZMM state)"); break;
  }
  if (!r.empty()) return r;
  switch (s.prefetch) {
    case Prefetch::nta:
    case Prefetch::t0:
    case Prefetch::t1:
    case Prefetch::t2: return need(C::tSSE, "SSE (prefetchnta/t0/t1/t2)");
    case Prefetch::w: return need(C::tPREFETCHW, "PREFETCHW");
    default: break;
  }
  if (s.store == Store::nontemporal) return need(C::tSSE, "SSE (sfence)");
  return {};
}

}  // namespace kex
