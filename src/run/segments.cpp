#include "src/run/segments.hpp"

#include <asm/ldt.h>
#include <asm/prctl.h>
#include <cpuid.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <vector>

#include "generators/jit.hpp"
#include "src/run/machine.hpp"
#include "generators/segments.hpp"  // the JIT loops (same file name as this module's header)

namespace kex {

namespace {

// ---------------------------------------------------------------------------
// Selectors, bases and the kernel interfaces that hand out descriptors
// ---------------------------------------------------------------------------

constexpr uint16_t kCpuNodeSelector = 0x7b;  // GDT_ENTRY_CPUNODE (entry 15, RPL 3)
constexpr uint16_t kUserCs64 = 0x33;         // __USER_CS
constexpr uint16_t kUserCs32 = 0x23;         // __USER32_CS (compat code; absent without IA-32 emulation)
constexpr unsigned kLdtEntry = 1;            // as in 2006: selector 1*8 | TI | RPL 3 = 0x0f
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

std::string errno_text(int e) { return std::string(strerrorname_np(e)) + " (" + strerror(e) + ")"; }

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
// Child-process probing
// ---------------------------------------------------------------------------

/// Written by a probe child (MAP_SHARED), read by the parent after waitpid.
struct ProbeReport {
  volatile int fault_valid;
  int signo, si_code;
  uint64_t rip;
  uint8_t bytes[4];
  long value0, value1;  // set_thread_area probe: return value, entry number
  char message[256];
};

ProbeReport* g_report = nullptr;  // plain global, never TLS: the handler may run with fs broken

/// Records where the probe faulted. Touches no TLS and calls nothing; SA_RESETHAND
/// restores the default action, so returning re-executes the faulting instruction
/// and the child dies by the signal, which the parent sees.
void on_probe_fault(int sig, siginfo_t* si, void* ucv) {
  auto* uc = static_cast<ucontext_t*>(ucv);
  ProbeReport* r = g_report;
  r->signo = sig;
  r->si_code = si->si_code;
  r->rip = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  if (sig != SIGSEGV || si->si_code == SI_KERNEL || reinterpret_cast<uint64_t>(si->si_addr) != r->rip) {
    const volatile uint8_t* p = reinterpret_cast<const uint8_t*>(r->rip);
    for (int i = 0; i < 4; ++i) r->bytes[i] = p[i];
  }
  r->fault_valid = 1;
}

void install_probe_handlers(ProbeReport* r) {
  g_report = r;
  struct sigaction sa{};
  sa.sa_sigaction = on_probe_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigaction(s, &sa, nullptr);
}

/// Forks; the child runs `body` (which returns "" or a failure message) with the
/// fault handlers installed and a 10 s alarm. Returns "" when the child exited 0,
/// else the reason. `describe_fault` turns a recorded fault into text.
template <class Body, class Describe>
std::string in_child(ProbeReport* report, Body body, Describe describe_fault) {
  memset(static_cast<void*>(report), 0, sizeof *report);
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return "fork failed: " + errno_text(errno);
  if (pid == 0) {
    install_probe_handlers(report);
    alarm(10);
    std::string msg = body();
    if (!msg.empty()) {
      snprintf(report->message, sizeof report->message, "%s", msg.c_str());
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status))
    return report->message[0] ? std::string(report->message)
                              : "probe child exited with status " + std::to_string(WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  if (sig == SIGALRM) return "probe child timed out (10 s)";
  if (report->fault_valid) return describe_fault(*report, sig);
  return "probe child killed by " + signal_text(sig, 0);
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
  // Layout
  static constexpr size_t kTarget = 0;          // the int the 2006 loop increments
  static constexpr size_t kRestoredTarget = 64; // mixed: the int written through the restored selector
  static constexpr size_t kLdtDesc = 128, kTlsDesc = 192;
  static constexpr size_t kChase = 512;         // holds its own address (base-0 pointer chase)
  static constexpr size_t kBase = 1024;         // the non-zero fs/gs base; holds 0 (chase through the base)
  static constexpr size_t kLoads = 2048;        // 64 bytes read by the throughput loops
};

// ---------------------------------------------------------------------------
// The case table
// ---------------------------------------------------------------------------

/// A selector the 2006 loop is run with: one block of the seed's table.
struct SelectorBlock {
  std::string kind;    ///< selector_kind in the JSON
  std::string label;   ///< "data selector", "LDT selector", ...
  std::string source;  ///< what hands the selector out, for fault messages
  uint16_t selector = 0;
  uint64_t desc_base = 0;  ///< descriptor base (0 for flat segments)
  std::string unavailable; ///< set-up failure: the whole block is skipped with this reason
};

struct Case {
  std::string name, kind, group;
  std::optional<uint16_t> selector;
  SegKernelSpec spec;
  std::string skip;
  std::string fault_source;
  volatile int32_t* counter = nullptr;           // 2006/mixed: +1 per iteration
  volatile int32_t* restored_counter = nullptr;  // mixed: +1 per iteration
  size_t kernel = 0;
};

std::string describe_fault(const Case& c, const CodeRef& code, const ProbeReport& r, int sig) {
  std::string where;
  const uint64_t lo = reinterpret_cast<uint64_t>(code.code);
  if (r.rip >= lo && r.rip < lo + code.size) {
    size_t i = 0;
    bool prefixed = false;
    while (i < 3 && (r.bytes[i] == 0x66 || r.bytes[i] == 0x64 || r.bytes[i] == 0x65 || (r.bytes[i] & 0xf0) == 0x40)) {
      prefixed |= r.bytes[i] == 0x64 || r.bytes[i] == 0x65;
      ++i;
    }
    const char* seg = seg_reg_name(c.spec.seg);
    const uint16_t loaded = c.spec.variant == SegVariant::null_load ? 0 : c.spec.selector;
    if (r.bytes[i] == 0x8E) {
      return c.fault_source + " loads fault here: " + signal_text(sig, r.si_code) + " when loading " +
             hex_selector(loaded) + " into " + seg;
    }
    if (r.bytes[i] == 0x0F && (r.bytes[i + 1] == 0xA1 || r.bytes[i + 1] == 0xA9))
      where = std::string(" when restoring the saved ") + seg + " selector (pop)";
    else if (r.bytes[i] == 0x0F && r.bytes[i + 1] == 0x05)
      where = " at the arch_prctl syscall";
    else if (prefixed)
      where = std::string(" at an access through ") + seg;
    else
      where = " at kernel offset " + std::to_string(r.rip - lo);
  } else {
    where = " outside the kernel (rip " + hex_addr(r.rip) + ")";
  }
  return c.name + " faults here: " + signal_text(sig, r.si_code) + where;
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

/// The cases in table order: per selector block the 2006 loop (`<none>`, fs, gs),
/// then the mixed loop per block, then the modern costs.
std::vector<Case> build_cases(const SegmentOptions& o, const std::vector<SelectorBlock>& blocks, const DataPage& page,
                              bool clears_base, bool fsgsbase) {
  std::vector<Case> cs;
  auto base_spec = [&](SegVariant v, SegReg r) {
    SegKernelSpec s;
    s.variant = v;
    s.seg = r;
    s.use_fsgsbase = fsgsbase;
    return s;
  };
  auto selector_loop = [&](const SelectorBlock& b, SegVariant v, SegReg r) {
    Case c;
    const bool none = r == SegReg::none;
    c.name = std::string(none ? "<none>" : seg_reg_name(r)) + " with " + b.label +
             (v == SegVariant::mixed ? ", mixed" : "");
    c.kind = b.kind;
    c.group = std::string(v == SegVariant::mixed ? "mixed/" : "2006/") + b.kind;
    c.selector = b.selector;
    c.spec = base_spec(none ? SegVariant::baseline : v, r);
    c.spec.selector = b.selector;
    c.spec.operand = page.addr(DataPage::kTarget) - b.desc_base;
    c.skip = b.unavailable;
    if (v == SegVariant::mixed) {
      // The restored selector is null. Its base must be the same whether the CPU's
      // null load or the kernel (which at a context switch puts back the base it saved
      // for a null selector: glibc's TLS for fs) set it last, so the kernel sets base 0
      // first. CPUs that keep the old base on a null load (X86_BUG_NULL_SEG) hold the
      // descriptor base until the next context switch: no fixed address then.
      c.spec.set_base = true;
      c.spec.base = 0;
      c.spec.restored_operand = page.addr(DataPage::kRestoredTarget);
      if (!clears_base && b.desc_base != 0 && c.skip.empty())
        c.skip = "not run: this CPU keeps the " + b.label +
                 "'s base after a null load (X86_BUG_NULL_SEG) until the next context switch, so "
                 "the access through the restored selector has no fixed address";
    }
    c.fault_source = b.source;
    if (!none) c.counter = page.counter(DataPage::kTarget);
    if (v == SegVariant::mixed) c.restored_counter = page.counter(DataPage::kRestoredTarget);
    cs.push_back(c);
  };
  for (const auto& b : blocks)
    for (SegReg r : {SegReg::none, SegReg::fs, SegReg::gs}) selector_loop(b, SegVariant::loop2006, r);
  if (o.mixed)
    for (const auto& b : blocks)
      for (SegReg r : {SegReg::fs, SegReg::gs}) selector_loop(b, SegVariant::mixed, r);
  if (!o.modern) return cs;

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
  return cs;
}

// ---------------------------------------------------------------------------
// Header helpers
// ---------------------------------------------------------------------------

double read_cpuinfo_mhz() {
  std::ifstream ci("/proc/cpuinfo");
  std::string line;
  while (std::getline(ci, line))
    if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1));
  return 0;
}

/// Restores the affinity mask of the calling thread when it goes out of scope.
struct AffinityGuard {
  cpu_set_t saved{};
  bool ok = false;
  AffinityGuard() { ok = sched_getaffinity(0, sizeof saved, &saved) == 0; }
  ~AffinityGuard() { if (ok) sched_setaffinity(0, sizeof saved, &saved); }
};

/// Installs (and on destruction clears) the LDT entry and the TLS GDT entry.
struct Descriptors {
  DataPage& page;
  bool ldt_installed = false;
  std::string ldt_error;
  int tls_entry = -1;
  bool tls_via_int80 = false;
  std::string tls_error;

