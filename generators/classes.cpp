// The emitter of each register class, in the order of reg_classes() (src/model/spec.cpp).
#include <iterator>
#include <stdexcept>

#include "generators/classes.hpp"

namespace kex {

namespace {
using Get = const ClassEmitter& (*)();
constexpr Get kEmitters[] = {gpr_emitter, mmx_emitter, x87_emitter, sse_emitter,
                             avx_emitter, avx512_emitter, string_emitter};
}  // namespace

const ClassEmitter& class_emitter(RegClass c) {
  const auto i = static_cast<size_t>(c);
  if (i >= std::size(kEmitters)) throw std::logic_error("no emitter for register class " + std::to_string(i));
  return kEmitters[i]();
}

size_t class_emitter_count() { return std::size(kEmitters); }

}  // namespace kex
