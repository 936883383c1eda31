// `kex segments`' case table: the cases in table order with their kernel specs, and
// their probe in a child (what a fault means, what the kernel must leave as it was).
#include <asm/prctl.h>
#include <signal.h>

#include <cstdio>
#include <string>

#include "src/run/segments_detail.hpp"

namespace kex::segments_detail {

std::string describe_fault(const Case& c, const Built& code, const SandboxOutcome& o) {
  if (o.timed_out) return c.name + ": the probe " + o.message;
  if (!o.signal) return c.name + ": " + o.message;
  const std::string sig = signal_text(o.signal, o.si_code);
  const size_t size = code.info ? code.info->bytes : 0;
  const auto off = fault_offset(o, code.code, size);
  if (!off) {
    if (!o.fault_ip) return c.name + " faults here: " + sig;
    return c.name + " faults here: " + sig + " outside the kernel (rip " + hex_addr(o.fault_ip) + ")";
  }
  const uint8_t* b = code.code + *off;
  const size_t avail = size - size_t(*off);
  auto at = [&](size_t k) -> int { return k < avail ? b[k] : -1; };
  size_t i = 0;
  bool prefixed = false;
  while (i < 3 && (at(i) == 0x66 || at(i) == 0x64 || at(i) == 0x65 || (at(i) >= 0x40 && at(i) <= 0x4f))) {
    prefixed |= at(i) == 0x64 || at(i) == 0x65;
    ++i;
  }
  const std::string seg(to_string(c.spec.seg));
  if (at(i) == 0x8E) {
    // mov Sreg, r32: the source register says which load it was (ecx: the entry
    // selector, before the loop; ebp: the loop's selector).
    const int rm = at(i + 1) & 7;
    if (rm == 1 && c.spec.load_entry)
      return c.entry_source + " loads fault here: " + sig + " when loading " + hex_selector(c.spec.entry_selector) +
             " into " + seg + " (the selector held on entry to the loop)";
    const uint16_t loaded = c.spec.variant == SegVariant::null_load ? 0 : c.spec.selector;
    return c.fault_source + " loads fault here: " + sig + " when loading " + hex_selector(loaded) + " into " + seg;
  }
  std::string where;
  if (at(i) == 0x0F && (at(i + 1) == 0xA1 || at(i + 1) == 0xA9))
    where = std::string(" when restoring the saved ") + seg + " selector (pop)";
  else if (at(i) == 0x0F && at(i + 1) == 0x05)
    where = " at the arch_prctl syscall";
  else if (prefixed)
    where = std::string(" at an access through ") + seg;
  else
    where = " at kernel offset " + std::to_string(*off);
  return c.name + " faults here: " + sig + where;
}

namespace {

thread_local volatile int tls_sentinel = 0;

/// "2b", "0", "7": a selector as the seed's header printed it (%x).
std::string bare_hex(uint16_t v) {
  char b[8];
  snprintf(b, sizeof b, "%x", v);
  return b;
}

/// A kernel spec of `v` on register `r`, restoring bases with wrfsbase/wrgsbase when
/// `fsgsbase` (else arch_prctl).
SegKernelSpec segment_spec(SegVariant v, SegReg r, bool fsgsbase) {
  SegKernelSpec s;
  s.variant = v;
  s.seg = r;
  s.use_fsgsbase = fsgsbase;
  return s;
}

/// The modern costs: plain, fs- and gs-relative load latency and throughput at base 0
/// and a non-zero base, and the null selector loads.
void append_modern_cases(std::vector<Case>& cs, const DataPage& page, bool fsgsbase) {
  auto base_spec = [&](SegVariant v, SegReg r) { return segment_spec(v, r, fsgsbase); };
  struct BaseChoice { const char* label; uint64_t base; };
  const BaseChoice bases[] = {{"base 0", 0}, {"non-zero base", page.addr(DataPage::kBase)}};
  for (SegVariant v : {SegVariant::latency, SegVariant::throughput}) {
    const std::string what = v == SegVariant::latency ? "load latency (pointer chase)" : "load throughput";
    const uint64_t target = page.addr(v == SegVariant::latency ? DataPage::kChase : DataPage::kLoads);
    Case plain;
    plain.name = "plain " + what;
    plain.kind = SelectorKind::none;
    plain.spec = base_spec(v, SegReg::none);
    plain.spec.operand = target;
    plain.spec.unroll = 32;
    cs.push_back(plain);
    for (SegReg r : {SegReg::fs, SegReg::gs})
      for (const auto& b : bases) {
        Case c = plain;
        c.name = std::string(to_string(r)) + " " + what + ", " + b.label;
        c.kind = SelectorKind::null;
        c.selector = 0;
        c.spec.seg = r;
        c.spec.set_base = true;
        c.spec.base = b.base;
        // Latency at the non-zero base chases the 0 stored at the base itself.
        c.spec.operand = v == SegVariant::latency && b.base ? 0 : target - b.base;
        c.fault_source = "arch_prctl " + std::string(to_string(r)) + " base";
        cs.push_back(c);
      }
  }
  for (SegReg r : {SegReg::fs, SegReg::gs}) {
    Case c;
    c.name = std::string(to_string(r)) + " null selector load";
    c.kind = SelectorKind::null;
    c.selector = 0;
    c.spec = base_spec(SegVariant::null_load, r);
    c.fault_source = "null selector";
    cs.push_back(c);
  }
}

}  // namespace

std::string check_case_here(const Case& c, SegKernelFn fn) {
  SegState st;
  st.fs_base = get_base(ARCH_GET_FS);
  st.gs_base = get_base(ARCH_GET_GS);
  const uint16_t fs0 = read_fs(), gs0 = read_gs();
  tls_sentinel = 0x6b6578;
  const int32_t c0 = c.counter ? *c.counter : 0, r0 = c.restored_counter ? *c.restored_counter : 0;
  constexpr uint64_t kPasses = 4;
  fn(kPasses, &st);
  if (tls_sentinel != 0x6b6578) return "thread-local storage broken after the kernel";
  if (read_fs() != fs0 || read_gs() != gs0) return "fs/gs selector not restored";
  if (get_base(ARCH_GET_FS) != st.fs_base) return "fs base not restored";
  if (get_base(ARCH_GET_GS) != st.gs_base) return "gs base not restored";
  const int64_t n = int64_t(kPasses) * c.spec.unroll;
  if (c.counter && *c.counter - c0 != n)
    return "the access through " + std::string(to_string(c.spec.seg)) + " missed its target (" +
           std::to_string(*c.counter - c0) + " of " + std::to_string(n) + " increments)";
  if (c.restored_counter && *c.restored_counter - r0 != n)
    return "the access through the restored selector missed its target (" +
           std::to_string(*c.restored_counter - r0) + " of " + std::to_string(n) + " increments)";
  return {};
}

std::vector<Case> build_cases(const SegmentOptions& o, const std::vector<SelectorBlock>& blocks,
                              const std::vector<EntryChoice>& entries, const DataPage& page, bool clears_base,
                              bool fsgsbase) {
  std::vector<Case> cs;
  auto base_spec = [&](SegVariant v, SegReg r) { return segment_spec(v, r, fsgsbase); };
  auto selector_loop = [&](const SelectorBlock& b, SegVariant v, SegReg r, const EntryChoice* e) {
    Case c;
    const bool none = r == SegReg::none;
    const bool mixed = v == SegVariant::mixed;
    c.name = (none ? std::string("<none>") : std::string(to_string(r))) + " with " + b.label +
             (mixed ? ", mixed" : "");
    if (e) c.name += ", entry " + std::string(to_string(r)) + "=" + bare_hex(e->selector);
    c.kind = b.kind;
    c.selector = b.selector;
    c.spec = base_spec(none ? SegVariant::baseline : v, r);
    c.spec.selector = b.selector;
    c.spec.operand = page.addr(DataPage::kTarget) - b.desc_base;
    c.skip = b.unavailable;
    if (e) {
      c.entry = e->selector;
      c.entry_kind = e->kind;
      c.entry_source = e->source;
      c.spec.load_entry = true;
      c.spec.entry_selector = e->selector;
      if (c.skip.empty()) c.skip = e->unavailable;
    }
    if (mixed) {
      c.spec.restored_operand = page.addr(DataPage::kRestoredTarget) - e->desc_base;
      if (e->selector == 0) {
        // The restored selector is null. Its base must be the same whether the CPU's
        // null load or the kernel (which at a context switch puts back the base it saved
        // for a null selector: glibc's TLS for fs) set it last, so the kernel sets base 0
        // first. CPUs that keep the old base on a null load (X86_BUG_NULL_SEG) hold the
        // descriptor base until the next context switch: no fixed address then.
        c.spec.set_base = true;
        c.spec.base = 0;
        if (!clears_base && b.desc_base != 0 && c.skip.empty())
          c.skip = "not run: this CPU keeps the " + b.label +
                   "'s base after a null load (X86_BUG_NULL_SEG) until the next context switch, so "
                   "the access through the restored selector has no fixed address";
      }
      // A non-null restored selector brings its own descriptor's base back with it.
    }
    c.fault_source = b.source;
    if (!none) c.counter = page.counter(DataPage::kTarget);
    if (mixed) c.restored_counter = page.counter(DataPage::kRestoredTarget);
    cs.push_back(c);
  };
  for (const auto& b : blocks) {
    selector_loop(b, SegVariant::loop2006, SegReg::none, nullptr);
    for (const auto& e : entries)
      for (SegReg r : {SegReg::fs, SegReg::gs}) selector_loop(b, SegVariant::loop2006, r, &e);
  }
  if (o.mixed && !o.seed_only)
    for (const auto& b : blocks)
      for (const auto& e : entries)
        for (SegReg r : {SegReg::fs, SegReg::gs}) selector_loop(b, SegVariant::mixed, r, &e);
  if (o.modern && !o.seed_only) append_modern_cases(cs, page, fsgsbase);
  return cs;
}

}  // namespace kex::segments_detail
