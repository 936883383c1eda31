#include "src/run/outside_plan.hpp"

#include "generators/outside_call.hpp"
#include "src/model/kernel_names.hpp"
#include "src/run/object_code.hpp"

namespace kex {

namespace {

/// The stub that reaches `c`'s code, by its source's row.
std::function<void(Xbyak::CodeGenerator&)> stub_of(const OutsideCode& c, uint8_t fill) {
  const Function f = c.facts.function;
  switch (source_row(c.facts.source).reach) {
    case Reach::address:
      return [fn = c.address, f, fill](Xbyak::CodeGenerator& g) { emit_outside_call(g, fn, f, fill); };
    case Reach::slot:
      return [slot = c.slot, f, fill](Xbyak::CodeGenerator& g) { emit_slot_call(g, slot, f, fill); };
    case Reach::bytes:
      return [o = c.object, f, fill](Xbyak::CodeGenerator& g) {
        emit_loaded_bytes(g, o->bytes.data(), o->bytes.size(), o->entry, f, fill);
      };
  }
  return {};
}

/// Where the timed loop enters `c`'s code, with its function's ABI, by its source's row.
Entry entry_of(const OutsideCode& c) {
  Entry e;
  e.fill_in_esi = function_row(c.facts.function).fill_in_esi;
  switch (source_row(c.facts.source).reach) {
    case Reach::address: e.address = c.address; break;
    case Reach::slot: e.slot = c.slot; break;
    case Reach::bytes: e.code_offset = loaded_entry_offset(c.facts.function, c.object->entry); break;
  }
  return e;
}

}  // namespace

KernelPlan outside_plan(const OutsideCode& c, uint8_t fill) {
  const SourceRow& row = source_row(c.facts.source);
  const FunctionRow& fn = function_row(c.facts.function);
  KernelPlan k;
  k.op = fn.op;
  k.fill = fn.fill_in_esi ? fill : 0;
  if (row.name == NameForm::function) {
    k.kind = KernelKind::baseline;
    k.key = baseline_name(std::string(fn.name), k.fill);
    k.libc = LibcFacts{c.facts.function, k.fill};
  } else {
    k.kind = KernelKind::implementation;
    k.impl = c.facts;
    k.impl->fill = k.fill;
    k.key = impl_name({c.facts.source, row.name == NameForm::label ? c.facts.label : c.facts.symbol, k.fill});
  }
  k.width = 64;  // verification tries 63..65 and 255..257: the edges of libcs' size classes
  k.unroll = 256;
  k.code_recorded = row.code_recorded;
  k.skip = c.facts.usable ? "" : c.facts.reason;  // never called: no stub is emitted for it
  k.emit = stub_of(c, k.fill);
  k.entry = entry_of(c);
  return k;
}

}  // namespace kex
