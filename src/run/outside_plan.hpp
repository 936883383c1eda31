// The one plan maker for code kex did not generate (glibc's variants, libc's memcpy and
// memset, a shared object's symbol, loaded object code): a loader says what it found and
// where the code is, and outside_plan makes the plan, asking the source's row
// (src/model/source.hpp) how the code is named, reached and recorded.
#pragma once
#include <cstdint>
#include <memory>

#include "src/model/plan.hpp"

namespace kex {

struct ObjectCode;

/// What a loader found: the facts results carry (fill aside) and where the code is, by the
/// source's reach: `address` (Reach::address), `slot` (Reach::slot) or `object` (Reach::bytes).
struct OutsideCode {
  ImplFacts facts;
  const void* address = nullptr;             ///< valid in kex's process and its children
  void* const* slot = nullptr;               ///< filled by each process that runs kernels
  std::shared_ptr<const ObjectCode> object;  ///< the bytes to copy into the arena
};

/// The plan of `c` writing `fill` where its function is memset (0 for the others): a
/// stub that enters the code with its function's ABI (generators/outside_call.hpp); key
/// SOURCE/SYMBOL or SOURCE/NAME for an implementation, the function's name for libc's
/// (a baseline), with /fill:0xNN when fill is not 0. An unusable one (facts.usable false)
/// has skip = facts.reason and is never called.
KernelPlan outside_plan(const OutsideCode& c, uint8_t fill);

}  // namespace kex
