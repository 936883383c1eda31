// The parts `kex segments` (src/run/segments*.cpp) share: the data page, the LDT and
// GDT descriptors kex installs, the selectors, and the case table. Internal to src/run:
// segments_setup.cpp installs descriptors and names the selectors, segments_cases.cpp
// builds and probes the cases, segments.cpp measures them and makes the section.
// See docs/seed-kernels.md §8.
#pragma once
#include <asm/ldt.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/segments.hpp"  // the JIT loops' spec (same file name as this module's header)
#include "src/run/built.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/segments.hpp"

namespace kex::segments_detail {

// ---------------------------------------------------------------------------
// Selectors, bases and the kernel interfaces that hand out descriptors
// ---------------------------------------------------------------------------

constexpr uint16_t kCpuNodeSelector = 0x7b;  // GDT_ENTRY_CPUNODE (entry 15, RPL 3)
constexpr uint16_t kUserCs64 = 0x33;         // __USER_CS
constexpr uint16_t kUserCs32 = 0x23;         // __USER32_CS (compat code; absent without IA-32 emulation)
constexpr unsigned kLdtEntry = 1;            // as in 2006: selector 1*8 | TI | RPL 3 = 0x0f
constexpr unsigned kLdtEntryEntry = 0;       // held on entry to the loop: 0*8 | TI | RPL 3 = 0x07
constexpr int kSysSetThreadArea32 = 243;     // i386 syscall number, reached with int 0x80

inline uint16_t read_ds() { uint16_t v; asm volatile("mov %%ds, %0" : "=r"(v)); return v; }
inline uint16_t read_ss() { uint16_t v; asm volatile("mov %%ss, %0" : "=r"(v)); return v; }
inline uint16_t read_fs() { uint16_t v; asm volatile("mov %%fs, %0" : "=r"(v)); return v; }
inline uint16_t read_gs() { uint16_t v; asm volatile("mov %%gs, %0" : "=r"(v)); return v; }

/// The fs or gs base (`code`: ARCH_GET_FS or ARCH_GET_GS); throws std::runtime_error
/// when arch_prctl fails.
uint64_t get_base(int code);
/// "0x2b": a selector as the section shows it.
std::string hex_selector(uint16_t v);
/// "0x7f12...": an address as the section shows it.
std::string hex_addr(uint64_t v);
/// "SIGSEGV (#GP)": a probe's signal, with #GP for a kernel-raised SIGSEGV.
std::string signal_text(int sig, int si_code);
/// CPUs that clear the base when a null selector is loaded into fs/gs: Intel and
/// others, AMD/Hygon only when CPUID 0x80000021 EAX[6] (NullSelectClearsBase) says so.
bool null_selector_clears_base();

// ---------------------------------------------------------------------------
// The data page (below 4 GiB: descriptor bases are 32-bit)
// ---------------------------------------------------------------------------

/// One page below 4 GiB holding the loops' targets and the descriptors handed to the kernel.
struct DataPage {
  uint8_t* p = nullptr;
  DataPage();   ///< maps the page; throws std::runtime_error when mmap(MAP_32BIT) fails
  ~DataPage();
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
/// pair a 32-bit process saw on x86-64 in the seed (gs=63 gdt=6b). A descriptor that
/// cannot be installed keeps its error; nothing throws.
struct Descriptors {
  DataPage& page;
  InstalledDescriptor ldt, ldt_entry, tls, tls_entry;

  explicit Descriptors(DataPage& pg);
  ~Descriptors();
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

 private:
  bool native_tls = false;

  void install_ldt(InstalledDescriptor& s, unsigned entry, size_t desc_off, size_t base_off);
  std::string tls_path();
  void install_tls(InstalledDescriptor& s, size_t desc_off, size_t base_off, const std::string& no_tls);
};

/// The selectors the table reads and loads: the process's own on entry and the
/// entries kex set up (0 where one could not be).
struct Selectors {
  uint16_t ds = 0, ss = 0, fs = 0, gs = 0;
  uint16_t data = 0;  ///< ds, or ss where ds is null (64-bit processes run with ds = 0)
  uint16_t ldt = 0, ldt_entry = 0, tls = 0, tls_entry = 0;
  uint64_t fs_base = 0, gs_base = 0;  ///< glibc's bases on entry
};

/// The process's selectors and bases, read before anything is set up.
Selectors process_selectors();
/// The selectors of the LDT and GDT entries `desc` set up.
void add_set_up_selectors(Selectors& s, const Descriptors& desc);

// ---------------------------------------------------------------------------
// The case table
// ---------------------------------------------------------------------------

/// A selector the 2006 loop loads each iteration: one block of the seed's table.
struct SelectorBlock {
  SelectorKind kind;   ///< selector_kind in the JSON
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
  SelectorKind kind;   ///< entry_selector_kind in the JSON
  std::string source;  ///< for fault messages
  uint16_t selector = 0;
  uint64_t desc_base = 0;
  std::string unavailable;
};

struct Case {
  std::string name;
  SelectorKind kind = SelectorKind::none;  ///< of the selector loaded
  std::optional<uint16_t> selector;
  std::optional<uint16_t> entry;  ///< 2006/mixed fs and gs cases: the selector held on entry
  SelectorKind entry_kind = SelectorKind::none;
  SegKernelSpec spec;
  std::string skip;
  std::string fault_source, entry_source;
  volatile int32_t* counter = nullptr;           // 2006/mixed: +1 per iteration
  volatile int32_t* restored_counter = nullptr;  // mixed: +1 per iteration
};

/// The blocks of the table: which selector each loads.
std::vector<SelectorBlock> selector_blocks(const SegmentOptions& o, const Selectors& s, const DataPage& page,
                                           const Descriptors& desc);
/// The selectors a tested register holds on entry to a loop.
std::vector<EntryChoice> entry_choices(const Selectors& s, const DataPage& page, const Descriptors& desc);

/// The cases in table order: per selector block the 2006 loop (`<none>`, then fs
/// and gs for each entry selector), then the mixed loop per block and entry
/// selector, then the modern costs (each part as `o` asks).
std::vector<Case> build_cases(const SegmentOptions& o, const std::vector<SelectorBlock>& blocks,
                              const std::vector<EntryChoice>& entries, const DataPage& page, bool clears_base,
                              bool fsgsbase);

/// Why a probe child died, in terms of the kernel's instructions. The child's code
/// is the parent's (fork), so the faulting bytes are read here.
std::string describe_fault(const Case& c, const Built& code, const SandboxOutcome& o);

/// Runs the case's kernel for a few passes in this (child) process and checks that
/// the counters moved as they should and that fs, gs and TLS are as before: "" when
/// they did, else what went wrong.
std::string check_case_here(const Case& c, SegKernelFn fn);

}  // namespace kex::segments_detail
