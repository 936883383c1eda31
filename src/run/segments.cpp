#include "src/run/segments.hpp"

#include <asm/ldt.h>
#include <asm/prctl.h>
#include <cpuid.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "generators/jit.hpp"
#include "generators/segments.hpp"  // the JIT loops (same file name as this module's header)
#include "src/core/limits.hpp"
#include "src/core/stats.hpp"
#include "src/run/built.hpp"
#include "src/run/machine.hpp"
#include "src/run/sandbox.hpp"

namespace kex {

namespace {

// ---------------------------------------------------------------------------
// Selectors, bases and the kernel interfaces that hand out descriptors
// ---------------------------------------------------------------------------

constexpr uint16_t kCpuNodeSelector = 0x7b;  // GDT_ENTRY_CPUNODE (entry 15, RPL 3)
constexpr uint16_t kUserCs64 = 0x33;         // __USER_CS
constexpr uint16_t kUserCs32 = 0x23;         // __USER32_CS (compat code; absent without IA-32 emulation)
constexpr unsigned kLdtEntry = 1;            // as in 2006: selector 1*8 | TI | RPL 3 = 0x0f
constexpr unsigned kLdtEntryEntry = 0;       // held on entry to the loop: 0*8 | TI | RPL 3 = 0x07
constexpr int kSysSetThreadArea32 = 243;     // i386 syscall number, reached with int 0x80

uint16_t read_ds() { uint16_t v; asm volatile("mov %%ds, %0" : "=r"(v)); return v; }
uint16_t read_ss() { uint16_t v; asm volatile("mov %%ss, %0" : "=r"(v)); return v; }
uint16_t read_fs() { uint16_t v; asm volatile("mov %%fs, %0" : "=r"(v)); return v; }
uint16_t read_gs() { uint16_t v; asm volatile("mov %%gs, %0" : "=r"(v)); return v; }

uint64_t get_base(int code) {
  uint64_t v = 0;
  if (syscall(SYS_arch_prctl, code, &v) != 0)
    throw std::runtime_error(std::string("arch_prctl(GET) failed: ") + strerrorname_np(errno));
  return v;
}

std::string hex_selector(uint16_t v) {
  char b[16];
  snprintf(b, sizeof b, "0x%02x", v);
  return b;
}

std::string hex_addr(uint64_t v) {
  char b[24];
  snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}


std::string signal_text(int sig, int si_code) {
  std::string s = std::string("SIG") + sigabbrev_np(sig);
  if (sig == SIGSEGV && si_code == SI_KERNEL) s += " (#GP)";
  return s;
}

/// CPUs that clear the base when a null selector is loaded into fs/gs: Intel and
/// others, AMD/Hygon only when CPUID 0x80000021 EAX[6] (NullSelectClearsBase) says so.
bool null_selector_clears_base() {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
  const bool amd_like = (b == 0x68747541 /*Auth*/) || (b == 0x6f677948 /*Hygo*/);
  if (!amd_like) return true;
  __cpuid(0x80000000, a, b, c, d);
  if (a < 0x80000021) return false;
  __cpuid(0x80000021, a, b, c, d);
  return (a >> 6) & 1;
}

user_desc data_descriptor(unsigned entry, uint32_t base) {
  user_desc d{};
  d.entry_number = entry;
  d.base_addr = base;
  d.limit = sizeof(int32_t) - 1;  // byte-granular, one int: as in 2006
  d.seg_32bit = 1;
  d.contents = 0;  // data, read/write
  d.read_exec_only = 0;
  d.limit_in_pages = 0;
  d.seg_not_present = 0;
  d.useable = 1;
  return d;
}

user_desc empty_descriptor(unsigned entry) {
  user_desc d{};
  d.entry_number = entry;
  d.read_exec_only = 1;
  d.seg_not_present = 1;
  return d;
}

/// set_thread_area through the i386 entry point; `d` must lie below 4 GiB.
long set_thread_area_int80(user_desc* d) {
  long ret;
  asm volatile("int $0x80"
               : "=a"(ret)
               : "0"(long(kSysSetThreadArea32)), "b"(reinterpret_cast<uintptr_t>(d))
               : "memory", "cc", "r8", "r9", "r10", "r11");
  return ret;
}

// ---------------------------------------------------------------------------
// The data page (below 4 GiB: descriptor bases are 32-bit)
// ---------------------------------------------------------------------------

struct DataPage {
  uint8_t* p = nullptr;
  DataPage() {
    void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (m == MAP_FAILED) throw std::runtime_error("segments: mmap(MAP_32BIT) failed: " + errno_text(errno));
    p = static_cast<uint8_t*>(m);
  }
  ~DataPage() { munmap(p, 4096); }
  DataPage(const DataPage&) = delete;
  DataPage& operator=(const DataPage&) = delete;
  uint64_t addr(size_t off) const { return reinterpret_cast<uint64_t>(p + off); }
  volatile int32_t* counter(size_t off) const { return reinterpret_cast<volatile int32_t*>(p + off); }
  user_desc* desc(size_t off) const { return reinterpret_cast<user_desc*>(p + off); }
  // Layout
  static constexpr size_t kTarget = 0;          // the int the 2006 loop increments
  static constexpr size_t kRestoredTarget = 64; // mixed: the int written through the restored (entry) selector;
                                                // also the base of the LDT/TLS descriptors held on entry
  static constexpr size_t kLdtDesc = 128, kTlsDesc = 192;            // the selectors the loop loads
  static constexpr size_t kLdtEntryDesc = 256, kTlsEntryDesc = 320;  // the selectors held on entry
  static constexpr size_t kChase = 512;         // holds its own address (base-0 pointer chase)
  static constexpr size_t kBase = 1024;         // the non-zero fs/gs base; holds 0 (chase through the base)
  static constexpr size_t kLoads = 2048;        // 64 bytes read by the throughput loops
};

// ---------------------------------------------------------------------------
// The case table
// ---------------------------------------------------------------------------

/// A selector the 2006 loop loads each iteration: one block of the seed's table.
struct SelectorBlock {
  std::string kind;    ///< selector_kind in the JSON
  std::string label;   ///< "data selector", "LDT selector", ...
  std::string source;  ///< what hands the selector out, for fault messages
  uint16_t selector = 0;
  uint64_t desc_base = 0;  ///< descriptor base (0 for flat segments)
  std::string unavailable; ///< set-up failure: the whole block is skipped with this reason
};

/// A selector the tested register holds on entry to the loop, so the loop's push
/// saves it and its pop reloads it. On i386 gs held glibc's TLS selector and fs
/// held null (docs/seed-kernels.md §8); an x86-64 process starts with both null.
struct EntryChoice {
  std::string kind;    ///< entry_selector_kind in the JSON
  std::string source;  ///< for fault messages
  uint16_t selector = 0;
  uint64_t desc_base = 0;
  std::string unavailable;
};

struct Case {
  std::string name, kind, group;
  std::optional<uint16_t> selector;
  std::optional<uint16_t> entry;  ///< 2006/mixed fs and gs cases: the selector held on entry
  std::string entry_kind;
  SegKernelSpec spec;
  std::string skip;
  std::string fault_source, entry_source;
  volatile int32_t* counter = nullptr;           // 2006/mixed: +1 per iteration
  volatile int32_t* restored_counter = nullptr;  // mixed: +1 per iteration
};

/// Why a probe child died, in terms of the kernel's instructions. The child's code
/// is the parent's (fork), so the faulting bytes are read here.
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
  const char* seg = seg_reg_name(c.spec.seg);
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

thread_local volatile int tls_sentinel = 0;

/// Runs the case's kernel for a few passes in this (child) process and checks that
/// the counters moved as they should and that fs, gs and TLS are as before.
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
    return "the access through " + std::string(seg_reg_name(c.spec.seg)) + " missed its target (" +
           std::to_string(*c.counter - c0) + " of " + std::to_string(n) + " increments)";
  if (c.restored_counter && *c.restored_counter - r0 != n)
    return "the access through the restored selector missed its target (" +
           std::to_string(*c.restored_counter - r0) + " of " + std::to_string(n) + " increments)";
  return {};
}

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

void append_modern_cases(std::vector<Case>& cs, const DataPage& page, bool fsgsbase);

/// The cases in table order: per selector block the 2006 loop (`<none>`, then fs
/// and gs for each entry selector), then the mixed loop per block and entry
/// selector, then the modern costs.
std::vector<Case> build_cases(const SegmentOptions& o, const std::vector<SelectorBlock>& blocks,
                              const std::vector<EntryChoice>& entries, const DataPage& page, bool clears_base,
                              bool fsgsbase) {
  std::vector<Case> cs;
  auto base_spec = [&](SegVariant v, SegReg r) { return segment_spec(v, r, fsgsbase); };
  auto selector_loop = [&](const SelectorBlock& b, SegVariant v, SegReg r, const EntryChoice* e) {
    Case c;
    const bool none = r == SegReg::none;
    const bool mixed = v == SegVariant::mixed;
    c.name = std::string(none ? "<none>" : seg_reg_name(r)) + " with " + b.label + (mixed ? ", mixed" : "");
    if (e) c.name += std::string(", entry ") + seg_reg_name(r) + "=" + bare_hex(e->selector);
    c.kind = b.kind;
    c.group = std::string(mixed ? "mixed/" : "2006/") + b.kind;
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
    plain.kind = "none";
    plain.group = seg_variant_name(v);
    plain.spec = base_spec(v, SegReg::none);
    plain.spec.operand = target;
    plain.spec.unroll = 32;
    cs.push_back(plain);
    for (SegReg r : {SegReg::fs, SegReg::gs})
      for (const auto& b : bases) {
        Case c = plain;
        c.name = std::string(seg_reg_name(r)) + " " + what + ", " + b.label;
        c.kind = "null";
        c.selector = 0;
        c.spec.seg = r;
        c.spec.set_base = true;
        c.spec.base = b.base;
        // Latency at the non-zero base chases the 0 stored at the base itself.
        c.spec.operand = v == SegVariant::latency && b.base ? 0 : target - b.base;
        c.fault_source = std::string("arch_prctl ") + seg_reg_name(r) + " base";
        cs.push_back(c);
      }
  }
  for (SegReg r : {SegReg::fs, SegReg::gs}) {
    Case c;
    c.name = std::string(seg_reg_name(r)) + " null selector load";
    c.kind = "null";
    c.group = "null-load";
    c.selector = 0;
    c.spec = base_spec(SegVariant::null_load, r);
    c.fault_source = "null selector";
    cs.push_back(c);
  }
}

// ---------------------------------------------------------------------------
// Header helpers
// ---------------------------------------------------------------------------

/// Restores the affinity mask of the calling thread when it goes out of scope.
struct AffinityGuard {
  cpu_set_t saved{};
  bool ok = false;
  AffinityGuard() { ok = sched_getaffinity(0, sizeof saved, &saved) == 0; }
  ~AffinityGuard() { if (ok) sched_setaffinity(0, sizeof saved, &saved); }
};

/// One descriptor installed for the run: its table index, or why it is missing.
struct InstalledDescriptor {
  int index = -1;
  bool via_int80 = false;  ///< TLS slots: installed through the i386 entry point
  std::string error;
  bool ok() const { return index >= 0; }
};

/// Installs (and on destruction clears) the LDT entries and the TLS GDT entries:
/// for the selectors the loop loads (LDT 1 = 0x0f, as in 2006, and a TLS slot, base
/// = the target int) and for the selectors held on entry (LDT 0 = 0x07 and another
/// TLS slot, base = the restored target). The entry TLS slot is taken first, so on
/// a stock kernel it gets entry 12 (0x63) and the loaded one entry 13 (0x6b), the
/// pair a 32-bit process saw on x86-64 in the seed (gs=63 gdt=6b).
struct Descriptors {
  DataPage& page;
  InstalledDescriptor ldt, ldt_entry, tls, tls_entry;

