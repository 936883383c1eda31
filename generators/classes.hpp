// The register-class emitters (one file per kind of class) and the table over them.
#pragma once
#include "generators/emit.hpp"

namespace kex {
const ClassEmitter& gpr_emitter();
const ClassEmitter& mmx_emitter();
const ClassEmitter& x87_emitter();
const ClassEmitter& sse_emitter();
const ClassEmitter& avx_emitter();
const ClassEmitter& avx512_emitter();
const ClassEmitter& string_emitter();
}  // namespace kex
