// The register-class emitters (one file per kind of class) and the table over them:
// a class's emitter file specializes emitter_of for it, and classes.cpp makes the table
// of every RegClass value from those (a class without one fails to link).
#pragma once
#include "generators/emit.hpp"

namespace kex {
/// The emitter of class C (defined in its generators/class_*.cpp).
template <RegClass C>
const ClassEmitter& emitter_of();
}  // namespace kex
