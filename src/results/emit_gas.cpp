#include "src/results/emit_gas.hpp"

#include <cstdio>
#include <functional>
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
  /// SYMBOL's opening lines, 16-byte aligned unless the caller placed it (`aligned` false).
  void begin_function(const std::string& symbol, const std::string& type = "@function", bool aligned = true) {
    if (aligned) raw("\t.p2align 4");
    raw("\t.globl " + symbol);
    raw("\t.type " + symbol + ", " + type);
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

/// How a wrapper enters its code (enter_kernel).
enum class Enter {
  fall,  ///< rax = dst, then the code itself follows (nop-padded to its 64-byte alignment)
  jump,  ///< rax = dst and a tail jump (the code lies elsewhere: a dispatch falls into it)
  call,  ///< a call with dst kept on the stack (code that does not keep rax)
};

/// Into the code with rax = dst on its return. Code that keeps rax (keeps_rax): rax = dst,
/// then the code, whose own ret returns to the caller: falling into it (a taken jump per call
/// measured 1.03-1.08x the JIT kernel's time on Memcpy_Fleet, falling in 0.98-1.02x:
/// benchmarks/results/2026-12-06-emit-gap.md) or jumping to it. Other code: a call frame.
void enter_kernel(Lines& a, const SourceKernel& k, Enter how) {
  const std::string code = k.symbol + "_kernel";
  if (how != Enter::call) {
    a.ins("mov rax, rdi", "movq %rdi, %rax");
    if (how == Enter::jump) a.ins("jmp " + code, "jmp " + code);
    return;
  }
  a.ins("push rdi", "pushq %rdi");
  a.ins("call " + code, "call " + code);
  a.ins("pop rax", "popq %rax");
  a.ins("ret", "ret");
}

/// The label of SYMBOL_nocheck that the resolver and the dispatch reach: a local one, so an
/// address taken in a shared object needs no relocation against a preemptible symbol.
std::string nocheck_label(const std::string& symbol) { return ".L" + symbol + "_nocheck"; }

/// What a symbol's cold part needs (cold_part): its CPU check and its jump to libc.
struct Checked {
  std::string symbol, libc, libc_fn;
  GasCpuCheck cpu;
  bool to_libc = false;  ///< the entry itself may jump to libc (n, dst, src or c)
};

/// The bytes of `endbr64; mov rax, rdi`: a wrapper that falls into its code with nothing else.
constexpr int kFallEntryBytes = 4 + 3;

/// SYMBOL_nocheck, the entry that does not check the CPU, 16-byte aligned (64 when the code
/// follows it): endbr64, `body`; SYMBOL at the same address when there is no check. With
/// `entry_bytes` (the length of endbr64 and `body`, when known) the entry starts that many
/// bytes before a 64-byte boundary, int3 before it, so the code that follows is aligned
/// without nops run on every call (up to 57 bytes of them measured 1.14x the JIT kernel's time
/// on Memcpy_3's 2.7 ns calls: benchmarks/results/2026-12-06-tune-streams.md, pass 7).
void checked_entry(Lines& a, const Checked& c, bool falls, const std::function<void()>& body, int entry_bytes = 0) {
  const bool resolve = !c.cpu.resolver.empty();
  if (!resolve) a.raw("\t.globl " + c.symbol), a.raw("\t.type " + c.symbol + ", @function");
  const bool placed = falls && entry_bytes > 0;
  if (falls) a.raw("\t.p2align 6");
  if (placed) a.raw("\t.skip " + std::to_string(64 - entry_bytes % 64) + ", 0xcc");
  a.begin_function(c.symbol + "_nocheck", "@function", !placed);
  if (!resolve) a.raw(c.symbol + ":");
  a.raw(nocheck_label(c.symbol) + ":");
  a.ins("endbr64", "endbr64");
  body();
  a.end_function(c.symbol + "_nocheck");
  if (!resolve) a.end_function(c.symbol);
}

/// In .text.unlikely (off the code's pages, and out of what loading SYMBOL_nocheck as asm/
/// brings when nothing jumps to libc): SYMBOL as an indirect function whose resolver
/// (gas_cpu_check) picks SYMBOL_nocheck or libc, and the jump to libc when anything needs it.
void cold_part(Lines& a, const Checked& c) {
  const bool resolve = !c.cpu.resolver.empty();
  if (!resolve && !c.to_libc) return;
  a.raw("\t.pushsection .text.unlikely,\"ax\",@progbits");
  if (resolve) {
    a.begin_function(c.symbol, "%gnu_indirect_function");
    a.ins("endbr64", "endbr64");
    put(a, c.cpu.resolver);
    a.end_function(c.symbol);
  }
  a.raw(c.libc + ":");
  a.ins("jmp " + c.libc_fn + "@PLT", "jmp " + c.libc_fn + "@PLT");
  a.raw("\t.popsection");
}

/// SYMBOL_nocheck (checked_entry): the checks of n, dst, src and c, then the code
/// (enter_kernel); what its cold part needs (libc's function for what the code does not
/// promise or where the CPU lacks a feature).
Checked wrapper(Lines& a, const SourceKernel& k, Enter how) {
  Checked c{k.symbol, ".L" + k.symbol + "_libc", k.op == Op::copy ? "memcpy" : "memset", {}, has_checks(k)};
  c.cpu = gas_cpu_check(k.needs, k.symbol, nocheck_label(k.symbol), c.libc);
  if (!c.cpu.unchecked.empty()) a.comment("not checked here: " + c.cpu.unchecked + " (call it only where the CPU has them)");
  checked_entry(
      a, c, how == Enter::fall,
      [&] {
        if (c.to_libc) fallback_checks(a, k, c.libc);
        enter_kernel(a, k, how);
      },
      c.to_libc ? 0 : kFallEntryBytes);
  return c;
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

/// The row whose code follows the dispatch's entry (its last, when every row is direct and
/// the last is kex's code), or null: the dispatch then lies after every kernel.
const SourceKernel* falls_into(const std::optional<SourceDispatch>& d, const std::vector<SourceKernel>& kernels) {
  if (!d) return nullptr;
  const std::vector<const SourceKernel*> rows = row_kernels(*d, kernels);
  return direct_rows(rows) && !rows.back()->libc ? rows.back() : nullptr;
}

/// The dispatch (checked_entry; one CPU check for every row's code, libc for every size
/// where it fails): one compare per bounded row (ascending), a tail jump to its target, the
/// last row's code following it when `falls` (falls_into). When every row is direct
/// (direct_rows), it sets rax = dst and jumps into the code itself; otherwise to each row's
/// SYMBOL_nocheck, which checks n, dst, src or c and sets rax.
Checked dispatch_function(Lines& a, const SourceDispatch& d, const std::vector<SourceKernel>& kernels, bool falls) {
  const std::vector<const SourceKernel*> rows = row_kernels(d, kernels);
  const bool direct = direct_rows(rows);
  FeatureSet needs;
  for (const SourceKernel* k : rows) needs = needs | k->needs;
  Checked c{d.symbol, ".L" + d.symbol + "_libc", d.op == Op::copy ? "memcpy" : "memset", {}, false};
  c.cpu = gas_cpu_check(needs, d.symbol, nocheck_label(d.symbol), c.libc);
  a.comment(d.symbol + ": " + c.libc_fn + " by size, table " + dispatch_text(d.table));
  a.comment(std::string(direct ? "rax = dst, then straight into each row's code" : "each row's entry that checks n, dst, src or c") +
            (c.cpu.resolver.empty() ? " (it needs nothing beyond x86-64)"
                                    : "; one CPU check for every row's code when the symbol is bound (libc for every size where it fails)"));
  if (!c.cpu.unchecked.empty()) a.comment("not checked here: " + c.cpu.unchecked + " (call it only where the CPU has them)");
  const int entry_bytes = direct && rows.size() == 1 ? kFallEntryBytes : 0;  // no compare: the one row follows
  checked_entry(a, c, falls, [&] {
    if (direct) a.ins("mov rax, rdi", "movq %rdi, %rax");
    for (size_t i = 0; i < rows.size(); ++i) {
      const DispatchEntry& e = d.table.entries[i];
      const std::string target = rows[i]->libc ? c.libc_fn + "@PLT" : rows[i]->symbol + (direct ? "_kernel" : "_nocheck");
      if (e.max_bytes == kDispatchRest) {
        if (!falls) a.ins("jmp " + target, "jmp " + target);
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
  }, entry_bytes);
  return c;
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

/// One kernel's code with its entries: a wrapper that falls into it (code that keeps rax), or
/// the dispatch falling into it (`into`: its last row) and then a wrapper that jumps to it, or
/// the code and then a wrapper that calls it; each entry's cold part after the code.
void kernel_and_entries(Lines& a, const SourceKernel& k, const SourceDispatch* into, const std::vector<SourceKernel>& kernels) {
  std::vector<std::string> lines;
  for (const auto& p : k.provenance) lines.push_back(comment_text(p));
  a.raw("");
  std::vector<Checked> cold;
  if (into) cold.push_back(dispatch_function(a, *into, kernels, true));
  else if (k.keeps_rax) cold.push_back(wrapper(a, k, Enter::fall));
  if (k.loaded)
    a.text += loaded_bytes(k, a.syntax, lines);
  else
    a.text += format_asm(disassemble_all(k.code.data(), k.code.size(), a.syntax), k.code.data(), k.code.size(), a.syntax,
                         k.symbol + "_kernel", lines);
  if (into || !k.keeps_rax) cold.push_back(wrapper(a, k, into ? Enter::jump : Enter::call));
  for (const Checked& c : cold) cold_part(a, c);
}

}  // namespace

std::string gas_source(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch,
                       Syntax syntax, const std::vector<std::string>& header) {
  Lines a{syntax, ""};
  for (const auto& h : header) a.comment(h);
  a.comment("Each kernel K: K_kernel is its code with kex's ABI (rdi dst, rsi src, rdx n, no return value);");
  a.comment("K_nocheck is a wrapper with the C library's signature that returns dst and calls libc where the");
  a.comment("code does not promise a result (see each kernel's lines). K is K_nocheck when the code needs");
  a.comment("nothing beyond x86-64; else a GNU indirect function whose resolver asks CPUID and XGETBV once,");
  a.comment("when K is bound, and binds K to K_nocheck or to libc (call K_nocheck only where the CPU has what");
  a.comment("the code needs). endbr64 opens each function (a no-op without CET). Code that leaves rax");
  a.comment("alone follows its wrapper, which sets rax = dst and falls into it (the code's ret returns to");
  a.comment("the caller); other code the wrapper calls, keeping dst on the stack.");
  a.raw(syntax == Syntax::intel ? "\t.intel_syntax noprefix" : "\t.att_syntax");
  a.raw("\t.text");
  const SourceKernel* into = falls_into(dispatch, kernels);
  for (const auto& k : kernels)
    if (!k.libc) kernel_and_entries(a, k, &k == into ? &*dispatch : nullptr, kernels);
  if (dispatch && !into) {
    a.raw("");
    cold_part(a, dispatch_function(a, *dispatch, kernels, false));
  }
  a.raw("\t.section .note.GNU-stack,\"\",@progbits");
  return a.text;
}

}  // namespace kex
