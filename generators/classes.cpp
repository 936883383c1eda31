// The emitter of each register class: a row per RegClass value, in the enum's order,
// made from the emitter_of specializations (generators/classes.hpp).
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "generators/classes.hpp"

namespace kex {

namespace {
using Get = const ClassEmitter& (*)();

template <size_t... I>
constexpr std::array<Get, sizeof...(I)> emitter_table(std::index_sequence<I...>) {
  return {emitter_of<static_cast<RegClass>(I)>...};
}

constexpr std::array<Get, kRegClassCount> kEmitters = emitter_table(std::make_index_sequence<kRegClassCount>{});
}  // namespace

const ClassEmitter& class_emitter(RegClass c) {
  const auto i = static_cast<size_t>(c);
  if (i >= kEmitters.size()) throw std::logic_error("no emitter for register class " + std::to_string(i));
  return kEmitters[i]();
}

size_t class_emitter_count() { return kEmitters.size(); }

}  // namespace kex
