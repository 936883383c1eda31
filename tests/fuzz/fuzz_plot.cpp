// libFuzzer target: the plot writer on runs whose free text comes from the fuzzer:
// host names, CPU models, --label values, kernel names (also ones the results reader
// refuses: the writer must hold on its own), printed preset names and segment case
// names (tests/fuzz/run.sh). The invariant: no byte of that text reaches gnuplot's
// command language, checked on every script (tests/support/gnuplot_check.hpp), and
// no data file gets a control byte that could forge a row.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "src/results/plot.hpp"
#include "tests/support/gnuplot_check.hpp"

namespace {

kex::Repetition rep(double ticks) {
  kex::Repetition r;
  r.calls_per_sample = 1;
  r.per_call.n = 3;
  r.per_call.min = ticks * 0.9;
  r.per_call.p10 = ticks * 0.95;
  r.per_call.median = ticks;
  r.per_call.p90 = ticks * 1.1;
  r.per_call.max = ticks * 1.2;
  r.stop_reason = "precision";
  r.seconds = 0.01;
  return r;
}

kex::Result entry(const std::string& kernel, kex::KernelKind kind, kex::Op op, uint64_t size, double ticks) {
  kex::Result r;
  r.point.kernel = kernel;
  r.point.at.size = size;
  r.kind = kind;
  r.op = op;
  r.tsc_hz = 2e9;
  r.reps.push_back(rep(ticks));
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<kex::RunDoc> runs(in.ConsumeIntegralInRange<int>(1, 3));
  kex::PlotOptions o;
  o.render = false;
  for (auto& run : runs) {
    run.context.host_name = in.ConsumeRandomLengthString(64);
    run.context.machine.cpu_model = in.ConsumeRandomLengthString(64);
    run.context.machine.l2_bytes = 1 << 20;
    if (in.ConsumeBool()) o.labels.push_back(in.ConsumeRandomLengthString(32));
    for (uint64_t s : {uint64_t(4096), uint64_t(65536)}) {
      const std::string suffix = in.ConsumeRandomLengthString(24);
      kex::Result g = entry("copy/sse" + suffix, kex::KernelKind::generated, kex::Op::copy, s, 100);
      g.spec = kex::parse_spec_name("copy/sse");
      if (in.ConsumeBool()) g.point.at.layout.distance = in.ConsumeIntegral<int32_t>();
      run.results.push_back(g);
      run.results.push_back(entry("memcpy", kex::KernelKind::baseline, kex::Op::copy, s, 90));
    }
    kex::Result p = entry("fastc/" + in.ConsumeRandomLengthString(16), kex::KernelKind::preset, kex::Op::clear, 4096, 800);
    kex::PresetFacts f;
    f.id = p.point.kernel;
    f.printed = in.ConsumeRandomLengthString(32);
    p.preset = f;
    run.results.push_back(p);
    kex::SegmentCase sc;
    sc.name = in.ConsumeRandomLengthString(32);
    sc.ns_per_iteration = 1.5;
    run.context.segments = kex::SegmentSection{};
    run.context.segments->cases.push_back(sc);
  }
  if (!o.labels.empty() && o.labels.size() != runs.size()) o.labels.clear();
  if (in.ConsumeBool()) o.ratio = runs.size() > 1;
  std::vector<kex::PlotFigure> figures;
  try {
    figures = kex::plot_figures(runs, o);
  } catch (const kex::InputError&) {
    return 0;
  }
  for (const auto& f : figures) {
    if (std::string why = gpcheck::script_problem(f.gp); !why.empty()) {
      std::fprintf(stderr, "%s.gp: %s\n", f.base.c_str(), why.c_str());
      std::abort();
    }
    if (std::string why = gpcheck::data_problem(f.dat); !why.empty()) {
      std::fprintf(stderr, "%s.dat: %s\n", f.base.c_str(), why.c_str());
      std::abort();
    }
  }
  return 0;
}