  explicit Descriptors(DataPage& pg) : page(pg) {
    install_ldt(ldt, kLdtEntry, DataPage::kLdtDesc, DataPage::kTarget);
    install_ldt(ldt_entry, kLdtEntryEntry, DataPage::kLdtEntryDesc, DataPage::kRestoredTarget);
    const std::string no_tls = tls_path();
    install_tls(tls_entry, DataPage::kTlsEntryDesc, DataPage::kRestoredTarget, no_tls);
    install_tls(tls, DataPage::kTlsDesc, DataPage::kTarget, no_tls);
  }

  ~Descriptors() {
    for (auto [s, off] : {std::pair<InstalledDescriptor*, size_t>{&ldt, DataPage::kLdtDesc}, {&ldt_entry, DataPage::kLdtEntryDesc}})
      if (s->ok()) {
        *page.desc(off) = empty_descriptor(unsigned(s->index));
        syscall(SYS_modify_ldt, 1, page.desc(off), sizeof(user_desc));
      }
    for (auto [s, off] : {std::pair<InstalledDescriptor*, size_t>{&tls, DataPage::kTlsDesc}, {&tls_entry, DataPage::kTlsEntryDesc}})
      if (s->ok()) {
        *page.desc(off) = empty_descriptor(unsigned(s->index));
        if (s->via_int80) set_thread_area_int80(page.desc(off));
        else syscall(SYS_set_thread_area, page.desc(off));
      }
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

 private:
  bool native_tls = false;

  void install_ldt(InstalledDescriptor& s, unsigned entry, size_t desc_off, size_t base_off) {
    // modify_ldt(1, &desc, sizeof desc): the interface the 2006 program used.
    *page.desc(desc_off) = data_descriptor(entry, static_cast<uint32_t>(page.addr(base_off)));
    if (syscall(SYS_modify_ldt, 1, page.desc(desc_off), sizeof(user_desc)) == 0) s.index = int(entry);
    else s.error = "modify_ldt failed: " + errno_text(errno);
  }

  /// Which set_thread_area works: "" when one does (native_tls says which), else
  /// why neither does. The 64-bit syscall table has no entry point for it on x86-64
  /// (ENOSYS); the i386 one needs IA-32 emulation, and is probed in a child first.
  std::string tls_path() {
    user_desc probe = data_descriptor(static_cast<unsigned>(-1), static_cast<uint32_t>(page.addr(DataPage::kTarget)));
    user_desc* td = page.desc(DataPage::kTlsDesc);
    *td = probe;
    if (syscall(SYS_set_thread_area, td) == 0) {
      native_tls = true;
      *td = empty_descriptor(td->entry_number);  // the probe's slot; installed again below
      syscall(SYS_set_thread_area, td);
      return {};
    }
    const std::string native = "64-bit set_thread_area " + std::string(strerrorname_np(errno));
    const auto out = run_sandboxed(
        1,
        [&](size_t) -> std::string {
          *td = probe;
          long r = set_thread_area_int80(td);  // in the child only: its GDT slots die with it
          if (r < 0) return "int 0x80 set_thread_area " + std::string(strerrorname_np(int(-r)));
          return {};
        },
        10);
    const SandboxOutcome& o = out.at(0);
    if (o.finished && o.message.empty()) return {};
    const std::string why = o.finished ? o.message
                            : o.timed_out ? "int 0x80 " + o.message
                                          : "int 0x80 killed by " + signal_text(o.signal, o.si_code);
    return "set_thread_area unavailable: " + native + "; " + why;
  }

  void install_tls(InstalledDescriptor& s, size_t desc_off, size_t base_off, const std::string& no_tls) {
    if (!no_tls.empty()) {
      s.error = no_tls;
      return;
    }
    user_desc* td = page.desc(desc_off);
    *td = data_descriptor(static_cast<unsigned>(-1), static_cast<uint32_t>(page.addr(base_off)));
    long r = native_tls ? (syscall(SYS_set_thread_area, td) == 0 ? 0 : -errno) : set_thread_area_int80(td);
    if (r < 0) {
      s.error = "set_thread_area failed: " + std::string(strerrorname_np(int(-r)));
      return;
    }
    s.index = static_cast<int>(td->entry_number);
    s.via_int80 = !native_tls;
  }
};

uint64_t median_of(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds a timed chunk of a segment case lasts at most (about): the stop latency.
constexpr double kChunkSeconds = 0.02;

/// The passes of the next chunk after `chunk` passes took `ticks`: about
/// `target_ticks`, at most 4 times the last (one fast reading does not make a long chunk).
uint64_t next_chunk(uint64_t chunk, uint64_t ticks, double target_ticks) {
  if (ticks == 0) return chunk * 4;
  const double want = double(chunk) * target_ticks / double(ticks);
  return std::max<uint64_t>(1, std::min<uint64_t>(chunk * 4, static_cast<uint64_t>(want)));
}

/// A SIGINT or SIGTERM waits (blocked while a case runs).
bool stop_pending() {
  sigset_t pending;
  return sigpending(&pending) == 0 && (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

uint64_t cputime_ns() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return uint64_t(t.tv_sec) * 1'000'000'000ull + uint64_t(t.tv_nsec);
}

}  // namespace

namespace {

/// The selectors the table reads and loads: the process's own on entry and the
/// entries kex set up (0 where one could not be).
struct Selectors {
  uint16_t ds = 0, ss = 0, fs = 0, gs = 0;
  uint16_t data = 0;  ///< ds, or ss where ds is null (64-bit processes run with ds = 0)
  uint16_t ldt = 0, ldt_entry = 0, tls = 0, tls_entry = 0;
  uint64_t fs_base = 0, gs_base = 0;  ///< glibc's bases on entry
};

/// The process's selectors and bases, read before anything is set up.
Selectors process_selectors() {
  Selectors s;
  s.ds = read_ds();
  s.ss = read_ss();
  s.fs = read_fs();
  s.gs = read_gs();
  s.fs_base = get_base(ARCH_GET_FS);
  s.gs_base = get_base(ARCH_GET_GS);
  s.data = s.ds ? s.ds : s.ss;
  return s;
}

/// The selectors of the LDT and GDT entries `desc` set up.
void add_set_up_selectors(Selectors& s, const Descriptors& desc) {
  s.ldt = kLdtEntry << 3 | 4 | 3;
  s.ldt_entry = kLdtEntryEntry << 3 | 4 | 3;
  s.tls = desc.tls.ok() ? uint16_t(desc.tls.index << 3 | 3) : 0;
  s.tls_entry = desc.tls_entry.ok() ? uint16_t(desc.tls_entry.index << 3 | 3) : 0;
}

/// The blocks of the table: which selector each loads.
std::vector<SelectorBlock> selector_blocks(const SegmentOptions& o, const Selectors& s, const DataPage& page,
                                           const Descriptors& desc) {
  std::vector<SelectorBlock> blocks;
  blocks.push_back({"data", "data selector", std::string("data selector ") + hex_selector(s.data), s.data, 0, ""});
  blocks.push_back({"ldt", "LDT selector", "modify_ldt entry", s.ldt, page.addr(DataPage::kTarget), desc.ldt.error});
  blocks.push_back({"gdt-tls", "GDT selector", "set_thread_area entry", s.tls, page.addr(DataPage::kTarget),
                    desc.tls.error});
  if (!o.seed_only || !desc.tls.ok())  // the seed-exact text's GDT block falls back to it
    blocks.push_back({"gdt-cpunode", "GDT CPU/node selector", "GDT selector 0x7b", kCpuNodeSelector, 0, ""});
  if (!o.seed_only) {
    blocks.push_back({"gdt-code64", "GDT 64-bit code selector", "GDT selector 0x33", kUserCs64, 0, ""});
    blocks.push_back({"gdt-code32", "GDT 32-bit code selector", "GDT selector 0x23", kUserCs32, 0, ""});
  }
  return blocks;
}

/// The selectors a tested register holds on entry to a loop.
std::vector<EntryChoice> entry_choices(const Selectors& s, const DataPage& page, const Descriptors& desc) {
  const uint64_t restored = page.addr(DataPage::kRestoredTarget);
  return {
      {"null", "null selector", 0, 0, ""},
      {"data", "data selector " + hex_selector(s.data), s.data, 0, ""},
      {"ldt", "modify_ldt entry", s.ldt_entry, restored, desc.ldt_entry.error},
      {"gdt-tls", "set_thread_area entry", s.tls_entry, restored, desc.tls_entry.error},
      {"gdt-cpunode", "GDT selector 0x7b", kCpuNodeSelector, 0, ""},
  };
}

/// A case's identity in the section: name, register, selectors, variant, and its
/// skip message when it is not measured.
SegmentCase case_record(const Case& c) {
  SegmentCase j;
  j.name = c.name;
  j.segment = seg_reg_name(c.spec.seg);
  if (c.selector) j.selector = hex_selector(*c.selector);
  j.selector_kind = c.kind;
  j.variant = seg_variant_name(c.spec.variant);
  if (c.entry) {
    j.entry_selector = hex_selector(*c.entry);
    j.entry_selector_kind = c.entry_kind;
  }
  if (c.spec.set_base && c.spec.variant != SegVariant::mixed) j.base = hex_addr(c.spec.base);
  if (c.spec.variant == SegVariant::mixed) j.restored_selector = hex_selector(*c.entry) + (*c.entry == 0 ? " (base 0)" : "");
  j.skipped = !c.skip.empty();
  j.skip_message = c.skip;
  return j;
}

/// A case's timed samples: TSC ticks per sample of `per_sample` iterations, the
/// CLOCK_PROCESS_CPUTIME_ID nanoseconds around them; fewer than asked when a stop came.
struct CaseSamples {
  std::vector<uint64_t> ticks;
  uint64_t cpu_ns = 0, per_sample = 0;
  double cycles_per_tick = 0;  ///< core cycles per TSC tick, read after the warm-up
};

/// Times `fn` (case `c`) in `o.repetitions` samples with every signal blocked (no
/// handler may run while fs is not glibc's); throws std::runtime_error when the case
/// left the fs or gs base changed (after putting it back).
CaseSamples measure_case(const Case& c, SegKernelFn fn, const SegmentOptions& o, uint64_t per_sample_wanted,
                         double tsc_hz, const Selectors& sel) {
  CaseSamples out;
  const uint64_t passes = std::max<uint64_t>(1, (per_sample_wanted + c.spec.unroll - 1) / c.spec.unroll);
  out.per_sample = passes * c.spec.unroll;
  SegState st;
  st.fs_base = sel.fs_base;
  st.gs_base = sel.gs_base;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  // A sample is timed in chunks of about 20 ms (one TSC pair each, summed): after
  // every chunk, also a sample's last, a pending SIGINT/SIGTERM ends the table, so
  // no case holds a stop longer than a chunk whatever its iteration count. The
  // chunk starts at a few thousand iterations and follows the time the last took.
  const double chunk_ticks = tsc_hz * kChunkSeconds;
  uint64_t chunk = std::max<uint64_t>(1, 4096 / c.spec.unroll);
  bool interrupted = false;  // a stop is pending: no further chunk
  auto timed = [&](uint64_t n) {
    uint64_t sum = 0, done = 0;
    while (done < n && !interrupted) {
      const uint64_t k = std::min(n - done, chunk);
      const uint64_t t = fn(k, &st);
      sum += t;
      done += k;
      if (k == chunk) chunk = next_chunk(chunk, t, chunk_ticks);
      interrupted = stop_pending();
    }
    return done == n ? std::optional<uint64_t>(sum) : std::nullopt;
  };
  timed(std::max<uint64_t>(1, passes / 8));  // warm-up
  out.cycles_per_tick = core_cycles_per_tick();
  for (int r = 0; r < o.repetitions && !interrupted; ++r) {
    // The seed's clock around each sample too: it timed its loops with
    // CLOCK_PROCESS_CPUTIME_ID (docs/seed-kernels.md §8).
    const uint64_t t0 = cputime_ns();
    const std::optional<uint64_t> sample = timed(passes);
    out.cpu_ns += cputime_ns() - t0;
    if (sample) out.ticks.push_back(*sample);
  }
  // Unblocking delivers a pending stop: kex run's handler counts it (the table
  // ends here), and without a handler (kex segments) the signal ends the process.
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (get_base(ARCH_GET_FS) != sel.fs_base || read_fs() != sel.fs) {
    syscall(SYS_arch_prctl, ARCH_SET_FS, sel.fs_base);
    throw std::runtime_error("segments: " + c.name + " left the fs base changed");
  }
  if (get_base(ARCH_GET_GS) != sel.gs_base || read_gs() != sel.gs) {
    syscall(SYS_arch_prctl, ARCH_SET_GS, sel.gs_base);
    throw std::runtime_error("segments: " + c.name + " left the gs base changed");
  }
  return out;
}

/// A measured case's figures: the fastest sample per iteration (ns, TSC ticks, and
/// estimated core cycles), the median, the counts behind them.
void add_figures(SegmentCase& j, const CaseSamples& s, const Case& c, const SegmentOptions& o, double tsc_hz) {
  const double cycles_per_tick = s.cycles_per_tick;
  const uint64_t mn = *std::min_element(s.ticks.begin(), s.ticks.end());
  const uint64_t med = median_of(s.ticks);
  const double ticks = double(mn) / double(s.per_sample);
  j.ns_per_iteration = ticks / tsc_hz * 1e9;
  j.ticks_per_iteration = ticks;
  j.est_cycles_per_iteration = ticks * cycles_per_tick;
  j.cycles_method = "imul-chain estimate";
  j.cycles_per_tick = cycles_per_tick;
  j.repetitions = o.repetitions;
  j.iterations_per_sample = s.per_sample;
  j.unroll = uint64_t(c.spec.unroll);
  j.min_ticks = mn;
  j.median_ticks = med;
  j.median_ns_per_iteration = double(med) / double(s.per_sample) / tsc_hz * 1e9;
  j.timed_iterations = s.per_sample * uint64_t(o.repetitions);
  j.cputime_ns = s.cpu_ns;
}

/// The section's header: the CPU, the selectors on entry and those set up (null
/// where one could not be, with the reason), the clocks and the protocol.
SegmentHeader segments_header(const Machine& m, const Selectors& s, const Descriptors& desc, const SegmentOptions& o,
                              int cpu, bool clears_base, bool fsgsbase) {
  SegmentHeader h;
  h.cpu_model = m.model_name;
  h.mhz = m.cpuinfo_mhz > 0 ? m.cpuinfo_mhz : m.tsc_hz / 1e6;
  const double mhz_after = cpuinfo_of(m.cache_cpu).mhz;  // the block "mhz" was read from
  if (mhz_after > 0) h.mhz_after = mhz_after;
  h.family = m.family;
  h.model = m.model;
  h.stepping = m.stepping;
  auto sel_or_null = [](bool ok, uint16_t v) { return ok ? std::optional<std::string>(hex_selector(v)) : std::nullopt; };
  h.selectors = {{"ds", hex_selector(s.ds)},     {"ss", hex_selector(s.ss)},
                 {"fs", hex_selector(s.fs)},     {"gs", hex_selector(s.gs)},
                 {"data", hex_selector(s.data)}, {"ldt", sel_or_null(desc.ldt.ok(), s.ldt)},
                 {"gdt", sel_or_null(desc.tls.ok(), s.tls)}};
  if (!desc.ldt.ok()) h.ldt_error = desc.ldt.error;
  if (!desc.tls.ok()) h.gdt_error = desc.tls.error;
  h.entry_selectors = NamedSelectors{{"null", hex_selector(0)},
                                     {"data", hex_selector(s.data)},
                                     {"ldt", sel_or_null(desc.ldt_entry.ok(), s.ldt_entry)},
                                     {"gdt-tls", sel_or_null(desc.tls_entry.ok(), s.tls_entry)},
                                     {"gdt-cpunode", hex_selector(kCpuNodeSelector)}};
  if (!desc.ldt_entry.ok()) h.ldt_entry_error = desc.ldt_entry.error;
  if (!desc.tls_entry.ok()) h.gdt_entry_error = desc.tls_entry.error;
  h.timer = "TSC";
  h.seed_clock = "CPUTIME";
  h.tsc_hz = m.tsc_hz;
  h.iterations = o.iterations;
  h.repetitions = o.repetitions;
  h.cpu = cpu;
  h.null_selector_clears_base = clears_base;
  h.base_restore = fsgsbase ? "wrfsbase/wrgsbase" : "arch_prctl";
  return h;
}

}  // namespace

SegmentSection run_segments(const SegmentOptions& o) {
  if (o.iterations == 0) throw std::invalid_argument("segments: iterations must be >= 1");
  if (o.repetitions < 1) throw std::invalid_argument("segments: repetitions must be >= 1");
  const Machine& m = machine();
  AffinityGuard affinity;
  const int cpu = pin_to_one_cpu();
  Selectors sel = process_selectors();
  const bool clears_base = null_selector_clears_base();
  const bool fsgsbase = m.fsgsbase_enabled;

  DataPage page;
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kChase) = page.addr(DataPage::kChase);
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kBase) = 0;
  Descriptors desc(page);
  add_set_up_selectors(sel, desc);
  std::vector<Case> cases = build_cases(o, selector_blocks(o, sel, page, desc), entry_choices(sel, page, desc), page,
                                        clears_base, fsgsbase);