  explicit Descriptors(DataPage& pg, ProbeReport* report) : page(pg) {
    // LDT: modify_ldt(1, &desc, sizeof desc), entry 1, base = the target int.
    auto* ld = reinterpret_cast<user_desc*>(page.p + DataPage::kLdtDesc);
    *ld = data_descriptor(kLdtEntry, static_cast<uint32_t>(page.addr(DataPage::kTarget)));
    if (syscall(SYS_modify_ldt, 1, ld, sizeof *ld) == 0) ldt_installed = true;
    else ldt_error = "modify_ldt failed: " + errno_text(errno);

    // GDT TLS entry: set_thread_area(entry -1). The 64-bit syscall table has no
    // entry point for it on x86-64 (ENOSYS); the i386 one needs IA-32 emulation.
    auto* td = reinterpret_cast<user_desc*>(page.p + DataPage::kTlsDesc);
    *td = data_descriptor(static_cast<unsigned>(-1), static_cast<uint32_t>(page.addr(DataPage::kTarget)));
    if (syscall(SYS_set_thread_area, td) == 0) {
      tls_entry = static_cast<int>(td->entry_number);
      return;
    }
    const std::string native = "64-bit set_thread_area " + std::string(strerrorname_np(errno));
    std::string why = in_child(
        report,
        [&]() -> std::string {
          long r = set_thread_area_int80(td);
          if (r < 0) return "int 0x80 set_thread_area " + std::string(strerrorname_np(int(-r)));
          return {};
        },
        [](const ProbeReport& r, int sig) { return "int 0x80 killed by " + signal_text(sig, r.si_code); });
    if (!why.empty()) {
      tls_error = "set_thread_area unavailable: " + native + "; " + why;
      return;
    }
    *td = data_descriptor(static_cast<unsigned>(-1), static_cast<uint32_t>(page.addr(DataPage::kTarget)));
    long r = set_thread_area_int80(td);
    if (r < 0) {
      tls_error = "set_thread_area unavailable: int 0x80 " + std::string(strerrorname_np(int(-r)));
      return;
    }
    tls_entry = static_cast<int>(td->entry_number);
    tls_via_int80 = true;
  }

