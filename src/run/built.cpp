#include "src/run/built.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "generators/jit.hpp"
#include "src/run/result_build.hpp"
#include "src/run/verify.hpp"

namespace kex {

std::vector<Built> emit_kernels(CodeArena& arena, const std::vector<std::function<void(Xbyak::CodeGenerator&)>>& emits,
                                const volatile std::sig_atomic_t* stop) {
  std::vector<Built> built(emits.size());
  std::vector<size_t> index(emits.size(), SIZE_MAX);
  for (size_t k = 0; k < emits.size(); ++k) {
    if (stop && *stop) break;
    if (!emits[k]) continue;
    try {
      index[k] = arena.add(emits[k]);
    } catch (const std::exception& ex) {
      built[k].status = {StatusKind::error, std::string("code generation failed: ") + ex.what()};
    }
  }
  arena.finalize();
  for (size_t k = 0; k < emits.size(); ++k) {
    if (index[k] == SIZE_MAX) continue;
    const CodeRef r = arena.ref(index[k]);
    built[k].fn = r.as<KernelFn>();
    built[k].code = r.code;
    built[k].info = CodeInfo{r.size, r.hash};
  }
  return built;
}

std::vector<Built> build_plans(CodeArena& arena, const std::vector<KernelPlan>& plans, const std::vector<bool>& used,
                               const volatile std::sig_atomic_t* stop) {
  std::vector<Status> status(plans.size());
  std::vector<std::function<void(Xbyak::CodeGenerator&)>> emits(plans.size());
  for (size_t k = 0; k < plans.size(); ++k) {
    status[k] = plan_status(plans[k]);
    if ((used.empty() || used[k]) && status[k].kind == StatusKind::ok) emits[k] = plans[k].emit;
  }
  std::vector<Built> built = emit_kernels(arena, emits, stop);
  for (size_t k = 0; k < plans.size(); ++k) {
    if (built[k].status.kind == StatusKind::ok) built[k].status = status[k];
    // Code kex did not write is entered through a stub (an address in this process), which
    // says nothing about the code: results record none of it. Loaded object code is in the
    // arena itself: its bytes are recorded as a generated kernel's are.
    if (!plans[k].code_recorded) built[k].info.reset();
    const Entry& e = plans[k].entry;
    if (!built[k].code) continue;  // nothing emitted: it never runs
    built[k].entry = e.address ? e.address : e.slot ? nullptr : built[k].code + e.code_offset;
    built[k].entry_slot = e.slot;
    built[k].fill_in_esi = e.fill_in_esi;
  }
  return built;
}

BuiltSet::BuiltSet() = default;
BuiltSet::BuiltSet(BuiltSet&&) noexcept = default;
BuiltSet& BuiltSet::operator=(BuiltSet&&) noexcept = default;
BuiltSet::~BuiltSet() = default;

BuiltSet build_plan_set(const std::vector<KernelPlan>& plans, const std::vector<bool>& used,
                        const volatile std::sig_atomic_t* stop) {
  BuiltSet set;
  set.arena = std::make_unique<CodeArena>();
  set.kernels = build_plans(*set.arena, plans, used, stop);
  return set;
}

VerifyTarget verify_target(const KernelPlan& k, const Built& b) {
  VerifyTarget t;
  t.fn = b.fn;
  t.is_copy = k.op == Op::copy;
  t.is_read = k.op == Op::read;
  t.fill = k.fill;
  t.alignment = k.alignment;
  t.width = k.width;
  t.unroll = k.unroll;
  t.size_multiple = k.region;
  if (k.region > 1) t.max_size = 3 * k.region;
  for (uint64_t e : k.edges)
    if (e <= kMaxVerifyEdge) {
      t.edges.push_back(e);
      t.max_size = std::max(t.max_size, e);
    }
  // Code kex did not write (glibc's variants, loaded code, libc's own functions) has its
  // function's ABI and result: its stub jumps to it, so what it returns is what the stub does.
  if (k.impl) t.promises = std::string(to_string(k.impl->function));
  else if (k.libc) t.promises = std::string(to_string(k.libc->function));
  t.code = b.code;
  t.code_size = b.info ? b.info->bytes : 0;
  return t;
}

}  // namespace kex