  // JIT every kernel up front, one arena, one mprotect (docs/methodology.md §1.6).
  CodeArena arena;
  std::vector<std::function<void(Xbyak::CodeGenerator&)>> emits(cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].skip.empty()) emits[i] = [&c = cases[i]](Xbyak::CodeGenerator& g) { emit_segment_kernel(g, c.spec); };
  const std::vector<Built> built = emit_kernels(arena, emits);

  // Probe each case in a child of its own first: one that faults, or leaves
  // anything changed, never reaches the measuring process or another probe.
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    if (o.stop && *o.stop) break;
    if (c.skip.empty() && built[i].status.kind != StatusKind::ok) c.skip = built[i].status.message;
    if (!c.skip.empty()) continue;
    const auto fn = built[i].as<SegKernelFn>();
    const SandboxOutcome out = run_sandboxed(1, [&](size_t) { return check_case_here(c, fn); }, 10).at(0);
    c.skip = out.finished ? out.message : describe_fault(c, built[i], out);
  }

  // Measure.
  const uint64_t per_sample_wanted = (o.iterations + o.repetitions - 1) / o.repetitions;
  SegmentSection out;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (o.stop && *o.stop) break;  // signals are blocked inside a case; between cases a stop is seen
    SegmentCase j = case_record(c);
    if (!c.skip.empty()) {
      out.cases.push_back(std::move(j));
      continue;
    }
    const CaseSamples s = measure_case(c, built[i].as<SegKernelFn>(), o, per_sample_wanted, m.tsc_hz, sel);
    if (s.ticks.size() < size_t(o.repetitions)) break;  // the case was cut short: it has no figure
    add_figures(j, s, c, o, m.tsc_hz);
    out.cases.push_back(std::move(j));
  }
  out.header = segments_header(m, sel, desc, o, cpu, clears_base, fsgsbase);
  return out;
}

}  // namespace kex
