#include "src/results/emit_gas.hpp"

#include <cstdio>
#include <stdexcept>

#include "generators/disasm_ext.hpp"
#include "src/results/gas_cpu_check.hpp"

namespace kex {

namespace {

/// Instruction lines in the file's syntax: each line is given in both.
struct Lines {
  Syntax syntax;
  std::string text;
  void ins(const std::string& intel, const std::string& att) { text += "\t" + (syntax == Syntax::intel ? intel : att) + "\n"; }
  void raw(const std::string& line) { text += line + "\n"; }
  void comment(const std::string& line) { text += "# " + comment_text(line) + "\n"; }
  void begin_function(const std::string& symbol) {
    raw("\t.p2align 4");
    raw("\t.globl " + symbol);
    raw("\t.type " + symbol + ", @function");
    raw(symbol + ":");
  }
  void end_function(const std::string& symbol) { raw("\t.size " + symbol + ", .-" + symbol); }
};

void require_power_of_two(uint64_t v, const std::string& what) {
  if (v & (v - 1)) throw std::logic_error(what + " " + std::to_string(v) + " is not a power of two");
}

/// The checks that send a call to libc (SourceKernel::region, alignment, fill), as jumps to `libc`.
void fallback_checks(Lines& a, const SourceKernel& k, const std::string& libc) {
  const bool copy = k.op == Op::copy;
  if (!copy) {
    a.ins("cmp sil, " + std::to_string(k.fill), "cmpb $" + std::to_string(k.fill) + ", %sil");
    a.ins("jne " + libc, "jne " + libc);
  }
  if (k.region > 1) {
    require_power_of_two(k.region, k.name + ": region");
    const std::string m = std::to_string(k.region - 1);
    a.ins("test rdx, " + m, "testq $" + m + ", %rdx");
    a.ins("jnz " + libc, "jnz " + libc);
  }
  if (k.alignment > 1) {
    require_power_of_two(k.alignment, k.name + ": alignment");
    const std::string m = std::to_string(k.alignment - 1);
    a.ins("mov eax, edi", "movl %edi, %eax");
    if (copy) a.ins("or eax, esi", "orl %esi, %eax");
    a.ins("test eax, " + m, "testl $" + m + ", %eax");
    a.ins("jnz " + libc, "jnz " + libc);
  }
}

void put(Lines& a, const std::vector<AsmLine>& lines) {
  for (const AsmLine& l : lines)
    if (!l.intel.empty() && l.intel.back() == ':') a.raw(l.intel);
    else a.ins(l.intel, l.att);
}

/// Whether the wrapper must test n, dst, src or c before the code (fallback_checks).
bool has_checks(const SourceKernel& k) { return k.op == Op::clear || k.region > 1 || k.alignment > 1; }

/// Into the code with rax = dst on its return. Code that keeps rax (keeps_rax): rax = dst
/// and a tail jump, so the code's own ret returns to the caller. Other code (a clear's fill
/// pattern lives in rax): a call with dst kept on the stack.
void enter_kernel(Lines& a, const SourceKernel& k) {
  const std::string code = k.symbol + "_kernel";
  if (k.keeps_rax) {
    a.ins("mov rax, rdi", "movq %rdi, %rax");
    a.ins("jmp " + code, "jmp " + code);
    return;
  }
  a.ins("push rdi", "pushq %rdi");
  a.ins("call " + code, "call " + code);
  a.ins("pop rax", "popq %rax");
  a.ins("ret", "ret");
}

/// SYMBOL: endbr64, the CPU check (gas_cpu_check), the checks, then the code
/// (enter_kernel); libc's function for what the code does not promise.
void wrapper(Lines& a, const SourceKernel& k) {
  const std::string libc_fn = k.op == Op::copy ? "memcpy" : "memset";
  const std::string libc = ".L" + k.symbol + "_libc";
  const GasCpuCheck cpu = gas_cpu_check(k.needs, k.symbol, libc);
  if (!cpu.unchecked.empty()) a.comment("not checked here: " + cpu.unchecked + " (call it only where the CPU has them)");
  a.begin_function(k.symbol);
  a.ins("endbr64", "endbr64");
  put(a, cpu.entry);
  const bool checks = has_checks(k);
  if (checks) fallback_checks(a, k, libc);
  enter_kernel(a, k);
  put(a, cpu.probe);
  if (checks || !cpu.probe.empty()) {
    a.raw(libc + ":");
    a.ins("jmp " + libc_fn + "@PLT", "jmp " + libc_fn + "@PLT");
  }
  a.end_function(k.symbol);
  for (const std::string& l : cpu.data) a.raw(l);
}

/// Each row's kernel, in the table's order.
std::vector<const SourceKernel*> row_kernels(const SourceDispatch& d, const std::vector<SourceKernel>& kernels) {
  check_dispatch_kernels(d, kernels);
  std::vector<const SourceKernel*> rows;
  for (const auto& e : d.table.entries)
    for (const auto& x : kernels)
      if (x.name == e.kernel) {
        rows.push_back(&x);
        break;
      }
  return rows;
}

/// Whether every row can be entered from the dispatch itself: libc, or code that keeps rax
/// and needs no check of n, dst, src or c.
bool direct_rows(const std::vector<const SourceKernel*>& rows) {
  for (const SourceKernel* k : rows)
    if (!k->libc && (!k->keeps_rax || has_checks(*k))) return false;
  return true;
}

/// The dispatch: one compare per bounded row (ascending), a tail jump to its target. When
/// every row is direct (direct_rows), the dispatch checks the CPU once for all its rows'
/// features (none there: every size to libc), sets rax = dst and jumps into the code
/// itself; otherwise it jumps to each row's wrapper, which does both.
void dispatch_function(Lines& a, const SourceDispatch& d, const std::vector<SourceKernel>& kernels) {
  const std::string libc_fn = d.op == Op::copy ? "memcpy" : "memset";
  const std::vector<const SourceKernel*> rows = row_kernels(d, kernels);
  const bool direct = direct_rows(rows);
  FeatureSet needs;
  for (const SourceKernel* k : rows) needs = needs | k->needs;
  const std::string libc = ".L" + d.symbol + "_libc";
  const GasCpuCheck cpu = direct ? gas_cpu_check(needs, d.symbol, libc) : GasCpuCheck{};
  a.comment(d.symbol + ": " + libc_fn + " by size, table " + dispatch_text(d.table));
  a.comment(!direct                ? "each row's wrapper calls libc for what its kernel does not handle"
            : cpu.entry.empty() ? "rax = dst, then straight into each row's code (it needs nothing beyond x86-64)"
                                : "one CPU check for every row's code (libc for every size where it fails), rax = dst, "
                                  "then straight into it");
  if (!cpu.unchecked.empty()) a.comment("not checked here: " + cpu.unchecked + " (call it only where the CPU has them)");
  a.begin_function(d.symbol);
  a.ins("endbr64", "endbr64");
  put(a, cpu.entry);
  if (direct) a.ins("mov rax, rdi", "movq %rdi, %rax");
  for (size_t i = 0; i < rows.size(); ++i) {
    const DispatchEntry& e = d.table.entries[i];
    const std::string target = rows[i]->libc ? libc_fn + "@PLT" : rows[i]->symbol + (direct ? "_kernel" : "");
    if (e.max_bytes == kDispatchRest) {
      a.ins("jmp " + target, "jmp " + target);
      break;
    }
    const std::string b = std::to_string(e.max_bytes);
    if (e.max_bytes <= 0x7fffffffu) {
      a.ins("cmp rdx, " + b, "cmpq $" + b + ", %rdx");
    } else {
      a.ins("movabs r11, " + b, "movabsq $" + b + ", %r11");
      a.ins("cmp rdx, r11", "cmpq %r11, %rdx");
    }
    a.ins("jbe " + target, "jbe " + target);
  }
  put(a, cpu.probe);
  if (!cpu.probe.empty()) {
    a.raw(libc + ":");
    a.ins("jmp " + libc_fn + "@PLT", "jmp " + libc_fn + "@PLT");
  }
  a.end_function(d.symbol);
  for (const std::string& l : cpu.data) a.raw(l);
}

/// Loaded object code as kex loaded it: `.byte` lines, one per instruction with its offset
/// and disassembly as a comment (code_lines), so the file assembles to exactly those bytes.
std::string loaded_bytes(const SourceKernel& k, Syntax syntax, const std::vector<std::string>& comment) {
  const std::string symbol = k.symbol + "_kernel";
  std::string s;
  for (const auto& c : comment) s += "# " + c + "\n";
  s += "\t.p2align 6\n\t.globl " + symbol + "\n\t.type " + symbol + ", @function\n" + symbol + ":\n";
  char b[24];
  for (CodeLine& l : code_lines(k, syntax)) {
    if (l.bytes.size() > 1 && l.bytes == std::vector<uint8_t>(l.bytes.size(), 0xcc)) {
      s += "\t.fill " + std::to_string(l.bytes.size()) + ", 1, 0xcc";
      l.bytes.clear();
    } else {
      s += "\t.byte ";
    }
    for (size_t i = 0; i < l.bytes.size(); ++i) {
      std::snprintf(b, sizeof b, "%s0x%02x", i ? ", " : "", l.bytes[i]);
      s += b;
    }
    std::snprintf(b, sizeof b, "\t# %04llx: ", static_cast<unsigned long long>(l.offset));
    s += b + comment_text(l.text) + "\n";
  }
  return s + "\t.size " + symbol + ", .-" + symbol + "\n";
}

}  // namespace

std::string gas_source(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch,
                       Syntax syntax, const std::vector<std::string>& header) {
  Lines a{syntax, ""};
  for (const auto& h : header) a.comment(h);
  a.comment("Each kernel K: K_kernel is its code with kex's ABI (rdi dst, rsi src, rdx n, no return value);");
  a.comment("K is a wrapper with the C library's signature that returns dst and calls libc where the code");
  a.comment("does not promise a result (see each kernel's lines), or on its first call finds (CPUID, XGETBV)");
  a.comment("that the CPU lacks a feature the code needs. endbr64 opens each function (a no-op without CET).");
  a.comment("Into code that leaves rax alone the wrapper jumps with rax = dst (the code's ret returns to the");
  a.comment("caller); other code it calls, keeping dst on the stack.");
  a.raw(syntax == Syntax::intel ? "\t.intel_syntax noprefix" : "\t.att_syntax");
  a.raw("\t.text");
  for (const auto& k : kernels) {
    if (k.libc) continue;
    std::vector<std::string> lines;
    for (const auto& p : k.provenance) lines.push_back(comment_text(p));
    a.raw("");
    if (k.loaded)
      a.text += loaded_bytes(k, syntax, lines);
    else
      a.text += format_asm(disassemble_all(k.code.data(), k.code.size(), syntax), k.code.data(), k.code.size(), syntax,
                           k.symbol + "_kernel", lines);
    wrapper(a, k);
  }
  if (dispatch) {
    a.raw("");
    dispatch_function(a, *dispatch, kernels);
  }
  a.raw("\t.section .note.GNU-stack,\"\",@progbits");
  return a.text;
}

}  // namespace kex
