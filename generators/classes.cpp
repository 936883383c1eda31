// The emitter of each register class, keyed by class and checked against the enum at compile time.
#include <iterator>
#include <stdexcept>

#include "generators/classes.hpp"

namespace kex {

namespace {
using Get = const ClassEmitter& (*)();
struct Row {
  RegClass regs;
  Get emitter;
};
constexpr Row kEmitters[] = {{RegClass::gpr, gpr_emitter}, {RegClass::mmx, mmx_emitter},
                             {RegClass::x87, x87_emitter}, {RegClass::sse, sse_emitter},
                             {RegClass::avx, avx_emitter}, {RegClass::avx512, avx512_emitter},
                             {RegClass::string, string_emitter}};

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kEmitters); ++i)
    if (static_cast<size_t>(kEmitters[i].regs) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kEmitters: one row per RegClass, in the enum's order");
static_assert(std::size(kEmitters) == static_cast<size_t>(RegClass::string) + 1,
              "kEmitters: every RegClass has an emitter (string is the enum's last value)");
}  // namespace

const ClassEmitter& class_emitter(RegClass c) {
  const auto i = static_cast<size_t>(c);
  if (i >= std::size(kEmitters)) throw std::logic_error("no emitter for register class " + std::to_string(i));
  return kEmitters[i].emitter();
}

size_t class_emitter_count() { return std::size(kEmitters); }

}  // namespace kex
