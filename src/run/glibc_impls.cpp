#include "src/run/glibc_impls.hpp"

#include <dlfcn.h>

#include <array>
#include <utility>

#include "src/model/kernel_names.hpp"

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

std::vector<const GlibcImpl*> GlibcImpls::of(const std::string& function) const {
  std::vector<const GlibcImpl*> out;
  for (const GlibcImpl& g : list)
    if (g.facts.function == function) out.push_back(&g);
  return out;
}

const std::vector<std::string>& glibc_functions() {
  static const std::vector<std::string> f = {"memcpy", "memmove", "memset"};
  return f;
}

GlibcImpls glibc_impls_from(IfuncListFn list) {
  GlibcImpls out;
  if (!list) {
    out.missing = "glibc's __libc_ifunc_impl_list (GLIBC_PRIVATE) is not in this process's C library: no glibc variants";
    return out;
  }
  for (const std::string& function : glibc_functions()) {
    std::array<LibcIfuncImpl, 64> a{};  // generous: some architectures assert max >= their own
    const size_t n = std::min(list(function.c_str(), a.data(), a.size()), a.size());
    for (size_t i = 0; i < n; ++i) {
      // A name kex could not write as a kernel name (not a C identifier) is left out.
      if (!a[i].name || !a[i].fn || !parse_impl_name(impl_name({ImplSource::glibc, a[i].name, 0}))) continue;
      GlibcImpl g;
      g.facts.source = ImplSource::glibc;
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

std::string ifunc_pick(const GlibcImpls& impls, const std::string& function, const void* resolved) {
  for (const GlibcImpl* g : impls.of(function))
    if (resolved && g->fn == resolved) return g->facts.symbol;
  return "unknown";
}

namespace {

/// libc's own definition of `function`, its ifunc resolved (dlsym runs the resolver): not
/// an interposer's, which is what RTLD_DEFAULT finds under a sanitizer's interceptors or
/// an LD_PRELOAD library. RTLD_DEFAULT's when libc.so.6 is not loaded by that name.
const void* libc_definition(const std::string& function) {
  static void* const libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  const void* own = libc ? dlsym(libc, function.c_str()) : nullptr;
  return own ? own : dlsym(RTLD_DEFAULT, function.c_str());
}

}  // namespace

std::string ifunc_pick(const std::string& function) {
  return ifunc_pick(glibc_impls(), function, libc_definition(function));
}

IfuncRecord ifunc_record() {
  IfuncRecord r;
  r.memcpy_impl = ifunc_pick("memcpy");
  r.memmove_impl = ifunc_pick("memmove");
  r.memset_impl = ifunc_pick("memset");
  if (!glibc_impls().missing.empty()) r.missing = glibc_impls().missing;
  return r;
}

}  // namespace kex
