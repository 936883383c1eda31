#include <stdexcept>

#include "generators/classes.hpp"

namespace kex {

const ClassEmitter& class_emitter(RegClass c) {
  switch (c) {
    case RegClass::gpr: return gpr_emitter();
    case RegClass::mmx: return mmx_emitter();
    case RegClass::x87: return x87_emitter();
    case RegClass::sse: return sse_emitter();
    case RegClass::avx: return avx_emitter();
    case RegClass::avx512: return avx512_emitter();
    case RegClass::string: break;
  }
  throw std::logic_error("the string class has its own skeleton");
}

}  // namespace kex
