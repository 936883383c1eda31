#include "src/run/glibc_impls.hpp"

#include <dlfcn.h>

#include <array>
#include <utility>

#include "src/model/kernel_names.hpp"
#include "src/run/outside_plan.hpp"

namespace kex {

namespace {

/// What a variant needs, by the tokens of its name (glibc's list says only whether it is
/// usable): the first token found names it.
std::string unusable_reason(const std::string& symbol) {
  static const std::array<std::pair<const char*, const char*>, 6> needs = {{{"_rtm", "RTM"},
                                                                            {"avx512", "AVX-512"},
                                                                            {"evex", "AVX-512VL and AVX-512BW"},
                                                                            {"avx", "AVX2"},
                                                                            {"ssse3", "SSSE3"},
                                                                            {"erms", "ERMS"}}};
  for (const auto& [token, what] : needs)
    if (symbol.find(token) != std::string::npos) return std::string("needs ") + what + ": not usable on this CPU";
  return "not usable on this CPU (glibc's list says so)";
}

}  // namespace

const GlibcImpl* GlibcImpls::find(const std::string& symbol) const {
  for (const GlibcImpl& g : list)
    if (g.facts.symbol == symbol) return &g;
  return nullptr;
}

std::vector<const GlibcImpl*> GlibcImpls::of(Function function) const {
  std::vector<const GlibcImpl*> out;
  for (const GlibcImpl& g : list)
    if (g.facts.function == function) out.push_back(&g);
  return out;
}

GlibcImpls glibc_impls_from(IfuncListFn list) {
  GlibcImpls out;
  if (!list) {
    out.missing = "glibc's __libc_ifunc_impl_list (GLIBC_PRIVATE) is not in this process's C library: no glibc variants";
    return out;
  }
  for (const Function function : kFunctions) {
    std::array<LibcIfuncImpl, 64> a{};  // generous: some architectures assert max >= their own
    const size_t n = std::min(list(std::string(to_string(function)).c_str(), a.data(), a.size()), a.size());
    for (size_t i = 0; i < n; ++i) {
      // A name kex could not write as a kernel name (not a C identifier) is left out.
      if (!a[i].name || !a[i].fn || !parse_impl_name(impl_name({Source::glibc, a[i].name, 0}))) continue;
      GlibcImpl g;
      g.facts.source = Source::glibc;
      g.facts.function = function;
      g.facts.symbol = a[i].name;
      g.facts.usable = a[i].usable;
      if (!a[i].usable) g.facts.reason = unusable_reason(g.facts.symbol);
      g.fn = reinterpret_cast<const void*>(a[i].fn);
      out.list.push_back(std::move(g));
    }
  }
  return out;
}

const GlibcImpls& glibc_impls() {
  static const GlibcImpls impls =
      glibc_impls_from(reinterpret_cast<IfuncListFn>(dlvsym(RTLD_DEFAULT, "__libc_ifunc_impl_list", "GLIBC_PRIVATE")));
  return impls;
}

std::string ifunc_pick(const GlibcImpls& impls, Function function, const void* resolved) {
  for (const GlibcImpl* g : impls.of(function))
    if (resolved && g->fn == resolved) return g->facts.symbol;
  return "unknown";
}

const void* libc_definition(Function function) {
  static void* const libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  const std::string name(to_string(function));
  const void* own = libc ? dlsym(libc, name.c_str()) : nullptr;
  return own ? own : dlsym(RTLD_DEFAULT, name.c_str());
}

OutsideCode libc_code(Function function) {
  OutsideCode c;
  c.facts.source = Source::libc;
  c.facts.function = function;
  c.facts.symbol = std::string(to_string(function));
  c.address = libc_definition(function);
  if (!c.address) {
    c.facts.usable = false;
    c.facts.reason = "this process's C library has no " + c.facts.symbol;
  }
  return c;
}

std::string ifunc_pick(Function function) { return ifunc_pick(glibc_impls(), function, libc_definition(function)); }

IfuncRecord ifunc_record() {
  IfuncRecord r;
  r.memcpy_impl = ifunc_pick(Function::memcpy);
  r.memmove_impl = ifunc_pick(Function::memmove);
  r.memset_impl = ifunc_pick(Function::memset);
  if (!glibc_impls().missing.empty()) r.missing = glibc_impls().missing;
  return r;
}

}  // namespace kex
