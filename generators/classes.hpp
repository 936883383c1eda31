// The register-class emitters (one file each) and the lookup table over them.
#pragma once
#include "generators/emit.hpp"

namespace kex {
const ClassEmitter& gpr_emitter();
const ClassEmitter& mmx_emitter();
const ClassEmitter& x87_emitter();
const ClassEmitter& sse_emitter();
const ClassEmitter& avx_emitter();
const ClassEmitter& avx512_emitter();
}  // namespace kex
