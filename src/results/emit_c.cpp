#include "src/results/emit_c.hpp"

#include <cstdio>
#include <stdexcept>

#include "generators/disasm_ext.hpp"

namespace kex {

namespace {

std::string block_comment(const std::vector<std::string>& lines, const std::string& indent = "") {
  std::string s = indent + "/*\n";
  for (const auto& l : lines) s += indent + " * " + comment_text(l) + "\n";
  return s + indent + " */\n";
}

std::string byte_list(const uint8_t* p, size_t n) {
  std::string s;
  char b[8];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "0x%02x,", p[i]);
    s += (i ? " " : "") + std::string(b);
  }
  return s;
}

/// The array: one instruction a line with its offset and disassembly; bytes Capstone
/// did not decode 16 a line.
std::string code_array(const SourceKernel& k, Syntax syntax) {
  std::string s = "__attribute__((section(\".text.kex\"), aligned(64), used))\nstatic const unsigned char " + k.symbol +
                  "_code[" + std::to_string(k.code.size()) + "] = {\n";
  size_t pos = 0;
  char off[16];
  for (const Insn& i : disassemble_all(k.code.data(), k.code.size(), syntax)) {
    std::snprintf(off, sizeof off, "%04llx", static_cast<unsigned long long>(i.offset));
    s += "\t" + byte_list(i.bytes.data(), i.bytes.size()) + " /* " + off + ": " +
         comment_text(i.mnemonic + (i.operands.empty() ? "" : " " + i.operands)) + " */\n";
    pos = i.offset + i.bytes.size();
  }
  for (; pos < k.code.size(); pos += 16)
    s += "\t" + byte_list(k.code.data() + pos, std::min<size_t>(16, k.code.size() - pos)) + " /* not decoded */\n";
  return s + "};\n";
}

std::string signature(Op op, const std::string& symbol) {
  return "void *" + symbol + (op == Op::copy ? "(void *dst, const void *src, size_t n)" : "(void *dst, int c, size_t n)");
}

/// The condition under which the wrapper calls libc instead of the code ("" = never).
std::string fallback_condition(const SourceKernel& k) {
  std::vector<std::string> c;
  if (k.op == Op::clear) c.push_back("(unsigned char)c != " + std::to_string(k.fill) + "u");
  if (k.region > 1) c.push_back("n % " + std::to_string(k.region) + "u != 0");
  if (k.alignment > 1)
    c.push_back(std::string(k.op == Op::copy ? "((uintptr_t)dst | (uintptr_t)src)" : "(uintptr_t)dst") + " % " +
                std::to_string(k.alignment) + "u != 0");
  std::string s;
  for (const auto& x : c) s += (s.empty() ? "" : " || ") + x;
  return s;
}

std::string wrapper(const SourceKernel& k) {
  const bool copy = k.op == Op::copy;
  const std::string call_libc = copy ? "memcpy(dst, src, n)" : "memset(dst, c, n)";
  std::string s = signature(k.op, k.symbol) + ";\n" + signature(k.op, k.symbol) + " {\n";
  if (const std::string cond = fallback_condition(k); !cond.empty()) s += "\tif (" + cond + ") return " + call_libc + ";\n";
  s += "\t((void (*)(void *, const void *, size_t))(uintptr_t)" + k.symbol + "_code)(dst, " +
       (copy ? "src" : "NULL") + ", n);\n";
  return s + "\treturn dst;\n}\n";
}

std::string dispatch_function(const SourceDispatch& d, const std::vector<SourceKernel>& kernels) {
  std::string s = block_comment({d.symbol + ": " + std::string(d.op == Op::copy ? "memcpy" : "memset") +
                                     " by size, table " + dispatch_text(d.table),
                                 "each row's wrapper calls libc for what its kernel does not handle"});
  s += signature(d.op, d.symbol) + ";\n" + signature(d.op, d.symbol) + " {\n";
  const std::string args = d.op == Op::copy ? "(dst, src, n)" : "(dst, c, n)";
  check_dispatch_kernels(d, kernels);
  for (const auto& e : d.table.entries) {
    const SourceKernel* k = nullptr;
    for (const auto& x : kernels)
      if (x.name == e.kernel) k = &x;
    const std::string call = (k->libc ? (d.op == Op::copy ? "memcpy" : "memset") : k->symbol) + args;
    if (e.max_bytes == kDispatchRest) {
      s += "\treturn " + call + ";\n";
      break;
    }
    s += "\tif (n <= " + std::to_string(e.max_bytes) + "ull) return " + call + ";\n";
  }
  return s + "}\n";
}

}  // namespace

std::string c_source(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch,
                     Syntax syntax, const std::vector<std::string>& header) {
  std::vector<std::string> top = header;
  top.push_back("Each kernel K: K_code is its machine code with kex's ABI (rdi dst, rsi src, rdx n, no return");
  top.push_back("value); K is a wrapper with the C library's signature that returns dst and calls libc where the");
  top.push_back("code does not promise a result (see each kernel's lines).");
  std::string s = block_comment(top) + "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n";
  for (const auto& k : kernels) {
    if (k.libc) continue;
    s += "\n" + block_comment(k.provenance) + code_array(k, syntax) + wrapper(k);
  }
  if (dispatch) s += "\n" + dispatch_function(*dispatch, kernels);
  return s;
}

}  // namespace kex
