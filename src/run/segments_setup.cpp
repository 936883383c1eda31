// `kex segments`' set-up: the process's selectors, the LDT and GDT descriptors kex
// installs (and removes), and the selector blocks and entry selectors of the table.
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "src/core/limits.hpp"
#include "src/run/segments_detail.hpp"

namespace kex::segments_detail {

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

namespace {

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

}  // namespace

DataPage::DataPage() {
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error("segments: mmap(MAP_32BIT) failed: " + errno_text(errno));
  p = static_cast<uint8_t*>(m);
}

DataPage::~DataPage() { munmap(p, 4096); }

Descriptors::Descriptors(DataPage& pg) : page(pg) {
  install_ldt(ldt, kLdtEntry, DataPage::kLdtDesc, DataPage::kTarget);
  install_ldt(ldt_entry, kLdtEntryEntry, DataPage::kLdtEntryDesc, DataPage::kRestoredTarget);
  const std::string no_tls = tls_path();
  install_tls(tls_entry, DataPage::kTlsEntryDesc, DataPage::kRestoredTarget, no_tls);
  install_tls(tls, DataPage::kTlsDesc, DataPage::kTarget, no_tls);
}

Descriptors::~Descriptors() {
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

void Descriptors::install_ldt(InstalledDescriptor& s, unsigned entry, size_t desc_off, size_t base_off) {
  // modify_ldt(1, &desc, sizeof desc): the interface the 2006 program used.
  *page.desc(desc_off) = data_descriptor(entry, static_cast<uint32_t>(page.addr(base_off)));
  if (syscall(SYS_modify_ldt, 1, page.desc(desc_off), sizeof(user_desc)) == 0) s.index = int(entry);
  else s.error = "modify_ldt failed: " + errno_text(errno);
}

/// Which set_thread_area works: "" when one does (native_tls says which), else
/// why neither does. The 64-bit syscall table has no entry point for it on x86-64
/// (ENOSYS); the i386 one needs IA-32 emulation, and is probed in a child first.
std::string Descriptors::tls_path() {
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

void Descriptors::install_tls(InstalledDescriptor& s, size_t desc_off, size_t base_off, const std::string& no_tls) {
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
  blocks.push_back(
      {SelectorKind::data, "data selector", std::string("data selector ") + hex_selector(s.data), s.data, 0, ""});
  blocks.push_back(
      {SelectorKind::ldt, "LDT selector", "modify_ldt entry", s.ldt, page.addr(DataPage::kTarget), desc.ldt.error});
  blocks.push_back({SelectorKind::gdt_tls, "GDT selector", "set_thread_area entry", s.tls, page.addr(DataPage::kTarget),
                    desc.tls.error});
  if (!o.seed_only || !desc.tls.ok())  // the seed-exact text's GDT block falls back to it
    blocks.push_back(
        {SelectorKind::gdt_cpunode, "GDT CPU/node selector", "GDT selector 0x7b", kCpuNodeSelector, 0, ""});
  if (!o.seed_only) {
    blocks.push_back({SelectorKind::gdt_code64, "GDT 64-bit code selector", "GDT selector 0x33", kUserCs64, 0, ""});
    blocks.push_back({SelectorKind::gdt_code32, "GDT 32-bit code selector", "GDT selector 0x23", kUserCs32, 0, ""});
  }
  return blocks;
}

/// The selectors a tested register holds on entry to a loop.
std::vector<EntryChoice> entry_choices(const Selectors& s, const DataPage& page, const Descriptors& desc) {
  const uint64_t restored = page.addr(DataPage::kRestoredTarget);
  return {
      {SelectorKind::null, "null selector", 0, 0, ""},
      {SelectorKind::data, "data selector " + hex_selector(s.data), s.data, 0, ""},
      {SelectorKind::ldt, "modify_ldt entry", s.ldt_entry, restored, desc.ldt_entry.error},
      {SelectorKind::gdt_tls, "set_thread_area entry", s.tls_entry, restored, desc.tls_entry.error},
      {SelectorKind::gdt_cpunode, "GDT selector 0x7b", kCpuNodeSelector, 0, ""},
  };
}

}  // namespace kex::segments_detail
