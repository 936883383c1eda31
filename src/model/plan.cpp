#include "src/model/plan.hpp"

namespace kex {

std::string_view to_string(KernelKind k) {
  switch (k) {
    case KernelKind::generated: return "generated";
    case KernelKind::baseline: return "baseline";
    case KernelKind::preset: return "preset";
    case KernelKind::implementation: return "implementation";
    case KernelKind::dispatch: return "dispatch";
  }
  return "?";
}

std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  for (auto k : kKernelKinds)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::high: return "high";
    case Confidence::medium: return "medium";
    case Confidence::low: return "low";
  }
  return "?";
}

std::optional<Confidence> parse_confidence(std::string_view s) {
  for (auto c : {Confidence::high, Confidence::medium, Confidence::low})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

std::string overlap_refusal(const KernelPlan& k) {
  if (k.op != Op::copy || !k.impl || function_row(k.impl->function).overlap_safe) return {};
  return "left out where src and dst overlap: it implements " + std::string(to_string(k.impl->function)) +
         ", which does not promise memmove's result (glibc-move and :move loads run there)";
}

}  // namespace kex
