#include "src/run/load_plans.hpp"

#include <map>
#include <memory>
#include <utility>

#include "generators/outside_call.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/kernel_names.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/object_code.hpp"
#include "src/run/shared_objects.hpp"

namespace kex {

namespace {

/// What loading one (path, symbol) gave, kept for the process's later plans (kex tune's
/// stages make plans again): the file's hash, and the bytes of object code.
struct Loaded {
  std::string sha256;
  std::shared_ptr<const ObjectCode> object;  ///< asm only
  void* const* slot = nullptr;               ///< lib only
};

Loaded load_once(const LoadSpec& l, ImplSource source, const std::string& where) {
  static std::map<std::pair<std::string, std::string>, Loaded> done;
  const auto key = std::make_pair(l.path, l.symbol);
  if (auto it = done.find(key); it != done.end()) return it->second;
  Loaded out;
  const std::string at = where + ": " + terminal_text(l.path);
  if (source == ImplSource::object) {
    try {
      out.object = std::make_shared<const ObjectCode>(load_object_symbol(l.path, l.symbol));
    } catch (const InputError& e) {
      throw InputError(where, e.what());
    }
    out.sha256 = out.object->sha256;
  } else {
    try {
      out.sha256 = file_sha256(l.path, kMaxLoadedFile, "shared object");  // checked before dlopen sees it
    } catch (const InputError& e) {
      throw InputError(where, e.what());
    }
    if (const std::string why = probe_shared_object(l.path, l.symbol); !why.empty()) throw InputError(at, why);
    out.slot = shared_object_slot(l.path, l.symbol);
  }
  done.emplace(key, out);
  return out;
}

/// Refuses NAME for other code than the first load of that NAME in this process.
void check_same_name(const LoadSpec& l, const std::string& where) {
  static std::map<std::string, LoadSpec> named;
  const auto [it, fresh] = named.emplace(l.name, l);
  if (!fresh && !(it->second == l))
    throw InputError(where + ": NAME '" + l.name + "' is given twice for other code (" + terminal_text(it->second.path) +
                     ":" + it->second.symbol + " and " + terminal_text(l.path) + ":" + l.symbol + ")");
}

}  // namespace

KernelPlan load_plan(const LoadSpec& l, uint8_t fill, const std::string& where) {
  check_load(l, where);
  check_same_name(l, where);
  const ImplSource source = *load_source(l.path);
  const Loaded loaded = load_once(l, source, where);
  const bool clear = l.function == "memset";
  KernelPlan k;
  k.impl = ImplFacts{source, l.function, l.symbol, uint8_t(clear ? fill : 0), true, "", l.path, loaded.sha256, l.name,
                     loaded.object ? loaded.object->pieces.size() : 0};
  k.key = impl_name({source, l.name, k.impl->fill});
  k.kind = KernelKind::implementation;
  k.op = clear ? Op::clear : Op::copy;
  k.fill = k.impl->fill;
  k.width = 64;  // verification tries 63..65 and 255..257, as for glibc's variants
  k.unroll = 256;
  const OutsideAbi abi = clear ? OutsideAbi::memset : OutsideAbi::memcpy;
  if (loaded.object)
    k.emit = [o = loaded.object, abi, f = k.fill](Xbyak::CodeGenerator& g) {
      emit_loaded_bytes(g, o->bytes.data(), o->bytes.size(), o->entry, abi, f);
    };
  else
    k.emit = [slot = loaded.slot, abi, f = k.fill](Xbyak::CodeGenerator& g) { emit_slot_call(g, slot, abi, f); };
  return k;
}

}  // namespace kex
