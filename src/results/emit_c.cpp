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

/// The array: one instruction a line with its offset and disassembly (code_lines: int3
/// padding one line, bytes Capstone did not decode 16 a line).
std::string code_array(const SourceKernel& k, Syntax syntax) {
  std::string s = "__attribute__((section(\".text.kex\"), aligned(64), used))\nstatic const unsigned char " + k.symbol +
                  "_code[" + std::to_string(k.code.size()) + "] = {\n";
  char off[16];
  for (const CodeLine& l : code_lines(k, syntax)) {
    std::snprintf(off, sizeof off, "%04llx", static_cast<unsigned long long>(l.offset));
    s += "\t" + byte_list(l.bytes.data(), l.bytes.size()) + " /* " + off + ": " + comment_text(l.text) + " */\n";
  }
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

/// GCC's and Clang's __builtin_cpu_supports name of a feature ("" when it has none).
std::string builtin_cpu_name(Feature f) {
  const std::string n(feature_name(f));
  if (n == "sse4_1" || n == "sse4_2") return "sse4." + n.substr(5);
  for (const char* known : {"mmx", "sse", "sse2", "sse3", "ssse3", "avx", "avx2", "avx512f", "avx512dq", "avx512cd",
                            "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi", "bmi", "bmi2", "popcnt"})
    if (n == known) return n;
  return "";
}

/// The lines that decide once whether this CPU has the features of k's code (kept in
/// SYMBOL_usable, read and written with relaxed atomics: any thread may be first) and
/// send every call to libc when it has not; "" when the code needs nothing beyond
/// x86-64. A feature GCC cannot ask about is named in a comment: the caller checks it.
std::string cpu_check(const SourceKernel& k, const std::string& call_libc) {
  std::string test, unchecked;
  for (const FeatureRow& row : feature_table()) {
    if (!k.needs.has(row.feature)) continue;
    const std::string b = builtin_cpu_name(row.feature);
    if (b.empty()) unchecked += (unchecked.empty() ? "" : ", ") + std::string(row.name);
    else test += (test.empty() ? "" : " && ") + std::string("__builtin_cpu_supports(\"") + b + "\")";
  }
  std::string s = unchecked.empty() ? "" : "\t/* not checked here: " + unchecked + " (call it only where the CPU has them) */\n";
  if (test.empty()) return s;
  const std::string u = k.symbol + "_usable";
  return s + "\tint usable = __atomic_load_n(&" + u + ", __ATOMIC_RELAXED);\n" +
         "\tif (usable < 0) {  /* the first call: does this CPU have what the code needs? */\n" +
         "\t\t__builtin_cpu_init();\n\t\tusable = (" + test + ") ? 1 : 0;\n" +
         "\t\t__atomic_store_n(&" + u + ", usable, __ATOMIC_RELAXED);\n\t}\n" +
         "\tif (!usable) return " + call_libc + ";\n";
}

std::string wrapper(const SourceKernel& k) {
  const bool copy = k.op == Op::copy;
  const std::string call_libc = copy ? "memcpy(dst, src, n)" : "memset(dst, c, n)";
  const std::string check = cpu_check(k, call_libc);
  std::string s;
  if (check.find("_usable") != std::string::npos) s += "static int " + k.symbol + "_usable = -1;\n";
  s += signature(k.op, k.symbol) + ";\n" + signature(k.op, k.symbol) + " {\n" + check;
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
  top.push_back("code does not promise a result (see each kernel's lines), or on its first call finds that");
  top.push_back("the CPU lacks a feature the code needs (__builtin_cpu_supports).");
  std::string s = block_comment(top) + "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n";
  for (const auto& k : kernels) {
    if (k.libc) continue;
    s += "\n" + block_comment(k.provenance) + code_array(k, syntax) + wrapper(k);
  }
  if (dispatch) s += "\n" + dispatch_function(*dispatch, kernels);
  return s;
}

}  // namespace kex
