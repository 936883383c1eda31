#include "src/run/explain_outside.hpp"

#include <algorithm>

#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/source.hpp"
#include "src/run/code_extent.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/mca.hpp"
#include "src/run/object_code.hpp"
#include "src/run/plans.hpp"
#include "src/run/shared_objects.hpp"

namespace kex {

namespace {

constexpr size_t kCodeCap = 16384;  // bytes of a function without a size read at most (as kex show)

/// A glibc variant's code up to its first ret, or why there is none.
std::vector<uint8_t> glibc_bytes(const std::string& symbol, std::string* why) {
  const GlibcImpls& impls = glibc_impls();
  const GlibcImpl* impl = impls.missing.empty() ? impls.find(symbol) : nullptr;
  if (!impl) {
    *why = impls.missing.empty() ? "glibc lists no variant " + symbol : impls.missing;
    return {};
  }
  return function_code(impl->fn, kCodeCap).bytes;
}

/// Loaded object code from its symbol's entry up to its first ret.
std::vector<uint8_t> object_bytes(const ImplFacts& f) {
  const ObjectCode o = load_object_symbol(f.path, f.symbol);
  std::vector<uint8_t> code(o.bytes.begin() + std::ptrdiff_t(std::min(o.entry, o.bytes.size())), o.bytes.end());
  const size_t end = end_at_first_ret(disassemble(code.data(), code.size()), code.size());
  if (end > 0) code.resize(end);
  return code;
}

/// The code of the competitor `r` is a point of, up to its first ret; empty with `why`
/// when kex has no bytes of it to hand llvm-mca.
std::vector<uint8_t> outside_bytes(const Result& r, std::string* why) {
  if (r.spec) {
    *why = "no marked loop: a rep string instruction is its own loop";
    return {};
  }
  if (r.preset) {
    *why = "a preset's loop is not marked for llvm-mca (kex show " + r.point.kernel + " --format s prints its code)";
    return {};
  }
  if (r.libc) {
    const std::string pick = ifunc_pick(r.libc->function);
    if (pick != "unknown") return glibc_bytes(pick, why);
    *why = "this C library's " + std::string(to_string(r.libc->function)) + " is not one of glibc's listed variants";
    return {};
  }
  if (!r.impl) return {};
  const SourceRow& row = source_row(r.impl->source);
  try {
    if (row.reach == Reach::bytes) return object_bytes(*r.impl);
    if (row.loaded) {
      SharedObjects objects;  // its own: the bytes are read in a child, nothing is kept
      return objects.code(r.impl->path, r.impl->symbol, kCodeCap).bytes;
    }
  } catch (const InputError& e) {  // the file changed since the race
    *why = e.what();
    return {};
  }
  return glibc_bytes(r.impl->symbol, why);
}

}  // namespace

std::vector<ExplainTarget> outside_targets(const Config& space) {
  Config c = space;
  c.grids.clear();
  std::vector<ExplainTarget> out;
  LoadedCode loaded;  // the targets' names only: the race loads the code again in its own run
  for (const KernelPlan& p : config_plans(c, loaded).plans) {
    if (p.kind == KernelKind::generated ||
        std::any_of(out.begin(), out.end(), [&](const ExplainTarget& t) { return t.outside == p.key; }))
      continue;
    ExplainTarget t;
    t.outside = p.key;
    t.op = p.op;
    out.push_back(std::move(t));
  }
  return out;
}

ExplainCore outside_core(const RunDoc& run, const ExplainTarget& t, const Machine& m) {
  ExplainCore c;
  c.kernel = t.outside;
  const auto r = std::find_if(run.results.begin(), run.results.end(),
                              [&](const Result& x) { return x.point.kernel == t.outside; });
  if (r == run.results.end()) {
    c.missing = "not in this run";
    return c;
  }
  const std::vector<uint8_t> code = outside_bytes(*r, &c.missing);
  if (code.empty()) {
    if (c.missing.empty()) c.missing = "kex has none of its bytes";
    return c;
  }
  const McaPrediction p = predict_code(code, kernel_symbol(t.outside), m.vendor, m.family, m.model);
  c.mcpu = p.mcpu;
  c.missing = p.why;
  c.predicted_cycles = p.summary.cycles_per_iteration();
  c.block_rthroughput = p.summary.block_rthroughput;
  c.note = "its " + std::to_string(code.size()) + " bytes up to the first ret as one block (every path at once, "
           "not a loop iteration)" + (p.note.empty() ? "" : "; " + p.note);
  return c;
}

}  // namespace kex
