// glibc's own implementations of memcpy, memmove and memset, as its
// __libc_ifunc_impl_list (version GLIBC_PRIVATE) lists them at run time: every
// variant, usable on this CPU or not, and which one ifunc picked for this process
// (docs/code-tour.md, "adding an outside implementation kind").
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/plan.hpp"

namespace kex {

/// One entry of glibc's list, as glibc declares it (include/ifunc-impl-list.h).
struct LibcIfuncImpl {
  const char* name;
  void (*fn)(void);
  bool usable;
};
/// __libc_ifunc_impl_list's type: fills up to `max` entries for `function`, returns how many there are.
using IfuncListFn = size_t (*)(const char* function, LibcIfuncImpl* array, size_t max);

/// One variant: its facts (source glibc, function, symbol, usable and why not) and its
/// address in this process (valid in forked children too).
struct GlibcImpl {
  ImplFacts facts;
  const void* fn = nullptr;
};

/// The variants of memcpy, then memmove, then memset, in glibc's order. `missing` says
/// in one line why there are none ("" when the list was read).
struct GlibcImpls {
  std::vector<GlibcImpl> list;
  std::string missing;
  /// The variant called `symbol`, or null.
  const GlibcImpl* find(const std::string& symbol) const;
  /// The variants of `function`.
  std::vector<const GlibcImpl*> of(Function function) const;
};

/// The variants `list` gives (null: missing = "glibc's __libc_ifunc_impl_list is not
/// available ..."). An unusable variant's reason names what its symbol suggests it
/// needs ("needs RTM: not usable on this CPU").
GlibcImpls glibc_impls_from(IfuncListFn list);

/// This process's C library's variants, read once: dlvsym(RTLD_DEFAULT,
/// "__libc_ifunc_impl_list", "GLIBC_PRIVATE"); empty with `missing` set when there is no
/// such symbol (musl, another libc, a glibc without it).
const GlibcImpls& glibc_impls();

/// The symbol of the variant whose address is `resolved` among `function`'s, or "unknown".
std::string ifunc_pick(const GlibcImpls& impls, Function function, const void* resolved);

/// The variant this process's `function` resolved to (dlsym(RTLD_DEFAULT, function)
/// after ifunc ran), or "unknown".
std::string ifunc_pick(Function function);

/// libc's own definition of `function`, its ifunc resolved (dlsym runs the resolver): not an
/// interposer's, which is what RTLD_DEFAULT finds under a sanitizer's interceptors or an
/// LD_PRELOAD library; RTLD_DEFAULT's when libc.so.6 is not loaded by that name. Null when
/// there is none.
const void* libc_definition(Function function);

struct OutsideCode;
/// The code the baseline "memcpy" or "memset" enters (the source libc): libc_definition,
/// its symbol the function's name; unusable, saying why, when the process has none.
OutsideCode libc_code(Function function);

/// This process's picks for memcpy, memmove and memset (the results' context.ifunc,
/// kex info), with why there is no list when there is none.
IfuncRecord ifunc_record();

}  // namespace kex