  ~Descriptors() {
    if (ldt_installed) {
      auto* ld = reinterpret_cast<user_desc*>(page.p + DataPage::kLdtDesc);
      *ld = empty_descriptor(kLdtEntry);
      syscall(SYS_modify_ldt, 1, ld, sizeof *ld);
    }
    if (tls_entry >= 0) {
      auto* td = reinterpret_cast<user_desc*>(page.p + DataPage::kTlsDesc);
      *td = empty_descriptor(static_cast<unsigned>(tls_entry));
      if (tls_via_int80) set_thread_area_int80(td);
      else syscall(SYS_set_thread_area, td);
    }
  }
};

uint64_t median_of(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

nlohmann::ordered_json run_segments(const SegmentOptions& o) {
  if (o.iterations == 0) throw std::invalid_argument("segments: iterations must be >= 1");
  if (o.repetitions < 1) throw std::invalid_argument("segments: repetitions must be >= 1");
  const Machine& m = machine();
  AffinityGuard affinity;
  const int cpu = pin_to_one_cpu();

  const uint16_t ds = read_ds(), ss = read_ss(), fs = read_fs(), gs = read_gs();
  const uint64_t fs_base0 = get_base(ARCH_GET_FS), gs_base0 = get_base(ARCH_GET_GS);
  const bool clears_base = null_selector_clears_base();
  const bool fsgsbase = m.features.fsgsbase_enabled;

  auto* report = static_cast<ProbeReport*>(
      mmap(nullptr, sizeof(ProbeReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (report == MAP_FAILED) throw std::runtime_error("segments: mmap(MAP_SHARED) failed: " + errno_text(errno));
  struct Unmap { void* p; ~Unmap() { munmap(p, sizeof(ProbeReport)); } } unmap_report{report};

  DataPage page;
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kChase) = page.addr(DataPage::kChase);
  *reinterpret_cast<uint64_t*>(page.p + DataPage::kBase) = 0;
  Descriptors desc(page, report);

  // The data selector: ds, or ss where ds is null (64-bit processes run with ds = 0).
  const uint16_t data_sel = ds ? ds : ss;
  const uint16_t ldt_sel = kLdtEntry << 3 | 4 | 3;
  std::vector<SelectorBlock> blocks;
  blocks.push_back({"data", "data selector", std::string("data selector ") + hex_selector(data_sel), data_sel, 0, ""});
  blocks.push_back({"ldt", "LDT selector", "modify_ldt entry", ldt_sel, page.addr(DataPage::kTarget),
                    desc.ldt_installed ? "" : desc.ldt_error});
  const uint16_t tls_sel = desc.tls_entry >= 0 ? uint16_t(desc.tls_entry << 3 | 3) : 0;
  blocks.push_back({"gdt-tls", "GDT selector", "set_thread_area entry", tls_sel, page.addr(DataPage::kTarget),
                    desc.tls_entry >= 0 ? "" : desc.tls_error});
  blocks.push_back({"gdt-cpunode", "GDT CPU/node selector", "GDT selector 0x7b", kCpuNodeSelector, 0, ""});
  blocks.push_back({"gdt-code64", "GDT 64-bit code selector", "GDT selector 0x33", kUserCs64, 0, ""});
  blocks.push_back({"gdt-code32", "GDT 32-bit code selector", "GDT selector 0x23", kUserCs32, 0, ""});

  std::vector<Case> cases = build_cases(o, blocks, page, clears_base, fsgsbase);

  // JIT every kernel up front, one arena, one mprotect (docs/methodology.md §1.6).
  CodeArena arena;
  for (auto& c : cases)
    if (c.skip.empty()) c.kernel = arena.add([&](Xbyak::CodeGenerator& g) { emit_segment_kernel(g, c.spec); });
  arena.finalize();

  // Probe each case in a child first.
  for (auto& c : cases) {
    if (o.stop && *o.stop) break;
    if (!c.skip.empty()) continue;
    const CodeRef code = arena.ref(c.kernel);
    const auto fn = code.as<SegKernelFn>();
    c.skip = in_child(
        report, [&] { return check_case_here(c, fn); },
        [&](const ProbeReport& r, int sig) { return describe_fault(c, code, r, sig); });
  }

  // Measure.
  const uint64_t per_sample_wanted = (o.iterations + o.repetitions - 1) / o.repetitions;
  nlohmann::ordered_json jcases = nlohmann::ordered_json::array();
  for (auto& c : cases) {
    if (o.stop && *o.stop) break;  // signals are blocked inside a case; between cases a stop is seen
    nlohmann::ordered_json j;
    j["name"] = c.name;
    j["segment"] = seg_reg_name(c.spec.seg);
    j["selector"] = c.selector ? nlohmann::ordered_json(hex_selector(*c.selector)) : nlohmann::ordered_json(nullptr);
    j["selector_kind"] = c.kind;
    j["variant"] = seg_variant_name(c.spec.variant);
    if (c.spec.set_base && c.spec.variant != SegVariant::mixed) j["base"] = hex_addr(c.spec.base);
    if (c.spec.variant == SegVariant::mixed) j["restored_selector"] = "0x00 (base 0)";
    if (!c.skip.empty()) {
      j["skipped"] = true;
      j["skip_message"] = c.skip;
      jcases.push_back(j);
      continue;
    }
    const auto fn = arena.ref(c.kernel).as<SegKernelFn>();
    const uint64_t passes = std::max<uint64_t>(1, (per_sample_wanted + c.spec.unroll - 1) / c.spec.unroll);
    const uint64_t per_sample = passes * c.spec.unroll;
    std::vector<uint64_t> samples;
    SegState st;
    st.fs_base = fs_base0;
    st.gs_base = gs_base0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);  // no handler may run while fs is not glibc's
    fn(std::max<uint64_t>(1, passes / 8), &st);  // warm-up
    const double cpt = core_cycles_per_tick();
    for (int r = 0; r < o.repetitions; ++r) samples.push_back(fn(passes, &st));
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (get_base(ARCH_GET_FS) != fs_base0 || read_fs() != fs) {
      syscall(SYS_arch_prctl, ARCH_SET_FS, fs_base0);
      throw std::runtime_error("segments: " + c.name + " left the fs base changed");
    }
    if (get_base(ARCH_GET_GS) != gs_base0 || read_gs() != gs) {
      syscall(SYS_arch_prctl, ARCH_SET_GS, gs_base0);
      throw std::runtime_error("segments: " + c.name + " left the gs base changed");
    }
    const uint64_t mn = *std::min_element(samples.begin(), samples.end());
    const uint64_t med = median_of(samples);
    const double ticks = double(mn) / double(per_sample);
    j["ns_per_iteration"] = ticks / m.tsc_hz * 1e9;
    j["ticks_per_iteration"] = ticks;
    j["est_cycles_per_iteration"] = ticks * cpt;
    j["cycles_method"] = "imul-chain estimate";
    j["cycles_per_tick"] = cpt;
    j["repetitions"] = o.repetitions;
    j["iterations_per_sample"] = per_sample;
    j["unroll"] = c.spec.unroll;
    j["min_ticks"] = mn;
    j["median_ticks"] = med;
    j["median_ns_per_iteration"] = double(med) / double(per_sample) / m.tsc_hz * 1e9;
    jcases.push_back(j);
  }

  nlohmann::ordered_json h;
  h["cpu_model"] = m.model_name;
  h["mhz"] = m.cpuinfo_mhz > 0 ? m.cpuinfo_mhz : m.tsc_hz / 1e6;
  const double mhz_after = read_cpuinfo_mhz();
  if (mhz_after > 0) h["mhz_after"] = mhz_after;
  h["family"] = m.family;
  h["model"] = m.model;
  h["stepping"] = m.stepping;
  h["selectors"] = {{"ds", hex_selector(ds)},
                    {"ss", hex_selector(ss)},
                    {"fs", hex_selector(fs)},
                    {"gs", hex_selector(gs)},
                    {"data", hex_selector(data_sel)},
                    {"ldt", desc.ldt_installed ? nlohmann::ordered_json(hex_selector(ldt_sel)) : nullptr},
                    {"gdt", desc.tls_entry >= 0 ? nlohmann::ordered_json(hex_selector(tls_sel)) : nullptr}};
  if (!desc.ldt_installed) h["ldt_error"] = desc.ldt_error;
  if (desc.tls_entry < 0) h["gdt_error"] = desc.tls_error;
  h["timer"] = "TSC";
  h["tsc_hz"] = m.tsc_hz;
  h["cpu"] = cpu;
  h["null_selector_clears_base"] = clears_base;
  h["base_restore"] = fsgsbase ? "wrfsbase/wrgsbase" : "arch_prctl";
  nlohmann::ordered_json out;
  out["header"] = h;
  out["cases"] = jcases;
  return out;
}

// ---------------------------------------------------------------------------
// Text table
// ---------------------------------------------------------------------------

namespace {

std::string compact_hex(const nlohmann::ordered_json& v) {
  if (!v.is_string()) return "-";
  unsigned x = std::stoul(v.get<std::string>(), nullptr, 16);
  char b[16];
  snprintf(b, sizeof b, "%x", x);
  return b;
}

/// Integers from 10 up (as in the seed), one decimal from 1, two below.
std::string num_text(double v) {
  char b[32];
  if (v >= 10) snprintf(b, sizeof b, "%.0f", v);
  else if (v >= 1) snprintf(b, sizeof b, "%.1f", v);
  else snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string group_of(const nlohmann::ordered_json& c) {
  const std::string v = c.value("variant", "");
  if (v == "baseline" || v == "2006") return "2006/" + c.value("selector_kind", "");
  if (v == "mixed") return "mixed/" + c.value("selector_kind", "");
  return v;
}

}  // namespace

std::string format_segment_table(const nlohmann::ordered_json& section) {
  std::string out;
  char line[512];
  const auto& h = section.at("header");
  const auto& sel = h.at("selectors");
  snprintf(line, sizeof line, "\"%s\" @%gMhz (%d,%d,%d):\n", h.value("cpu_model", "").c_str(), h.value("mhz", 0.0),
           h.value("family", 0), h.value("model", 0), h.value("stepping", 0));
  out += line;
  out += "ds=" + compact_hex(sel.value("ds", nlohmann::ordered_json())) +
         " ss=" + compact_hex(sel.value("ss", nlohmann::ordered_json())) +
         " fs=" + compact_hex(sel.value("fs", nlohmann::ordered_json())) +
         " gs=" + compact_hex(sel.value("gs", nlohmann::ordered_json())) +
         " ldt=" + compact_hex(sel.value("ldt", nlohmann::ordered_json())) +
         " gdt=" + compact_hex(sel.value("gdt", nlohmann::ordered_json())) + " " + h.value("timer", "TSC") + "\n";
  std::string prev;
  for (const auto& c : section.at("cases")) {
    const std::string g = group_of(c);
    if (g != prev) {
      const bool mixed_start = g.rfind("mixed/", 0) == 0 && prev.rfind("mixed/", 0) != 0;
      const bool modern_start = g.find('/') == std::string::npos && prev.find('/') != std::string::npos;
      if (!prev.empty()) out += "\n";
      if (mixed_start) out += "mixed: an access through the restored selector every iteration\n";
      if (modern_start) out += "modern costs (one load per iteration):\n";
      prev = g;
    }
    out += "   " + c.value("name", "") + ": ";
    if (c.value("skipped", false)) {
      out += "skipped: " + c.value("skip_message", "") + "\n";
      continue;
    }
    out += num_text(c.value("ns_per_iteration", 0.0)) + "ns/iteration (" +
           num_text(c.value("ticks_per_iteration", 0.0)) + " ticks, ~" +
           num_text(c.value("est_cycles_per_iteration", 0.0)) + " cycles)" +
           (c.value("variant", "") == "baseline" ? " (loop overhead: the unrolled loop with no segment work)" : "") + "\n";
  }
  const double mhz = h.value("mhz", 0.0), after = h.value("mhz_after", mhz);
  if (mhz > 0 && std::fabs(after - mhz) / mhz > 0.001) {
    snprintf(line, sizeof line, "warning: cpu MHz changed during the run (%g -> %g)\n", mhz, after);
    out += line;
  }
  return out;
}

}  // namespace kex
