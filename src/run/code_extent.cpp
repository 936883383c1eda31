// A function's extent from its address: the executable segment it lies in, then its
// first ret no earlier branch jumps past (src/run/code_extent.hpp).
#include "src/run/code_extent.hpp"

#include <link.h>

#include <algorithm>
#include <cstring>

namespace kex {

namespace {

struct SegmentSearch {
  uintptr_t address = 0;
  size_t bytes = 0;
};

int find_segment(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<SegmentSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    if (s->address >= begin && s->address < end) {
      s->bytes = end - s->address;
      return 1;
    }
  }
  return 0;
}

}  // namespace

size_t executable_bytes_from(const void* p) {
  SegmentSearch s{reinterpret_cast<uintptr_t>(p), 0};
  dl_iterate_phdr(find_segment, &s);
  return s.bytes;
}

size_t end_at_first_ret(const std::vector<Insn>& insns, size_t limit) {
  uint64_t furthest = 0;  // the furthest forward target seen so far
  for (const Insn& i : insns) {
    if (i.mnemonic.rfind("ret", 0) == 0 && furthest <= i.offset) return i.offset + i.bytes.size();
    if (i.target && *i.target > i.offset && *i.target < limit) furthest = std::max(furthest, *i.target);
  }
  return 0;
}

FunctionCode function_code(const void* fn, size_t cap) {
  const size_t readable = std::min(cap, executable_bytes_from(fn));
  FunctionCode f;
  if (readable == 0) {
    f.how = "its address lies in no executable segment: nothing read";
    return f;
  }
  const auto* p = static_cast<const uint8_t*>(fn);
  const size_t end = end_at_first_ret(disassemble(p, readable), readable);
  const size_t n = end ? end : readable;
  f.bytes.assign(p, p + n);
  f.how =
      end ? "to its first ret no earlier branch jumps past: " + std::to_string(n) + " bytes"
          : "no ret that no earlier branch jumps past within " + std::to_string(readable) + " bytes: cut there";
  return f;
}

}  // namespace kex
